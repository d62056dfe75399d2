"""The transactional outbox: a task to queue is first a row written in the caller's transaction."""

from django.db import models
from django.db.models import Q


class PendingTask(models.Model):
    """A Celery task to send. Written in the same transaction as the change that calls for it, sent once
    that transaction commits; if the broker cannot be reached it stays here (``sent_at`` empty) until the
    dispatcher (``dispatch_pending_tasks``, every minute) sends it. Tasks must be idempotent: a send whose
    confirmation was lost is sent again. A worker starting the task stamps ``received_at``; one the broker
    accepted and then lost (Redis restarted without it) is never started, and the dispatcher sends it again
    (``pending_tasks_lost``). A task that reports its end (``pending_task_finished``) gets
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
    received_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When a worker started the task's last send; empty while the broker holds it (or lost it)",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["created_at"], condition=Q(sent_at__isnull=True), name="pending_task_unsent"),
            # Sent and not started yet: in flight, or lost by the broker (pending_tasks_lost).
            models.Index(
                fields=["sent_at"],
                condition=Q(sent_at__isnull=False, received_at__isnull=True),
                name="pending_task_not_received",
            ),
            # The newest send each queue's workers have started (pending_tasks_lost).
            models.Index(
                fields=["queue", "sent_at"], condition=Q(received_at__isnull=False), name="pending_task_received"
            ),
        ]

    def __str__(self) -> str:
        state = f"sent {self.sent_at:%Y-%m-%d %H:%M:%S}" if self.sent_at else "pending"
        return f"{self.name}{tuple(self.args)!r} ({state})"

    @property
    def is_pending(self) -> bool:
        return self.sent_at is None


class WebhookEndpoint(models.Model):
    """Another program's URL that is told of chosen events (issue 15), each delivery signed with ``secret``
    (HMAC-SHA256 of the body, header ``X-Federation-Signature: sha256=<hex>``)."""

    EVENT_TYPES = ("list.published", "event.rated", "event.status_changed", "title.awarded", "norm.made")

    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=200, help_text="Shared with the receiver, who checks the signature")
    events = models.JSONField(default=list, help_text=f"Any of: {', '.join(EVENT_TYPES)}")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.url


class WebhookDelivery(models.Model):
    """One delivery of one event to one endpoint: its body, attempts and the last response (logged for the
    admin). Sent by the Celery task ``outbox.deliver_webhook``, retried with back-off until it succeeds."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event_type = models.CharField(max_length=40)
    body = models.TextField(help_text="The JSON sent, exactly as signed")
    created_at = models.DateTimeField(auto_now_add=True)
    attempts = models.PositiveIntegerField(default=0)
    delivered_at = models.DateTimeField(null=True, blank=True)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"{self.event_type} → {self.endpoint_id} ({'delivered' if self.delivered_at else 'pending'})"


class WebhookAttempt(models.Model):
    """One try of a delivery (issue 15: each delivery logged with its response): when, how long, and what the
    receiver answered (status and the start of its body) or why there was no answer."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField(help_text="1 for the first try, 2 for the first retry ...")
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True)
    error = models.TextField(blank=True, help_text="No answer (connection refused, timeout ...) or not 2xx")

    class Meta:
        ordering = ["delivery", "number", "id"]
        indexes = [models.Index(fields=["delivery", "number"], name="webhook_attempt_delivery")]

    def __str__(self) -> str:
        outcome = f"HTTP {self.response_status}" if self.response_status else (self.error or "no answer")
        return f"attempt {self.number} of delivery {self.delivery_id}: {outcome}"
