"""Celery tasks for rating lists: thin wrappers over ratings.services, taking ids and ISO dates.

Every task is idempotent: publication is single-flight (a lock, then a re-check inside the transaction), so a
task delivered twice — a double click, a retry, a redelivery after a worker died (acks_late) — returns the
list the first one published and changes nothing. The ``queue_*`` helpers go through the outbox: the task is a
row written in the caller's transaction and sent when it commits (``transaction.on_commit``), so a worker
never looks for rows that are not there yet and a broker outage never loses the request.
"""

from __future__ import annotations

import datetime
import logging
from typing import TYPE_CHECKING, Any

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db import InterfaceError, OperationalError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from audit.services import Actor
from outbox.labels import task_labels_register
from outbox.models import PendingTask
from outbox.services import enqueue_after_commit, pending_task_finished
from ratings import services
from ratings.services.entry_storage import entry_storage_prune
from ratings.services.recovery import PUBLISH_TASK, rating_list_publications_recover
from ratings.services.schedule import SCHEDULED_TASK

if TYPE_CHECKING:
    from django.contrib.auth.models import User

log = logging.getLogger(__name__)

# Database hiccups (connection lost, SQLite busy beyond its timeout) are retried; refusals are not.
RETRY = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 5,
    "retry_backoff_max": 120,
    "max_retries": 5,
}


def _user(user_id: int | None) -> User | None:
    return get_user_model().objects.filter(pk=user_id).first() if user_id else None


@shared_task(name=PUBLISH_TASK, bind=True, **RETRY)
def publish_rating_list_task(self, rating_type: str, list_date_iso: str, user_id: int | None = None) -> dict[str, Any]:
    """Publish the list of that date (or return the one already published).

    Its outbox row is marked finished when it ends, published or refused; not when the database failed (a
    retry follows) nor when the worker died: then the recovery (``recover_publications``) sends it again."""
    try:
        outcome = services.rating_list_publish(
            rating_type, datetime.date.fromisoformat(list_date_iso), user=_user(user_id)
        )
    except (OperationalError, InterfaceError):
        raise
    except Exception:
        pending_task_finished(self.request.id)  # a refusal (or a bug): sending it again would change nothing
        raise
    pending_task_finished(self.request.id)
    log.info("%s %s: %s", rating_type, list_date_iso, outcome.describe())
    return outcome.as_dict()


@shared_task(name="ratings.recover_publications")
def recover_publications_task() -> dict[str, list[str]]:
    """Run by beat every PUBLICATION_RECOVERY_INTERVAL_SECONDS: re-send lost publications, request due ones."""
    return rating_list_publications_recover()


@shared_task(name="ratings.prune_entry_partitions")
def prune_entry_partitions_task() -> list[str]:
    """Run by beat daily: drop the empty partitions of deleted drafts (ratings.services.entry_storage)."""
    return entry_storage_prune()


@shared_task(name=SCHEDULED_TASK, **RETRY)
def publish_scheduled_rating_list_task(rating_type: str) -> dict[str, Any]:
    """Run by beat on day 1 of the policy's list months (Periodic tasks in the admin)."""
    result = services.rating_list_publish_scheduled(rating_type, timezone.localdate())
    log.info("scheduled %s publication: %s", rating_type, result)
    return result


@shared_task(name="ratings.compute_rating_list_preview", bind=True, **RETRY)
def compute_rating_list_preview_task(
    self, rating_type: str, list_date_iso: str, user_id: int | None = None
) -> dict[str, Any]:
    """A draft preview; its outbox row is marked finished when it ends, computed or refused, as the
    publication's is. A refusal is its result (``refused``: why), which the officer's progress page shows."""
    try:
        draft = services.rating_list_compute_preview(
            rating_type, datetime.date.fromisoformat(list_date_iso), user=_user(user_id)
        )
    except (OperationalError, InterfaceError):
        raise
    except services.RatingListRefused as exc:
        pending_task_finished(self.request.id)
        log.info("%s %s: preview refused: %s", rating_type, list_date_iso, exc)
        return {"refused": str(exc)}
    except Exception:
        pending_task_finished(self.request.id)
        raise
    pending_task_finished(self.request.id)
    return {"rating_list_id": draft.pk, "status": draft.status, "entries": draft.entry_count}


@shared_task(name="ratings.republish_rating_lists", **RETRY)
def republish_rating_lists_task(
    rating_type: str, list_date_iso: str, reason: str, user_id: int | None = None
) -> dict[str, Any]:
    lists = services.rating_list_republish_from(
        rating_type, datetime.date.fromisoformat(list_date_iso), reason, user=_user(user_id)
    )
    return {"rating_list_ids": [rl.pk for rl in lists], "versions": [rl.version for rl in lists]}


def queue_publication(rating_type: str, list_date: datetime.date, user: Actor = None) -> PendingTask:
    """Publish after the current transaction commits (admin actions); returns the outbox row (its progress)."""
    return enqueue_after_commit(
        publish_rating_list_task.name, rating_type, list_date.isoformat(), user.pk if user else None
    )


def queue_preview(rating_type: str, list_date: datetime.date, user: Actor = None) -> PendingTask:
    return enqueue_after_commit(
        compute_rating_list_preview_task.name, rating_type, list_date.isoformat(), user.pk if user else None
    )


def queue_republication(rating_type: str, list_date: datetime.date, reason: str, user: Actor = None) -> PendingTask:
    return enqueue_after_commit(
        republish_rating_lists_task.name,
        rating_type,
        list_date.isoformat(),
        reason,
        user.pk if user else None,
    )


@shared_task(name="ratings.run_backtest", **RETRY)
def run_backtest_task(run_id: int) -> dict[str, Any]:
    """The laboratory's backtest job (ratings.services.laboratory): progress and result kept on the run."""
    from ratings.services.laboratory import backtest_run_execute

    run = backtest_run_execute(run_id)
    return {"run": run.pk, "status": run.status, "lists": run.lists_done}


def queue_backtest(run_id: int) -> None:
    """Run the backtest after the current transaction commits (the laboratory admin)."""
    enqueue_after_commit(run_backtest_task.name, run_id)


# What each task does, in words, wherever the admin lists tasks (outbox.labels).
task_labels_register(
    {
        PUBLISH_TASK: _("Publish a rating list"),
        "ratings.recover_publications": _("Re-send lost publications and request due lists"),
        "ratings.prune_entry_partitions": _("Drop the empty entry partitions of deleted drafts"),
        SCHEDULED_TASK: _("Publish the rating list due today (schedule)"),
        "ratings.compute_rating_list_preview": _("Compute a draft preview of a rating list"),
        "ratings.republish_rating_lists": _("Republish rating lists after corrections"),
        "ratings.run_backtest": _("Run a backtest (laboratory)"),
    }
)
