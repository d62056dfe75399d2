"""Periodic re-sending of tasks the broker could not take when their transaction committed."""

from dataclasses import asdict

from celery import shared_task
from django.conf import settings

from .services import pending_tasks_dispatch
from .webhooks import WebhookFailed, webhook_deliver, webhook_retry_delay


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
