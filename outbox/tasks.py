"""Periodic re-sending of tasks the broker could not take when their transaction committed."""

from dataclasses import asdict

from celery import shared_task
from celery.signals import task_prerun
from django.conf import settings

from .services import OUTBOX_ROW_HEADER, pending_task_received, pending_tasks_dispatch
from .webhooks import WebhookFailed, webhook_deliver, webhook_retry_delay


@task_prerun.connect
def task_started(task=None, **kwargs) -> None:
    """Every task a worker starts: if the outbox sent it (its message names the row), the row is stamped
    received: no longer the broker's to lose. An error here is logged by Celery and the task runs anyway."""
    row_id = getattr(getattr(task, "request", None), OUTBOX_ROW_HEADER, None)
    if isinstance(row_id, int):
        pending_task_received(row_id)


@shared_task(name="outbox.dispatch_pending_tasks")
def dispatch_pending_tasks() -> dict:
    return asdict(pending_tasks_dispatch())


@shared_task(name="outbox.deliver_webhook", bind=True)
def deliver_webhook(self, delivery_id: int) -> bool:
    """POST one delivery; when the receiver does not take it, retried with exponential back-off
    (``webhook_retry_delay``: WEBHOOK_RETRY_BACKOFF_SECONDS × 2^n, at most WEBHOOK_RETRY_BACKOFF_MAX_SECONDS)
    up to WEBHOOK_MAX_RETRIES times; every attempt is logged (``WebhookAttempt``)."""
    try:
        return webhook_deliver(delivery_id)
    except WebhookFailed as exc:
        retries = self.request.retries
        raise self.retry(exc=exc, countdown=webhook_retry_delay(retries), max_retries=settings.WEBHOOK_MAX_RETRIES)
