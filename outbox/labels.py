"""What a Celery task does, in words, for the people who see tasks listed (the outbox, the periodic tasks).

A task's registered name (``ratings.publish_rating_list``) is for the broker; the admin shows its label
("Publish a rating list"). The apps that define tasks register their labels here at start-up (the outbox sits
below them and never imports them), and a task nobody labelled shows its name.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from .models import PendingTask

_LABELS: dict[str, str | Promise] = {}


def task_labels_register(labels: dict[str, str | Promise]) -> None:
    """Label tasks by registered name (apps call it where they define their tasks)."""
    _LABELS.update(labels)


def task_label(name: str) -> str:
    return str(_LABELS.get(name, name))


task_labels_register(
    {
        "outbox.dispatch_pending_tasks": _("Send the tasks waiting for the broker"),
        "outbox.deliver_webhook": _("Deliver a webhook"),
        "celery.backend_cleanup": _("Clean up old task results"),
    }
)


def pending_task_state(task: PendingTask) -> str:
    """Where a queued task is, in words: waiting to be sent, sent and waiting for a worker, started, finished (a
    time never breaks across lines)."""
    if task.finished_at is not None:
        return format_html('{} <span class="nowrap">{}</span>', _("finished"), f"{task.finished_at:%Y-%m-%d %H:%M}")
    if task.received_at is not None:  # only some tasks report their end: started is all that is known
        return format_html('{} <span class="nowrap">{}</span>', _("started"), f"{task.received_at:%Y-%m-%d %H:%M}")
    if task.sent_at is not None:
        return str(_("sent, waiting for a worker"))
    return str(_("waiting to be sent"))


def pending_task_outcome(task: PendingTask) -> tuple[str, object]:
    """What the task's last send came to, as Celery's result backend tells it: ("SUCCESS", its return value),
    ("FAILURE", the error in words), or (the state, None) while it runs; ("", None) when no backend knows."""
    if not task.task_id:
        return "", None
    from celery.result import AsyncResult

    try:
        result = AsyncResult(task.task_id)
        state = result.state
        value = result.result if state in ("SUCCESS", "FAILURE") else None
    except Exception:  # a backend that cannot be read (rpc://, down) tells nothing; the row still does
        return "", None
    if state == "FAILURE":
        return state, str(value)
    return state, value
