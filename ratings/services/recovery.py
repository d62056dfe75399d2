"""Publications recover by themselves: a requested or due list that no worker finished is sent again.

A publication task is acknowledged only when it ends (``CELERY_TASK_ACKS_LATE``). When the whole worker dies
(or its host), Redis hands the message to another worker only after its visibility timeout, and the outbox
already counts the task as sent; beat publishes only on the list date. So, every
``PUBLICATION_RECOVERY_INTERVAL_SECONDS`` (beat), :func:`rating_list_publications_recover`:

* **requested**: an outbox row of ``ratings.publish_rating_list`` sent more than
  ``PUBLICATION_RECOVERY_AFTER_SECONDS`` ago and not finished (the task marks its row when it ends, done or
  refused): if the list is published meanwhile the row is closed; if no session holds the rating type's
  publication lock (nothing is running it) it is sent again;
* **due**: today is a list date of a rating type whose beat schedule is enabled, the day is older than
  ``PUBLICATION_RECOVERY_AFTER_SECONDS``, the list is not published and no publication of it was requested:
  one is requested (through the outbox, so from then on it is a requested one).

Never twice at once: the advisory lock stays the guard (a second run waits, then reports "already published");
a re-send only happens while nobody holds it. On SQLite (no visible lock) a re-send waits on the database's
write lock instead, with the same outcome.
"""

from __future__ import annotations

import datetime
import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from outbox.models import PendingTask
from outbox.services import (
    enqueue_after_commit,
    pending_task_close,
    pending_task_resend,
    pending_tasks_unfinished,
)
from ratings.models import RatingPolicy
from ratings.selectors import rating_list_current
from ratings.services.publication import rating_list_publication_running
from ratings.services.schedule import scheduled_task_name

log = logging.getLogger(__name__)

PUBLISH_TASK = "ratings.publish_rating_list"
# A publication that failed this many sends (each with its own retries) fails for a reason a re-send will not
# cure (a statement timeout at this size, a database that keeps refusing): it is left for an official, who
# sees it unfinished in Task outbox, instead of being sent again every few minutes for ever.
MAX_SENDS = 10


def rating_list_publications_recover(now: datetime.datetime | None = None) -> dict[str, list[str]]:
    """Re-send lost publications and request due ones (see the module docstring). Returns what it did, as
    ``{"resent": [...], "closed": [...], "requested": [...], "running": [...], "given_up": [...]}`` of "type
    date" strings (given up: sent MAX_SENDS times, never finished)."""
    now = now or timezone.now()
    after = datetime.timedelta(seconds=settings.PUBLICATION_RECOVERY_AFTER_SECONDS)
    report: dict[str, list[str]] = {"resent": [], "closed": [], "requested": [], "running": [], "given_up": []}
    for row in pending_tasks_unfinished(PUBLISH_TASK, sent_before=now - after)[:100]:
        target = _target(row)
        if target is None:
            pending_task_close(row)  # not a publication this can judge: never re-sent blindly
            continue
        rating_type, list_date = target
        label = f"{rating_type} {list_date}"
        if rating_list_current(rating_type, list_date) is not None:
            pending_task_close(row)
            report["closed"].append(label)
        elif rating_list_publication_running(rating_type):
            report["running"].append(label)
        elif row.attempts >= MAX_SENDS:
            report["given_up"].append(label)
            log.error(
                "publication of the %s list was sent %s times and never finished: not sent again", label, row.attempts
            )
        else:
            pending_task_resend(row)
            report["resent"].append(label)
            log.warning("publication of the %s list was sent %s and never finished: sent again", label, row.sent_at)
    report["requested"] = _request_due(now, after)
    return report


def _target(row: PendingTask) -> tuple[str, datetime.date] | None:
    try:
        rating_type, list_date_iso = row.args[0], row.args[1]
        return str(rating_type), datetime.date.fromisoformat(str(list_date_iso))
    except (IndexError, KeyError, TypeError, ValueError):
        return None


def _request_due(now: datetime.datetime, after: datetime.timedelta) -> list[str]:
    from django_celery_beat.models import PeriodicTask

    today = timezone.localdate(now)
    day_start = timezone.make_aware(datetime.datetime.combine(today, datetime.time.min))
    if now - day_start < after:
        return []  # beat's own run of the day is still on its way
    requested = []
    for policy in RatingPolicy.objects.all():
        rating_type = policy.rating_type
        if not policy.is_list_date(today) or rating_list_current(rating_type, today) is not None:
            continue
        if not PeriodicTask.objects.filter(name=scheduled_task_name(rating_type), enabled=True).exists():
            continue
        asked = PendingTask.objects.filter(name=PUBLISH_TASK, args__0=rating_type, args__1=today.isoformat())
        if asked.exists() or rating_list_publication_running(rating_type):
            continue
        with transaction.atomic():
            enqueue_after_commit(PUBLISH_TASK, rating_type, today.isoformat(), None)
        requested.append(f"{rating_type} {today}")
        log.warning("the %s list of %s is due and not published: publication requested", rating_type, today)
    return requested
