"""Webhooks (issue 15): a delivery reaches a real HTTP server started here on 127.0.0.1, its HMAC-SHA256
signature verifies with the endpoint's secret, a failing endpoint is retried by Celery with back-off, and
every delivery is logged (admin)."""

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from events.models import Result
from events.services import event_submit
from outbox.models import PendingTask, WebhookDelivery, WebhookEndpoint
from outbox.tasks import deliver_webhook
from ratings.services import rating_list_publish
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player
from tests.ratings.scenarios import MAR, build_federation

pytestmark = pytest.mark.django_db

SECRET = "s3cret-shared-with-the-receiver"


class Receiver:
    """An HTTP server on 127.0.0.1 (a free port) that records every POST; the first ``fail`` answers are 500."""

    def __init__(self, fail: int = 0):
        self.received: list[tuple[dict, bytes]] = []
        self.fail = fail
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append((dict(self.headers), body))
                status = 500 if receiver.fail > 0 else 200
                receiver.fail -= 1
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok" if status == 200 else b"try again")

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
    assert first.delivered_at is not None and first.last_error == ""
    assert deliver_webhook.retry_backoff and deliver_webhook.max_retries == 8


def test_an_unreachable_endpoint_logs_the_error_and_is_not_marked_delivered():
    with Receiver() as receiver:
        url = receiver.url
    WebhookEndpoint.objects.create(url=url, secret=SECRET, events=["event.status_changed"])
    submitted_event()
    delivery = WebhookDelivery.objects.order_by("id").first()
    deliver_webhook.apply(args=[delivery.pk])
    delivery.refresh_from_db()
    assert delivery.delivered_at is None and delivery.attempts == 9 and delivery.last_error


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
    assert response.status_code == 302 and WebhookEndpoint.objects.get().events == ["event.rated"]
    assert officer.get("/admin/outbox/webhookdelivery/").status_code == 200
    arbiter = client_for(make_arbiter())
    assert arbiter.get("/admin/outbox/webhookendpoint/").status_code == 403
    assert arbiter.get("/admin/outbox/webhookdelivery/").status_code == 403
