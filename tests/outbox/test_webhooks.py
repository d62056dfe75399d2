"""Webhooks (issue 15): a delivery reaches a real HTTP server started here on 127.0.0.1, its HMAC-SHA256
signature verifies with the endpoint's secret, a failing endpoint is retried by a real Celery worker with
back-off, and every attempt is logged with its response (admin)."""

import hashlib
import hmac
import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.db import transaction

from events.models import Result
from events.services import event_submit
from outbox.models import PendingTask, WebhookDelivery, WebhookEndpoint
from outbox.tasks import deliver_webhook
from outbox.webhooks import webhook_retry_delay, webhooks_notify
from ratings.services import rating_list_publish
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player
from tests.ratings.conftest import wait_for
from tests.ratings.scenarios import MAR, build_federation

pytestmark = pytest.mark.django_db

SECRET = "s3cret-shared-with-the-receiver"


class Receiver:
    """An HTTP server on 127.0.0.1 (a free port) that records every POST, when it came (``times``, monotonic)
    and whether its signature verified with ``SECRET`` (``verified``; a bad one is answered 403); of the
    rest, the first ``fail`` answers are 500."""

    def __init__(self, fail: int = 0):
        self.received: list[tuple[dict, bytes]] = []
        self.times: list[float] = []
        self.verified: list[bool] = []
        self.fail = fail
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.times.append(time.monotonic())
                receiver.received.append((dict(self.headers), body))
                expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
                verified = hmac.compare_digest(self.headers.get("X-Federation-Signature", ""), expected)
                receiver.verified.append(verified)
                status = 403 if not verified else 500 if receiver.fail > 0 else 200
                receiver.fail -= verified
                self.send_response(status)
                self.end_headers()
                self.wfile.write({200: b"ok", 403: b"bad signature"}.get(status, b"try again"))

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def submitted_event():
    arbiter = make_arbiter()
    event = make_event(name="Hook Open", rounds=1, chief_arbiter=arbiter)
    a, b = make_participants(event, [make_player(surname="Ames"), make_player(surname="Baker")])
    make_game(event, 1, a, b, result=Result.DRAW)
    event_submit(event, user=arbiter)
    return event


def deliver_all():
    for delivery in WebhookDelivery.objects.order_by("id"):
        deliver_webhook.apply(args=[delivery.pk])


def test_a_status_change_is_delivered_signed_to_a_real_server():
    with Receiver() as receiver:
        WebhookEndpoint.objects.create(url=receiver.url, secret=SECRET, events=["event.status_changed"])
        event = submitted_event()
        assert PendingTask.objects.filter(name="outbox.deliver_webhook").count() == 2  # queued through the outbox
        deliver_all()
    assert len(receiver.received) == 2
    for headers, body in receiver.received:
        expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["X-Federation-Signature"], expected)
        assert headers["X-Federation-Event"] == "event.status_changed"
    steps = [json.loads(body)["data"] for _, body in receiver.received]
    assert [(s["event"], s["from"], s["to"]) for s in steps] == [
        (event.pk, "draft", "checked"),
        (event.pk, "checked", "submitted"),
    ]
    assert all(d.delivered_at and d.response_status == 200 for d in WebhookDelivery.objects.all())


def test_a_failing_endpoint_is_retried_until_it_answers():
    with Receiver(fail=2) as receiver:
        WebhookEndpoint.objects.create(url=receiver.url, secret=SECRET, events=["event.status_changed"])
        submitted_event()
        first = WebhookDelivery.objects.order_by("id").first()
        deliver_webhook.apply(args=[first.pk])  # eager: Celery's retries run at once, without the back-off wait
    first.refresh_from_db()
    assert (first.attempts, first.response_status, first.response_body) == (3, 200, "ok")
    assert first.delivered_at is not None
    assert first.last_error == ""
    assert list(first.attempt_log.values_list("number", "response_status", "response_body", "error")) == [
        (1, 500, "try again", "HTTP 500"),
        (2, 500, "try again", "HTTP 500"),
        (3, 200, "ok", ""),
    ]
    page = client_for(make_officer()).get(f"/admin/outbox/webhookdelivery/{first.pk}/change/").content.decode()
    assert page.count("try again") == 2
    assert page.count('<td class="field-number">') == 3  # each attempt, answered


def test_the_back_off_doubles_from_its_base_up_to_its_maximum(settings):
    settings.WEBHOOK_RETRY_BACKOFF_SECONDS, settings.WEBHOOK_RETRY_BACKOFF_MAX_SECONDS = 10, 60
    settings.WEBHOOK_RETRY_JITTER = False
    assert [webhook_retry_delay(n) for n in range(5)] == [10, 20, 40, 60, 60]
    settings.WEBHOOK_RETRY_JITTER = True  # the default: a random time up to the same bound
    assert all(0 <= webhook_retry_delay(n) <= min(10 * 2**n, 60) for n in range(5) for _ in range(20))


# --- through a real Celery worker ----------------------------------------------------------------------------
FAILURES = 3  # the receiver answers 500 this many times, then 200
BACKOFF = 1  # seconds: the worker's WEBHOOK_RETRY_BACKOFF_SECONDS, so the retries come after 1, 2 and 4 s


@pytest.fixture
def short_back_off(monkeypatch, settings):
    """The environment the worker process starts with (requested before ``celery_worker_process``, which copies
    os.environ): a back-off base of BACKOFF seconds without jitter, so that the waits are exact."""
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        pytest.skip("the memory:// broker lives inside one process: a worker process cannot share its queue")
    monkeypatch.setenv("WEBHOOK_RETRY_BACKOFF_SECONDS", str(BACKOFF))
    monkeypatch.setenv("WEBHOOK_RETRY_JITTER", "false")
    monkeypatch.setenv("WEBHOOK_MAX_RETRIES", str(FAILURES + 2))


@pytest.mark.worker
def test_a_real_worker_retries_a_failing_endpoint_with_back_off_and_logs_every_attempt(
    short_back_off, celery_worker_process
):
    with Receiver(fail=FAILURES) as receiver:
        WebhookEndpoint.objects.create(url=receiver.url, secret=SECRET, events=["event.status_changed"])
        with transaction.atomic():  # queued through the outbox, sent to the broker when this commits
            (delivery,) = webhooks_notify("event.status_changed", [{"event": 1, "from": "draft", "to": "checked"}])
        wait_for(
            lambda: WebhookDelivery.objects.filter(pk=delivery.pk, delivered_at__isnull=False).exists(),
            celery_worker_process,
            timeout=120,
            what="the webhook delivery",
        )
    log = celery_worker_process.output()
    assert "outbox.deliver_webhook[" in log
    assert f"Retry in {BACKOFF}s" in log
    assert f"Retry in {4 * BACKOFF}s" in log

    # The server got the same signed body every time and verified its signature.
    assert len(receiver.received) == FAILURES + 1
    assert all(receiver.verified)
    assert {body for _, body in receiver.received} == {delivery.body.encode()}
    # Back-off: each wait at least BACKOFF × 2^n (the worker holds the retry until then), and growing.
    waits = [later - earlier for earlier, later in zip(receiver.times, receiver.times[1:], strict=False)]
    assert all(wait >= BACKOFF * 2**n - 0.05 for n, wait in enumerate(waits)), waits
    assert waits == sorted(waits), waits
    # Every attempt is in the delivery's log with the response it got.
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.response_status, delivery.last_error) == (FAILURES + 1, 200, "")
    attempts = list(delivery.attempt_log.order_by("number"))
    assert [(a.number, a.response_status, a.response_body, a.error) for a in attempts] == [
        *[(n, 500, "try again", "HTTP 500") for n in range(1, FAILURES + 1)],
        (FAILURES + 1, 200, "ok", ""),
    ]
    started = [a.started_at for a in attempts]
    gaps = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(started)]
    assert all(gap >= BACKOFF * 2**n - 0.05 for n, gap in enumerate(gaps)), gaps


def test_an_unreachable_endpoint_logs_the_error_and_is_not_marked_delivered():
    with Receiver() as receiver:
        url = receiver.url
    WebhookEndpoint.objects.create(url=url, secret=SECRET, events=["event.status_changed"])
    submitted_event()
    delivery = WebhookDelivery.objects.order_by("id").first()
    deliver_webhook.apply(args=[delivery.pk])
    delivery.refresh_from_db()
    assert delivery.delivered_at is None
    assert delivery.attempts == 9
    assert delivery.last_error


def test_a_publication_notifies_list_published_and_event_rated_only_to_subscribers():
    with Receiver() as receiver:
        WebhookEndpoint.objects.create(url=receiver.url, secret=SECRET, events=["list.published", "event.rated"])
        WebhookEndpoint.objects.create(url=receiver.url, secret=SECRET, events=["list.published"], active=False)
        build_federation()
        rating_list_publish("standard", MAR)
        deliver_all()
    kinds = sorted(json.loads(body)["event"] for _, body in receiver.received)
    assert kinds == ["event.rated", "event.rated", "list.published"]
    published = next(json.loads(b)["data"] for _, b in receiver.received if b"list.published" in b)
    assert (published["rating_type"], published["list_date"], published["version"]) == ("standard", "2026-03-01", 1)


def test_officials_manage_endpoints_and_see_deliveries_arbiters_do_not():
    officer = client_for(make_officer())
    response = officer.post(
        "/admin/outbox/webhookendpoint/add/",
        {"url": "https://example.org/hook", "secret": "x", "events": ["event.rated"], "active": "on"},
    )
    assert response.status_code == 302
    assert WebhookEndpoint.objects.get().events == ["event.rated"]
    assert officer.get("/admin/outbox/webhookdelivery/").status_code == 200
    arbiter = client_for(make_arbiter())
    assert arbiter.get("/admin/outbox/webhookendpoint/").status_code == 403
    assert arbiter.get("/admin/outbox/webhookdelivery/").status_code == 403
