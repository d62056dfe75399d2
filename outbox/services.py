"""Queue Celery tasks so that a broker outage never loses work and never fails the user's action.

``enqueue_after_commit`` writes a ``PendingTask`` row in the caller's transaction (so the task exists
exactly when the change that calls for it does) and sends it once that transaction commits. If the broker
is down the send fails quietly — logged, the row stays pending, the request succeeds — and
``pending_tasks_dispatch`` (the ``dispatch_pending_tasks`` command and periodic task) sends it later. A task
the broker accepted and then lost (Redis restarted without its data) is sent again too: workers stamp the
row when they start a task (``pending_task_received``), and one never started while later ones were is lost
(``pending_tasks_lost``).
Delivery is at least once: tasks take ids and must be idempotent (DESIGN house rule 3).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, QuerySet
from django.utils import timezone

from .models import PendingTask

logger = logging.getLogger("outbox")

# A send made while the user waits gives up after this long (kombu's default is 4 s of reconnecting) ...
ON_COMMIT_CONNECT_TIMEOUT = 1.0
# The dispatcher runs every minute: no point in it waiting long for a broker that is down either.
DISPATCH_CONNECT_TIMEOUT = 2.0
# The message header naming a task's outbox row: the worker starting the task stamps the row received.
OUTBOX_ROW_HEADER = "outbox_row"
# ... and after a failure this process stops trying on commit for OUTBOX_RETRY_AFTER_SECONDS, leaving new
# rows to the dispatcher, so an outage costs one slow save per process, not every save.
_pause_until = 0.0


@dataclass(frozen=True)
class DispatchReport:
    sent: int
    failed: int
    pending: int  # rows still unsent after this run
    error: str = ""


def enqueue_after_commit(task_name: str, *args: object, queue: str = "") -> PendingTask:
    """Queue the Celery task ``task_name(*args)`` to be sent when the current transaction commits.

    Call it inside the service's ``transaction.atomic()``: if the transaction rolls back, nothing is queued.
    ``args`` must be JSON values (ids, strings, numbers). Never raises because the broker is down.
    """
    try:
        json.dumps(list(args))
    except (TypeError, ValueError) as exc:
        message = f"enqueue_after_commit({task_name!r}): arguments must be JSON values: {exc}"
        raise TypeError(message) from None
    row = PendingTask.objects.create(name=task_name, args=list(args), queue=queue)
    transaction.on_commit(partial(_send_committed, row.pk))
    return row


def _send_committed(pk: int) -> None:
    global _pause_until
    if time.monotonic() < _pause_until:
        logger.info("outbox: broker failed recently; task row %s left to the dispatcher", pk)
        return
    try:
        _, failed, _ = _dispatch(PendingTask.objects.filter(pk=pk), connect_timeout=ON_COMMIT_CONNECT_TIMEOUT)
    except Exception:  # an on-commit hook must never turn a saved change into an error page
        logger.exception("outbox: could not send pending task %s; the dispatcher will retry", pk)
        failed = 1
    if failed:
        _pause_until = time.monotonic() + settings.OUTBOX_RETRY_AFTER_SECONDS


def pending_tasks_dispatch(*, min_age_seconds: int | None = None, limit: int = 500) -> DispatchReport:
    """Send unsent tasks older than ``min_age_seconds`` (default OUTBOX_RETRY_AFTER_SECONDS, which leaves the
    on-commit send of a just-saved change alone), oldest first, at most ``limit``. Stops at the first broker
    failure: the rest would fail the same way."""
    if min_age_seconds is None:
        min_age_seconds = settings.OUTBOX_RETRY_AFTER_SECONDS
    lost = list(pending_tasks_lost().values_list("pk", flat=True)[:limit])
    if lost:  # sent again below, as any unsent row
        PendingTask.objects.filter(pk__in=lost, received_at__isnull=True).update(sent_at=None)
        logger.warning("outbox: %s task(s) the broker accepted never reached a worker; sending them again", len(lost))
    cutoff = timezone.now() - timedelta(seconds=min_age_seconds)
    sent, failed, error = _dispatch(
        PendingTask.objects.filter(created_at__lte=cutoff).order_by("created_at", "id"),
        limit=limit,
        connect_timeout=DISPATCH_CONNECT_TIMEOUT,
    )
    pending = PendingTask.objects.filter(sent_at__isnull=True).count()
    return DispatchReport(sent=sent, failed=failed, pending=pending, error=error)


def pending_tasks_send(queryset: QuerySet[PendingTask]) -> DispatchReport:
    """Send the unsent tasks among ``queryset`` now, whatever their age (the admin's "send now")."""
    sent, failed, error = _dispatch(queryset.order_by("created_at", "id"), connect_timeout=DISPATCH_CONNECT_TIMEOUT)
    pending = PendingTask.objects.filter(sent_at__isnull=True).count()
    return DispatchReport(sent=sent, failed=failed, pending=pending, error=error)


def _dispatch(
    queryset: QuerySet[PendingTask], limit: int | None = None, connect_timeout: float | None = None
) -> tuple[int, int, str]:
    from celery import current_app as app

    with transaction.atomic():
        # skip_locked: two dispatchers (or a dispatcher and an on-commit send) never send the same row twice.
        unsent = queryset.filter(sent_at__isnull=True).select_for_update(skip_locked=True)
        rows = list(unsent[:limit] if limit else unsent)
        if not rows:
            return 0, 0, ""
        done: list[PendingTask] = []
        failure: tuple[PendingTask, Exception] | None = None
        now = timezone.now()
        try:
            options = {"connect_timeout": connect_timeout} if connect_timeout else {}
            with app.connection_for_write(**options) as connection:
                for row in rows:
                    try:
                        # retry=False: fail at once when the broker is down; the row itself is the retry.
                        # ignore_result: nobody waits for an outbox task's return value (it reports in the
                        # database), and Celery would first subscribe to it in the result store, which with
                        # Redis down retries 20 times a second apart: a save held 19 s (bench/broker_outage.py).
                        result = app.send_task(
                            row.name,
                            args=row.args,
                            queue=row.queue or None,
                            connection=connection,
                            retry=False,
                            ignore_result=True,
                            headers={OUTBOX_ROW_HEADER: row.pk},  # the worker stamps the row received
                        )
                    except Exception as exc:
                        failure = (row, exc)
                        break
                    row.task_id, row.sent_at, row.last_error, row.last_attempt_at = result.id, now, "", now
                    row.received_at = None  # this send's: stamped when a worker starts it
                    row.attempts += 1
                    done.append(row)
        except Exception as exc:  # opening or closing the connection itself failed
            if failure is None and len(done) < len(rows):
                failure = (rows[len(done)], exc)
        if done:
            fields = ["task_id", "sent_at", "received_at", "last_error", "last_attempt_at", "attempts"]
            PendingTask.objects.bulk_update(done, fields)
        if failure is None:
            return len(done), 0, ""
        failed_row, failed_with = failure
        error = f"{type(failed_with).__name__}: {failed_with}"[:2000]
        PendingTask.objects.filter(pk=failed_row.pk).update(
            attempts=F("attempts") + 1, last_error=error, last_attempt_at=now
        )
        logger.warning("outbox: task %s (row %s) not sent, it stays pending: %s", failed_row.name, failed_row.pk, error)
        return len(done), 1, error


# ------------------------------------------------------------------------------------- lost tasks


def pending_task_received(row_id: int) -> int:
    """Record that a worker started the task of outbox row ``row_id`` (the message's ``OUTBOX_ROW_HEADER``):
    the broker no longer holds it. By the row's id, not its task id: the sender writes the task id in the
    transaction that sends it, so a fast worker can start the task before that commits; this update then waits
    for the row's lock and lands after it. Returns the rows marked."""
    return PendingTask.objects.filter(pk=row_id).update(received_at=timezone.now())


def pending_tasks_lost(now: datetime | None = None) -> QuerySet[PendingTask]:
    """Tasks the broker accepted and then lost (a Redis restarted without its data): sent more than
    OUTBOX_LOST_AFTER_SECONDS ago, never started, while a task sent to the same queue after them has been
    started. That last condition tells a lost task from one still waiting its turn: a queue is taken in order,
    so while its workers are stopped or busy nothing is taken for lost (and nothing is sent twice); once they
    take later tasks, the earlier ones are not coming. Oldest first."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.OUTBOX_LOST_AFTER_SECONDS)
    started_later = PendingTask.objects.filter(
        queue=OuterRef("queue"), received_at__isnull=False, sent_at__gt=OuterRef("sent_at")
    )
    return (
        PendingTask.objects.filter(sent_at__lt=cutoff, received_at__isnull=True, finished_at__isnull=True)
        .filter(Exists(started_later))
        .order_by("sent_at", "id")
    )


def pending_task_finished(task_id: str) -> int:
    """Record that the task sent as ``task_id`` ran to an end (done or refused: not to be sent again).
    Called by the task itself; a Celery retry keeps its id. Returns the rows marked (0: not an outbox task)."""
    if not task_id:
        return 0
    return PendingTask.objects.filter(task_id=task_id, finished_at__isnull=True).update(finished_at=timezone.now())


def pending_tasks_unfinished(name: str, *, sent_before: datetime) -> QuerySet[PendingTask]:
    """Tasks ``name`` sent before ``sent_before`` and not finished: lost with their worker, or still queued or
    running (the caller tells which), oldest first."""
    return PendingTask.objects.filter(
        name=name, sent_at__isnull=False, sent_at__lt=sent_before, finished_at__isnull=True
    ).order_by("sent_at", "id")


def pending_task_close(row: PendingTask) -> None:
    """Mark a row finished without running it (its work is known to be done another way)."""
    PendingTask.objects.filter(pk=row.pk, finished_at__isnull=True).update(finished_at=timezone.now())


def pending_task_resend(row: PendingTask) -> DispatchReport:
    """Send an unfinished task again (a new task id; the row keeps counting attempts). If the broker is down
    the row becomes pending and the dispatcher sends it later."""
    with transaction.atomic():
        marked = PendingTask.objects.filter(pk=row.pk, finished_at__isnull=True, sent_at__isnull=False).update(
            sent_at=None
        )
        if not marked:
            return DispatchReport(sent=0, failed=0, pending=0)
        sent, failed, error = _dispatch(PendingTask.objects.filter(pk=row.pk), connect_timeout=DISPATCH_CONNECT_TIMEOUT)
    logger.warning("outbox: task %s (row %s) was sent but never finished; sent again", row.name, row.pk)
    return DispatchReport(sent=sent, failed=failed, pending=failed, error=error)
