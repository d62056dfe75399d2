"""Webhooks (issue 15): tell other software of ``list.published``, ``event.rated`` and ``event.status_changed``.

``webhooks_notify`` writes one ``WebhookDelivery`` per subscribed endpoint in the caller's transaction and
queues its sending through the outbox (so nothing is sent for a change that rolls back). ``webhook_deliver``
POSTs the body signed with the endpoint's secret — header ``X-Federation-Signature: sha256=<HMAC-SHA256 of
the body, hex>`` — and logs every attempt with its response (``WebhookAttempt``); a failure raises
``WebhookFailed`` so that Celery retries with back-off (``outbox.tasks.deliver_webhook``, ``webhook_retry_delay``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request
from typing import Any

from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from .models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from .services import enqueue_after_commit

DELIVER_TASK = "outbox.deliver_webhook"
SIGNATURE_HEADER = "X-Federation-Signature"
TIMEOUT_SECONDS = 10
RESPONSE_KEPT = 2000  # characters of the receiver's answer logged


class WebhookFailed(Exception):
    """The receiver did not take the delivery (no answer, or not 2xx): Celery retries it."""


def webhook_signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def webhooks_notify(event_type: str, payloads: list[dict[str, Any]]) -> list[WebhookDelivery]:
    """Queue one delivery of each payload to every active endpoint subscribed to ``event_type`` (one query
    when none is: the common case costs nothing more)."""
    if event_type not in WebhookEndpoint.EVENT_TYPES:
        raise ValueError(f"unknown webhook event {event_type!r}")
    endpoints = [e for e in WebhookEndpoint.objects.filter(active=True) if event_type in e.events]
    if not endpoints or not payloads:
        return []
    now = timezone.now().isoformat()
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            endpoint=endpoint,
            event_type=event_type,
            body=json.dumps({"event": event_type, "sent_at": now, "data": payload}, cls=DjangoJSONEncoder),
        )
        for endpoint in endpoints
        for payload in payloads
    )
    for delivery in deliveries:
        enqueue_after_commit(DELIVER_TASK, delivery.pk)
    return deliveries


def webhook_deliver(delivery_id: int) -> bool:
    """POST one delivery; True when the receiver answered 2xx (or it was delivered before: idempotent)."""
    delivery = WebhookDelivery.objects.select_related("endpoint").filter(pk=delivery_id).first()
    if delivery is None or delivery.delivered_at is not None:
        return True
    body = delivery.body.encode("utf-8")
    request = urllib.request.Request(
        delivery.endpoint.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "X-Federation-Event": delivery.event_type,
            SIGNATURE_HEADER: webhook_signature(delivery.endpoint.secret, body),
        },
    )
    with transaction.atomic():  # the attempt's number: two workers given the same message never share one
        WebhookDelivery.objects.filter(pk=delivery.pk).update(attempts=F("attempts") + 1)
        number = WebhookDelivery.objects.values_list("attempts", flat=True).get(pk=delivery.pk)
    started_at, clock = timezone.now(), time.monotonic()

    def log(status: int | None, text: str, error: str) -> None:
        WebhookAttempt.objects.create(
            delivery_id=delivery.pk,
            number=number,
            started_at=started_at,
            duration_ms=round((time.monotonic() - clock) * 1000),
            response_status=status,
            response_body=text,
            error=error,
        )

    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            status, text = response.status, response.read(RESPONSE_KEPT).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read(RESPONSE_KEPT).decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as exc:
        error = str(exc)[:RESPONSE_KEPT]
        log(None, "", error)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(last_error=error)
        raise WebhookFailed(f"{delivery.endpoint.url}: {exc}") from exc
    done = 200 <= status < 300
    log(status, text, "" if done else f"HTTP {status}")
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        response_status=status,
        response_body=text,
        delivered_at=timezone.now() if done else None,
        last_error="" if done else f"HTTP {status}",
    )
    if not done:
        raise WebhookFailed(f"{delivery.endpoint.url} answered HTTP {status}")
    return True


def webhook_retry_delay(retries: int) -> int:
    """Seconds before the next try of a delivery tried ``retries`` + 1 times: exponential back-off,
    WEBHOOK_RETRY_BACKOFF_SECONDS × 2^retries, at most WEBHOOK_RETRY_BACKOFF_MAX_SECONDS; with
    WEBHOOK_RETRY_JITTER a random time up to that ("full jitter", Celery's own formula)."""
    return get_exponential_backoff_interval(
        factor=settings.WEBHOOK_RETRY_BACKOFF_SECONDS,
        retries=retries,
        maximum=settings.WEBHOOK_RETRY_BACKOFF_MAX_SECONDS,
        full_jitter=settings.WEBHOOK_RETRY_JITTER,
    )
