"""The transactional outbox: a task to queue is first a row written in the caller's transaction."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class PendingTask(models.Model):
    """A Celery task to send. Written in the same transaction as the change that calls for it, sent once
    that transaction commits; if the broker cannot be reached it stays here (``sent_at`` empty) until the
    dispatcher (``dispatch_pending_tasks``, every minute) sends it. Tasks must be idempotent: a send whose
    confirmation was lost is sent again. A worker starting the task stamps ``received_at``; one the broker
    accepted and then lost (Redis restarted without it) is never started, and the dispatcher sends it again
    (``pending_tasks_lost``). A task that reports its end (``pending_task_finished``) gets
    ``finished_at``; one sent long ago and never finished was lost with its worker and may be sent again
    (``pending_task_resend``, e.g. ratings' publication recovery)."""

    name = models.CharField(_("name"), max_length=200, help_text=_("Registered Celery task name"))
    args = models.JSONField(_("args"), default=list, blank=True)
    queue = models.CharField(_("queue"), max_length=100, blank=True, help_text=_("Empty: the task's default queue"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    task_id = models.CharField(_("task id"), max_length=64, blank=True, help_text=_("Celery task id of the last send"))
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    last_attempt_at = models.DateTimeField(_("last attempt at"), null=True, blank=True)
    finished_at = models.DateTimeField(
        _("finished at"),
        null=True,
        blank=True,
        help_text=_("When a worker ran the task to an end (done or refused); empty while it may still be lost"),
    )
    received_at = models.DateTimeField(
        _("received at"),
        null=True,
        blank=True,
        help_text=_("When a worker started the task's last send; empty while the broker holds it (or lost it)"),
    )

    class Meta:
        verbose_name = _("pending task")
        verbose_name_plural = _("pending tasks")
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

    url = models.URLField(_("url"), max_length=500)
    secret = models.CharField(
        _("secret"), max_length=200, help_text=_("Shared with the receiver, who checks the signature")
    )
    events = models.JSONField(_("events"), default=list, help_text=f"Any of: {', '.join(EVENT_TYPES)}")
    active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")

    def __str__(self) -> str:
        return self.url


class WebhookDelivery(models.Model):
    """One delivery of one event to one endpoint: its body, attempts and the last response (logged for the
    admin). Sent by the Celery task ``outbox.deliver_webhook``, retried with back-off until it succeeds."""

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("endpoint")
    )
    event_type = models.CharField(_("event type"), max_length=40)
    body = models.TextField(_("body"), help_text=_("The JSON sent, exactly as signed"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    response_status = models.PositiveSmallIntegerField(_("response status"), null=True, blank=True)
    response_body = models.TextField(_("response body"), blank=True)
    last_error = models.TextField(_("last error"), blank=True)

    class Meta:
        verbose_name = _("webhook delivery")
        ordering = ["-created_at", "-id"]
        verbose_name_plural = _("webhook deliveries")

    def __str__(self) -> str:
        return f"{self.event_type} → {self.endpoint_id} ({'delivered' if self.delivered_at else 'pending'})"


class WebhookAttempt(models.Model):
    """One try of a delivery (issue 15: each delivery logged with its response): when, how long, and what the
    receiver answered (status and the start of its body) or why there was no answer."""

    delivery = models.ForeignKey(
        WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log", verbose_name=_("delivery")
    )
    number = models.PositiveIntegerField(_("number"), help_text=_("1 for the first try, 2 for the first retry ..."))
    started_at = models.DateTimeField(_("started at"))
    duration_ms = models.PositiveIntegerField(_("duration ms"), default=0)
    response_status = models.PositiveSmallIntegerField(_("response status"), null=True, blank=True)
    response_body = models.TextField(_("response body"), blank=True)
    error = models.TextField(
        _("error"), blank=True, help_text=_("No answer (connection refused, timeout ...) or not 2xx")
    )

    class Meta:
        verbose_name = _("webhook attempt")
        verbose_name_plural = _("webhook attempts")
        ordering = ["delivery", "number", "id"]
        indexes = [models.Index(fields=["delivery", "number"], name="webhook_attempt_delivery")]

    def __str__(self) -> str:
        outcome = f"HTTP {self.response_status}" if self.response_status else (self.error or "no answer")
        return f"attempt {self.number} of delivery {self.delivery_id}: {outcome}"
