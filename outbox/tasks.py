"""Periodic re-sending of tasks the broker could not take when their transaction committed."""

from dataclasses import asdict

from celery import shared_task

from .services import pending_tasks_dispatch
from .webhooks import WebhookFailed, webhook_deliver


@shared_task(name="outbox.dispatch_pending_tasks")
def dispatch_pending_tasks() -> dict:
    return asdict(pending_tasks_dispatch())


@shared_task(
    name="outbox.deliver_webhook",
    autoretry_for=(WebhookFailed,),
    retry_backoff=10,  # 10 s, 20 s, 40 s ... (with jitter), at most 1 h apart, 8 tries
    retry_backoff_max=3600,
    max_retries=8,
)
def deliver_webhook(delivery_id: int) -> bool:
    return webhook_deliver(delivery_id)
