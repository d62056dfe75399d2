"""The transactional outbox: a task to queue is first a row written in the caller's transaction."""

from django.db import models
from django.db.models import Q


class PendingTask(models.Model):
    """A Celery task to send. Written in the same transaction as the change that calls for it, sent once
    that transaction commits; if the broker cannot be reached it stays here (``sent_at`` empty) until the
    dispatcher (``dispatch_pending_tasks``, every minute) sends it. Tasks must be idempotent: a send whose
    confirmation was lost is sent again. A task that reports its end (``pending_task_finished``) gets
    ``finished_at``; one sent long ago and never finished was lost with its worker and may be sent again
    (``pending_task_resend``, e.g. ratings' publication recovery)."""

    name = models.CharField(max_length=200, help_text="Registered Celery task name")
    args = models.JSONField(default=list, blank=True)
    queue = models.CharField(max_length=100, blank=True, help_text="Empty: the task's default queue")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    task_id = models.CharField(max_length=64, blank=True, help_text="Celery task id of the last send")
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When a worker ran the task to an end (done or refused); empty while it may still be lost",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["created_at"], condition=Q(sent_at__isnull=True), name="pending_task_unsent"),
        ]

    def __str__(self) -> str:
        state = f"sent {self.sent_at:%Y-%m-%d %H:%M:%S}" if self.sent_at else "pending"
        return f"{self.name}{tuple(self.args)!r} ({state})"

    @property
    def is_pending(self) -> bool:
        return self.sent_at is None
