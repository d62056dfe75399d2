"""Celery tasks for events: thin wrappers over events.notifications, taking ids (queued through the outbox)."""

from __future__ import annotations

from celery import shared_task

from events.notifications import event_email_send


@shared_task(name="events.tasks.send_event_email", autoretry_for=(OSError,), retry_backoff=30, max_retries=5)
def send_event_email(event_id: int, kind: str, reason: str = "") -> int:
    """Idempotent enough: a message sent twice is a duplicate e-mail, never a changed record."""
    return event_email_send(event_id, kind, reason)


@shared_task(name="events.tasks.send_events_email", autoretry_for=(OSError,), retry_backoff=30, max_retries=5)
def send_events_email(event_ids: list[int], kind: str) -> int:
    """One task for the events of a publication (``rated``): one message per event's chief arbiter."""
    return sum(event_email_send(event_id, kind) for event_id in event_ids)
