"""Periodic re-sending of tasks the broker could not take when their transaction committed."""

from dataclasses import asdict

from celery import shared_task

from .services import pending_tasks_dispatch


@shared_task(name="outbox.dispatch_pending_tasks")
def dispatch_pending_tasks() -> dict:
    return asdict(pending_tasks_dispatch())
