"""The broker down when an arbiter saves results: the save succeeds, the task waits in the outbox where
officials see it, and once the broker is back the dispatcher sends it and a real worker runs it."""

import contextlib
import datetime
import re
import time
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import transaction
from django.utils import timezone

from events.models import EventStatus, Result
from federation.celery import app
from outbox import services as outbox_services
from outbox.models import PendingTask
from outbox.services import enqueue_after_commit, pending_tasks_dispatch, pending_tasks_lost
from tests.factories import make_event, make_game, make_participants, make_player

CLOSED_PORT_BROKER = "redis://127.0.0.1:1/0"  # nothing listens on port 1: connection refused at once


@contextlib.contextmanager
def broker_down():
    """This process's Celery app sending to a broker that refuses connections. (broker_write_url, because
    Celery reads broker_url from the CELERY_BROKER_URL environment variable before its configuration.)"""
    saved = app.conf.broker_write_url
    app.conf.broker_write_url = CLOSED_PORT_BROKER
    try:
        yield
    finally:
        app.conf.broker_write_url = saved


@pytest.fixture(autouse=True)
def broker_trusted_again(monkeypatch):
    """Each test starts as a fresh web process would: no recent broker failure remembered."""
    monkeypatch.setattr(outbox_services, "_pause_until", 0.0)


def submitted_game():
    players = [make_player(), make_player()]
    event = make_event(status=EventStatus.SUBMITTED, submitted_at=timezone.now())
    white, black = make_participants(event, players)
    return make_game(event, 1, white, black, Result.PENDING)


def save_result(game, result, *task_args, queue=""):
    """What an arbiter's save does: change the result and queue the follow-up work, in one transaction."""
    with transaction.atomic():
        game.result = result
        game.save(update_fields=["result"])
        return enqueue_after_commit("federation.ping", *task_args, queue=queue)


def test_result_save_succeeds_and_the_task_stays_pending_when_the_broker_is_down(
    db, django_capture_on_commit_callbacks, caplog
):
    game = submitted_game()
    started = time.monotonic()
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        row = save_result(game, Result.WHITE_WIN, 41)
    # The request is not held up by reconnection attempts (kombu would retry for minutes); the outbox gives up
    # after 1 s. The bound leaves room for a loaded CI machine (3 s was exceeded under load: 3.6 s).
    assert time.monotonic() - started < 15
    game.refresh_from_db()
    assert game.result == Result.WHITE_WIN
    row.refresh_from_db()
    assert row.is_pending
    assert row.attempts == 1
    assert row.last_attempt_at is not None
    assert "Error" in row.last_error or "refused" in row.last_error.lower()
    assert f"task federation.ping (row {row.pk}) not sent, it stays pending" in caplog.text


def test_a_result_store_down_with_the_broker_does_not_hold_the_save_either(
    db, django_capture_on_commit_callbacks, monkeypatch
):
    """Redis down is the broker and the result store down together (the result backend defaults to the broker's
    Redis). Celery subscribes the sender to a task's result before sending it and, the store unreachable,
    retries that 20 times a second apart: a save then waited 19 s (bench/broker_outage.py measured it). The
    outbox sends with ignore_result (its tasks report in the database), so the save waits for the broker's
    connect timeout only."""
    from celery.backends.redis import RedisBackend

    unreachable_store = RedisBackend(app=app, url=CLOSED_PORT_BROKER)
    monkeypatch.setattr(type(app), "backend", property(lambda self: unreachable_store))
    game = submitted_game()
    started = time.monotonic()
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        row = save_result(game, Result.WHITE_WIN, 5)
    assert time.monotonic() - started < 8  # 1 s connect timeout; 19 s before; room for a loaded machine
    row.refresh_from_db()
    assert row.is_pending
    assert row.attempts == 1


def test_after_a_failed_send_further_saves_do_not_wait_for_the_broker(db, django_capture_on_commit_callbacks):
    game = submitted_game()
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        first = save_result(game, Result.WHITE_WIN, 1)
    started = time.monotonic()
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        second = save_result(game, Result.DRAW, 2)
    assert time.monotonic() - started < 0.5
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.is_pending
    assert first.attempts == 1
    assert second.is_pending
    assert second.attempts == 0  # left to the dispatcher


def test_rolled_back_save_queues_nothing(db, django_capture_on_commit_callbacks):
    game = submitted_game()
    # PT012: the failure comes after the enqueue it must roll back
    with (  # noqa: PT012
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        enqueue_after_commit("federation.ping", 1)
        raise RuntimeError("the save failed")
    assert callbacks == []
    assert not PendingTask.objects.exists()
    game.refresh_from_db()
    assert game.result == Result.PENDING


def test_task_arguments_must_be_json_values(db):
    with pytest.raises(TypeError, match="arguments must be JSON values"):
        enqueue_after_commit("federation.ping", datetime.date(2026, 1, 1))


def test_officials_see_pending_tasks_in_the_admin(client, db, django_capture_on_commit_callbacks):
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        save_result(submitted_game(), Result.DRAW, 7)
    official = get_user_model().objects.create_superuser("root", "root@example.org", "pw")
    client.force_login(official)
    page = client.get("/admin/outbox/pendingtask/", {"state": "pending"}).content.decode()
    assert "federation.ping" in page
    assert "waiting to be sent" in page  # the state in words (outbox.labels)
    assert '<span class="nowrap">7</span>' in page  # the arguments, each on one line
    arbiter = get_user_model().objects.create_user("arbiter", "a@example.org", "pw", is_staff=True)
    client.force_login(arbiter)
    assert client.get("/admin/outbox/pendingtask/").status_code == 403


def test_dispatcher_leaves_fresh_rows_to_their_own_commit_and_reports_a_broker_still_down(
    db, django_capture_on_commit_callbacks
):
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        row = save_result(submitted_game(), Result.DRAW, 1)
    with broker_down():
        fresh = pending_tasks_dispatch()  # default: only rows older than OUTBOX_RETRY_AFTER_SECONDS
        assert (fresh.sent, fresh.failed, fresh.pending) == (0, 0, 1)
        with pytest.raises(CommandError, match=r"broker unreachable after sending 0: .*1 task\(s\) still pending"):
            call_command("dispatch_pending_tasks", "--min-age", "0")
    row.refresh_from_db()
    assert row.is_pending
    assert row.attempts == 2


def test_periodic_dispatch_task_is_scheduled_and_registered(settings):
    import outbox.tasks  # noqa: F401 (registers the task, as the worker's autodiscovery does)

    [entry] = [e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "outbox.dispatch_pending_tasks"]
    assert entry["schedule"] <= 300
    assert "outbox.dispatch_pending_tasks" in app.tasks


def wait_until_sent(row: PendingTask, timeout: float = 60) -> PendingTask:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row.refresh_from_db()
        if row.sent_at:
            return row
        time.sleep(0.2)
    raise AssertionError(f"outbox row {row.pk} still pending after {timeout}s: {row.last_error}")


def ran(worker, task_id: str, timeout: float = 60) -> str:
    """What the worker logged task ``task_id`` returned (outbox tasks store no result: see the outbox's send)."""
    pattern = re.compile(rf"Task federation\.ping\[{re.escape(task_id)}\] succeeded in [0-9.e-]+s: (.*)")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = pattern.search(worker.output())
        if found:
            return found.group(1).strip()
        time.sleep(0.2)
    raise AssertionError(f"task {task_id} not run within {timeout}s:\n{worker.output()[-2000:]}")


def sent_row(queue: str, minutes_ago: float, *, received: bool, **fields) -> PendingTask:
    sent = timezone.now() - datetime.timedelta(minutes=minutes_ago)
    row = PendingTask.objects.create(
        name="federation.ping",
        args=[1],
        queue=queue,
        sent_at=sent,
        task_id=f"sent-{minutes_ago}",
        attempts=1,
        received_at=sent + datetime.timedelta(seconds=1) if received else None,
        **fields,
    )
    PendingTask.objects.filter(pk=row.pk).update(created_at=sent)  # auto_now_add: created when it was sent
    row.refresh_from_db()
    return row


def test_a_task_the_broker_lost_is_sent_again_once_later_ones_on_its_queue_have_started(db, settings):
    """Redis restarted without its data loses what it held: the outbox marked those rows sent and nothing
    re-sent them (bench/broker_outage.py measured 7 of 50 tasks lost). A row sent long enough ago, never
    started, while a later send on its queue has started, is lost: the dispatcher sends it again."""
    settings.OUTBOX_LOST_AFTER_SECONDS = 300
    queue = f"test-lost-{uuid.uuid4().hex[:8]}"  # no worker takes it: the sends stay in the broker
    lost = sent_row(queue, 10, received=False)
    sent_row(queue, 11, received=False, finished_at=timezone.now())  # a publication the recovery closed
    recent = sent_row(queue, 2, received=False)  # under 300 s: may still be on its way
    other_queue = sent_row(queue + "-other", 1, received=True)
    # Nothing later on its queue has started: its workers are stopped or busy, the task is waiting its turn.
    assert list(pending_tasks_lost()) == []
    assert pending_tasks_dispatch().sent == 0

    sent_row(queue, 5, received=True)  # a later send on the same queue has started: the earlier one is gone
    assert list(pending_tasks_lost()) == [lost]
    report = pending_tasks_dispatch()
    assert (report.sent, report.failed, report.pending) == (1, 0, 0)
    lost.refresh_from_db()
    assert lost.task_id != "sent-10"
    assert lost.received_at is None
    assert lost.attempts == 2
    assert timezone.now() - lost.sent_at < datetime.timedelta(minutes=1)
    recent.refresh_from_db()
    other_queue.refresh_from_db()
    assert recent.task_id == "sent-2"
    assert other_queue.task_id == "sent-1"
    assert list(pending_tasks_lost()) == []  # sent again just now: not lost again before 300 s


def test_a_task_started_marks_its_outbox_row_received_by_the_header_the_outbox_sends(db):
    from outbox.services import OUTBOX_ROW_HEADER
    from outbox.tasks import task_started

    row = sent_row("test", 1, received=False)

    class Task:
        request = type("Request", (), {OUTBOX_ROW_HEADER: row.pk})()

    task_started(task=Task())
    task_started(task=type("Beat", (), {"request": object()})())  # a task the outbox did not send: nothing
    row.refresh_from_db()
    assert row.received_at is not None


@pytest.mark.worker
def test_once_the_broker_is_back_the_dispatcher_sends_and_a_real_worker_runs_the_task(celery_worker_process):
    worker = celery_worker_process
    game = submitted_game()
    with broker_down():
        row = save_result(game, Result.WHITE_WIN, 41, queue=worker.queue)
    row.refresh_from_db()
    assert row.is_pending, "the on-commit send should have failed against the closed port"

    # The broker is back: the management command sends it, the worker runs it.
    call_command("dispatch_pending_tasks", "--min-age", "0")
    row.refresh_from_db()
    assert not row.is_pending
    assert row.task_id
    assert ran(worker, row.task_id) == "42"
    row.refresh_from_db()
    assert row.received_at is not None  # the worker stamped it: no longer the broker's to lose

    # The periodic task does the same inside a worker, for rows older than OUTBOX_RETRY_AFTER_SECONDS.
    with broker_down():
        later = save_result(game, Result.DRAW, 99, queue=worker.queue)
    PendingTask.objects.filter(pk=later.pk).update(created_at=timezone.now() - datetime.timedelta(minutes=5))
    app.send_task("outbox.dispatch_pending_tasks", queue=worker.queue)
    later = wait_until_sent(later)
    assert ran(worker, later.task_id) == "100"
    assert PendingTask.objects.filter(sent_at__isnull=True).count() == 0


# ------------------------------------------------------------------------------------------ the trust command


def test_the_trust_commands_broker_row_loses_no_task_at_a_small_size():
    """bench/trust.py's "broker down during saves" row (bench/broker_outage.py) at a small size, so that it cannot
    rot: real saves while the broker refuses connections and while it goes down under a real worker (the
    filesystem broker's folder renamed away on the embedded default; a private redis-server SIGKILLed with
    CELERY_BROKER_URL=redis://...), then beat's recovery tasks. It runs its own database and worker."""
    from bench.trust import CHECKS, parse_args, run_checks

    options = parse_args(["--broker-saves", "10"])
    (row,) = run_checks(options, [check for check in CHECKS if check.name == "broker down during saves"])
    assert row.inputs == 10, row.examples
    assert (row.unhandled, row.slow) == (0, 0), row.examples  # no save failed or waited 10 s for the broker
    assert row.accepted == 10, row.examples
    assert row.slowest < 10, row.examples
    assert any(line.startswith("run by the worker") for line in row.examples), row.examples
    assert row.partial == 0, row.examples  # tasks lost
