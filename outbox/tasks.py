"""Periodic re-sending of tasks the broker could not take when their transaction committed."""

from dataclasses import asdict

from celery import shared_task
from celery.signals import task_prerun

from .services import OUTBOX_ROW_HEADER, pending_task_received, pending_tasks_dispatch
from .webhooks import WebhookFailed, webhook_deliver


@task_prerun.connect
def task_started(task=None, **kwargs) -> None:  # noqa: ARG001 (Celery's signal arguments)
    """Every task a worker starts: if the outbox sent it (its message names the row), the row is stamped
    received: no longer the broker's to lose. An error here is logged by Celery and the task runs anyway."""
    row_id = getattr(getattr(task, "request", None), OUTBOX_ROW_HEADER, None)
    if isinstance(row_id, int):
        pending_task_received(row_id)


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
