"""Trust: the broker down during saves loses no task (issue 17's trust table).

    python bench/broker_outage.py [--saves 200] [--seed 7]

Real saves that queue Celery tasks through the outbox (``outbox.services.enqueue_after_commit``), taken in turn:
an official confirms a registration (``event_registration_approve``: the arbiter's e-mail and an
``event.status_changed`` webhook), refuses an event (``event_refuse``: the same two), requests the due list's
publication (``ratings.tasks.queue_publication``, as the admin's "Publish the due list now"). A webhook
endpoint on 127.0.0.1 (a thread of this process answering 200) receives the deliveries.

The broker is this run's own: with CELERY_BROKER_URL=redis://... a private ``redis-server`` on 127.0.0.1 and a
free port (its address replaces the one given; started like CI's, without persistence); on the embedded
default (no CELERY_BROKER_URL) the filesystem broker in a private FEDERATION_VAR_DIR. A real Celery worker of
this project (bench/broker_outage_worker.py: the project's app plus a record of each task it runs) consumes
from it. The saves go in five stretches:

1. the first 40 %: the broker refuses connections (no ``redis-server`` on its port yet / the broker's folder
   renamed away), no worker;
2. the broker starts, the worker starts; the next 20 % of saves with both up;
3. the broker goes down under the worker (``redis-server`` SIGKILLed / the folder renamed away): 20 %;
4. the broker starts again (a new ``redis-server``, empty, on the same port / the folder back): the rest.

Then beat's recovery tasks run as beat runs them, sent through the broker to the worker every 2 s instead of
every minute: the outbox dispatcher (with the worker's OUTBOX_RETRY_AFTER_SECONDS 0 instead of 30 it takes every
unsent row at once; with OUTBOX_LOST_AFTER_SECONDS 5 instead of 300 it sends again a task the broker lost 5 s
after its send, once later ones have started) and the publications' recovery (``ratings.recover_publications``,
PUBLICATION_RECOVERY_AFTER_SECONDS 5 instead of 120), until every task of a committed save has run or
``--wait`` seconds pass. Counted, per outbox row written by a save: did a worker run its task (the worker's
record holds the row's task id)? A publication row the recovery closed because its list is published counts
as done. Lost = rows of committed saves whose
task never ran; duplicates = further runs of a row's task (same id, or same unique arguments under another
id). Prints saves (the slowest, with the on-commit send the user waits for), tasks, lost (target 0),
duplicates; exits 1 when a task was lost, a save failed or took over 10 s.

DATABASE_URL: SQLite when unset (a fresh file under /tmp); a PostgreSQL URL names the server, and the run uses a
fresh database ``<name>_outage`` next to it (dropped and created).
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BEAT_EVERY_SECONDS = 2.0  # beat sends its tasks every minute; the benchmark does not wait that long
# Beat's tasks that bring queued work back (federation/settings.py CELERY_BEAT_SCHEDULE).
RECOVERY_TASKS = ("outbox.dispatch_pending_tasks", "ratings.recover_publications")
SLOW_SAVE_SECONDS = 10.0
IDLE_SECONDS = 30.0  # every row sent and no task run but beat's for this long: the rest were lost
STRETCHES = [  # (share of the saves made before it starts, what the saves meet, what happens to the broker)
    (0.0, "broker refusing, no worker", ""),
    (0.4, "broker and worker up", "start"),
    (0.6, "broker killed under the worker", "kill"),
    (0.8, "broker back (empty)", "restart"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ------------------------------------------------------------------------------------------------ the broker


class Broker:
    """The run's own broker, which the benchmark stops and starts."""

    url: str
    name: str

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.stop()


class RedisBroker(Broker):
    name = "a private redis-server (SIGKILLed, restarted empty)"

    def __init__(self, folder: Path):
        self.port = free_port()
        self.folder = folder
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            command, cwd=self.folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                    connection.sendall(b"PING\r\n")
                    if connection.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)  # a crash: what it held in memory is gone
            self.process.wait()
        self.process = None


class FolderBroker(Broker):
    name = "the filesystem broker's folder (renamed away and back)"

    def __init__(self, var_dir: Path):
        self.url = "filesystem://"
        self.folder = var_dir / "broker" / "in"
        self.away = var_dir / "broker" / "in.down"

    def start(self) -> None:
        if self.away.exists():
            self.away.rename(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def stop(self) -> None:
        if self.folder.exists():
            self.folder.rename(self.away)

    def close(self) -> None:
        self.start()


# ------------------------------------------------------------------------------------------------ the worker


class Worker:
    """A real Celery worker of this project (as tests/conftest.py's launch_worker starts one)."""

    def __init__(self, folder: Path, env: dict[str, str]):
        self.log = folder / "worker.log"
        self.tasks = folder / "tasks.jsonl"
        self.env = {**env, "BROKER_OUTAGE_TASK_LOG": str(self.tasks), "PYTHONUNBUFFERED": "1"}
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "celery", "-A", "bench.broker_outage_worker", "worker", "--pool", "solo"]
        command += ["--loglevel", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"]
        command += ["-n", f"outage-{os.getpid()}@%h"]
        with open(self.log, "ab") as handle:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 120
        while "ready." not in self.output():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SystemExit("the Celery worker did not start:\n" + self.output()[-3000:])
            time.sleep(0.2)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def executions(self) -> list[dict]:
        if not self.tasks.exists():
            return []
        return [json.loads(line) for line in self.tasks.read_text().splitlines() if line.strip()]

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# ------------------------------------------------------------------------------------- the webhook receiver


class Receiver(http.server.BaseHTTPRequestHandler):
    received: Counter[int] = Counter()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Receiver.received[json.loads(body)["data"]["event"]] += 1
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format, *args) -> None:
        pass


def start_receiver() -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/hook"


# --------------------------------------------------------------------------------------------- the saves


@dataclass
class Figures:
    saves: int = 0
    committed: int = 0
    failed: int = 0
    rows: int = 0  # outbox rows written by committed saves: tasks that must run
    ran: int = 0
    closed: int = 0  # never run, closed by the publications' recovery because the list they ask for is published
    lost: int = 0
    duplicates: int = 0
    task_errors: int = 0  # tasks that ended in an exception
    sent_on_commit: int = 0
    sent_again: int = 0  # of those: sent again by the dispatcher (the broker lost them) or the recovery
    sent_by_dispatcher: int = 0
    webhooks_received: int = 0
    seconds_to_drain: float = 0.0
    slowest_save: float = 0.0
    slow_saves: int = 0  # over SLOW_SAVE_SECONDS
    by_stretch: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        if len(self.failures) < 12:
            self.failures.append(what)


def build(saves: int, hook_url: str):
    """The federation the saves act on: a simulated one (players, a starting list, submitted events), an
    official, one registered event per approval or refusal, a webhook endpoint."""
    import datetime

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.utils import timezone

    from events.models import Event, EventStatus
    from outbox.models import WebhookEndpoint
    from ratings.services import rating_list_next_date

    call_command("simulate_federation", "--players", "60", "--months", "4", "--seed", "7", verbosity=0)
    users = get_user_model().objects
    official = users.create_superuser("outage-official", "official@example.org", "x")
    arbiter = users.create_user("outage-arbiter", "arbiter@example.org", "x", is_staff=True)
    start = timezone.localdate() + datetime.timedelta(days=60)
    registered = Event.objects.bulk_create(
        Event(
            name=f"Outage Open {number}",
            start_date=start,
            end_date=start + datetime.timedelta(days=2),
            rating_type="standard",
            rounds=5,
            status=EventStatus.REGISTERED,
            chief_arbiter=arbiter,
        )
        for number in range(saves)
    )
    WebhookEndpoint.objects.create(url=hook_url, secret="bench", events=["event.status_changed"])
    # The list "Publish the due list now" asks for (due: the admin queues nothing otherwise), fixed before the
    # worker publishes it; asked for later, the admin would name the next list, not due yet.
    list_date = rating_list_next_date("standard", timezone.localdate())
    if list_date > timezone.localdate():
        raise SystemExit(f"the simulated federation has no list due: {list_date}")
    return official, registered, list_date


def save(number: int, official, event, list_date) -> None:
    """Save number ``number``: one of the three real kinds, each one transaction of a service."""
    from django.db import transaction

    from events.services import event_refuse, event_registration_approve
    from ratings import tasks

    kind = number % 3
    if kind == 0:
        event_registration_approve(event, user=official)
    elif kind == 1:
        event_refuse(event, user=official, reason=f"bench refusal {number}")
    else:
        # The admin's "Publish the due list now", asked again and again (a list due and not yet published, then
        # published: the same request must find it published, not a failure).
        with transaction.atomic():
            tasks.queue_publication("standard", list_date, official)


def make_saves(figures: Figures, official, events, list_date, broker: Broker, worker: Worker) -> dict[int, str]:
    """The saves, the broker stopped and started between them; returns the outbox rows they wrote (row id ->
    the stretch its save was made in)."""
    from django.db.models.signals import post_save

    from outbox.models import PendingTask

    written: list[int] = []

    def created(sender, instance, created, **kwargs):
        if created:
            written.append(instance.pk)

    post_save.connect(created, sender=PendingTask, weak=False)
    tracked: dict[int, str] = {}
    stretch = STRETCHES[0][1]
    broker.stop()
    for number in range(figures.saves):
        for share, name, action in STRETCHES:
            if number == int(share * figures.saves) and action:
                if action == "kill":
                    broker.stop()
                else:
                    broker.start()
                if action == "start":
                    worker.start()
                stretch = name
        written.clear()
        began = time.monotonic()
        try:
            save(number, official, events[number], list_date)  # the on-commit send included: the user waits for it
        except Exception as exc:  # what the row looks for: a save that fails because the broker is down
            figures.failed += 1
            figures.fail(f"save {number} ({stretch}): {type(exc).__name__}: {str(exc)[:200]}")
            traceback.print_exc()
            continue
        finally:
            took = time.monotonic() - began
            figures.slowest_save = max(figures.slowest_save, took)
            if took > SLOW_SAVE_SECONDS:
                figures.slow_saves += 1
                figures.fail(f"save {number} ({stretch}) took {took:.1f} s")
        figures.committed += 1
        tracked.update(dict.fromkeys(written, stretch))
    post_save.disconnect(created, sender=PendingTask)
    return tracked


def drain(tracked: dict[int, str], worker: Worker, wait: float) -> dict:
    """Beat's tasks that bring queued work back (the outbox dispatcher, the publications' recovery) sent
    through the broker to the worker until every tracked row's task has run or been closed, or the worker has
    had nothing else to do for IDLE_SECONDS with every row sent, or ``wait`` seconds pass. Returns the rows."""
    from celery import current_app

    from outbox.models import PendingTask

    began = last_change = time.monotonic()
    seen = 0
    while True:
        for task in RECOVERY_TASKS:
            current_app.send_task(task)
        time.sleep(BEAT_EVERY_SECONDS)
        rows = {row.pk: row for row in PendingTask.objects.filter(pk__in=tracked)}
        executions = worker.executions()
        ended = {run["id"] for run in executions if run["state"] != "RETRY"}
        if all(row.task_id in ended or row.finished_at for row in rows.values()) or time.monotonic() - began > wait:
            break
        work = sum(1 for run in executions if run["name"] not in RECOVERY_TASKS)
        if work != seen:
            seen, last_change = work, time.monotonic()
        elif all(row.sent_at for row in rows.values()) and time.monotonic() - last_change > IDLE_SECONDS:
            break  # everything sent, the worker idle but for beat's tasks: what has not run will not
    time.sleep(BEAT_EVERY_SECONDS)  # let a duplicate still on its way show up
    return rows


def count(figures: Figures, tracked: dict[int, str], rows: dict, executions: list[dict]) -> None:
    """Per tracked row: ran (its task id in the worker's record), closed by the recovery, or lost."""
    runs_of = Counter(run["id"] for run in executions)
    signatures = Counter((run["name"], json.dumps(run["args"])) for run in executions)
    for pk, stretch in tracked.items():
        row = rows.get(pk)
        if row is None:
            figures.lost += 1
            figures.fail(f"outbox row {pk} ({stretch}) is gone although its save committed")
            continue
        runs = runs_of.get(row.task_id, 0) if row.task_id else 0
        if runs == 0 and row.finished_at:  # the recovery closed it: its list is published (its work is done)
            figures.closed += 1
        elif runs == 0:
            figures.lost += 1
            figures.by_stretch[stretch] += 1
            state = f"sent as {row.task_id}, never run" if row.sent_at else f"never sent: {row.last_error[:120]}"
            figures.fail(f"outbox row {pk} {row.name}{tuple(row.args)} ({stretch}): {state}")
        else:
            figures.ran += 1
            figures.duplicates += runs - 1
            if row.name != "ratings.publish_rating_list":  # its arguments repeat by design; the others don't
                figures.duplicates += signatures[(row.name, json.dumps(row.args))] - runs
    tracked_ids = {rows[pk].task_id for pk in tracked if pk in rows}
    for run in executions:
        if run["id"] in tracked_ids and run["state"] != "SUCCESS":
            figures.task_errors += 1
            figures.fail(f"task {run['name']}[{run['id']}] ended {run['state']}")


def run(saves: int, wait: float, broker: Broker, worker: Worker) -> Figures:
    from outbox.models import PendingTask

    server, hook_url = start_receiver()
    official, events, list_date = build(saves, hook_url)
    figures = Figures(saves=saves)
    tracked = make_saves(figures, official, events, list_date, broker, worker)
    figures.rows = len(tracked)
    first_sends = dict(PendingTask.objects.filter(pk__in=tracked, sent_at__isnull=False).values_list("pk", "task_id"))
    figures.sent_on_commit = len(first_sends)
    began = time.monotonic()
    rows = drain(tracked, worker, wait)
    figures.sent_again = sum(1 for pk, task_id in first_sends.items() if pk in rows and rows[pk].task_id != task_id)
    figures.seconds_to_drain = time.monotonic() - began
    figures.sent_by_dispatcher = sum(1 for row in rows.values() if row.sent_at) - figures.sent_on_commit
    figures.webhooks_received = sum(Receiver.received[event.pk] for event in events)
    server.shutdown()
    count(figures, tracked, rows, [run for run in worker.executions() if run["state"] != "RETRY"])
    return figures


def report(figures: Figures, broker: Broker) -> None:
    print(f"broker: {broker.name}")
    print(f"{'saves made':44} {figures.saves:>6}")
    print(f"{'  committed':44} {figures.committed:>6}")
    print(f"{'  failed':44} {figures.failed:>6}  target 0  {'ok' if not figures.failed else 'MISSED'}")
    print(f"{'  slowest save (seconds)':44} {figures.slowest_save:>6.1f}")
    print(f"{'  saves over 10 s':44} {figures.slow_saves:>6}  target 0")
    print(f"{'tasks queued by the committed saves':44} {figures.rows:>6}")
    print(f"{'  sent when their save committed':44} {figures.sent_on_commit:>6}")
    print(f"{'    of them sent again (lost by the broker)':44} {figures.sent_again:>6}")
    print(f"{'  sent by the dispatcher':44} {figures.sent_by_dispatcher:>6}")
    print(f"{'  run by the worker':44} {figures.ran:>6}  target {figures.rows - figures.closed}")
    print(f"{'  closed by the recovery (list published)':44} {figures.closed:>6}")
    print(f"{'  ended in an exception':44} {figures.task_errors:>6}  target 0")
    print(f"{'tasks lost':44} {figures.lost:>6}  target 0  {'ok' if not figures.lost else 'MISSED'}")
    for stretch, count in figures.by_stretch.items():
        print(f"    {count} of saves made while: {stretch}")
    print(f"{'duplicates (a task run again)':44} {figures.duplicates:>6}")
    print(f"{'webhook deliveries received for them':44} {figures.webhooks_received:>6}")
    print(f"{'seconds from the dispatcher to the last task':44} {figures.seconds_to_drain:>6.1f}")
    for failure in figures.failures:
        print(f"  {failure}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--wait", type=float, default=300.0, help="seconds the dispatcher is given to drain")
    args = parser.parse_args()
    if args.saves < 5:
        raise SystemExit("--saves must be at least 5 (one per stretch)")

    folder = Path(tempfile.mkdtemp(prefix="broker-outage-"))
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        from bench.publish import admin_execute, database_name, with_database

        url = with_database(url, f"{database_name(url)}_outage")
        admin_execute(url, f'DROP DATABASE IF EXISTS "{database_name(url)}" WITH (FORCE)')
    elif url:
        raise SystemExit("bench/broker_outage.py: DATABASE_URL must be PostgreSQL, or unset for SQLite")
    else:
        url = f"sqlite:///{folder / 'bench.sqlite3'}"
    given = os.environ.get("CELERY_BROKER_URL", "")
    broker: Broker
    if given.startswith("redis://"):
        broker = RedisBroker(folder)
    elif not given or given.startswith("filesystem://"):
        broker = FolderBroker(folder / "var")
    else:
        raise SystemExit(f"bench/broker_outage.py: a Redis or the filesystem broker, not {given.split(':')[0]}")
    env = {
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": broker.url,
        "FEDERATION_VAR_DIR": str(folder / "var"),
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key-not-for-production"),
        "DJANGO_SETTINGS_MODULE": "federation.settings",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "REQUEST_LOG": "0",
        # After a failed send a process leaves new rows to the dispatcher for this long (30 s by default): 1 s
        # here, so that the saves made once the broker is back are sent when they commit, as in production
        # a few seconds after an outage.
        "OUTBOX_RETRY_AFTER_SECONDS": "1",
    }
    os.environ.update(env)
    for name in ("CELERY_RESULT_BACKEND", "CACHE_URL", "CELERY_TASK_ALWAYS_EAGER", "CELERY_TASK_DEFAULT_QUEUE"):
        os.environ.pop(name, None)
    # The worker: its dispatcher takes every unsent row (not only those 30 s old) and takes a task for lost 5 s
    # after its send (300 s in production); its recovery re-sends a publication sent 5 s ago and never
    # finished (120 s in production).
    compressed = {"OUTBOX_RETRY_AFTER_SECONDS": "0", "OUTBOX_LOST_AFTER_SECONDS": "5"}
    worker = Worker(folder, {**os.environ, **compressed, "PUBLICATION_RECOVERY_AFTER_SECONDS": "5"})
    try:
        broker.start()  # settings create the filesystem broker's folders; Redis must answer the cache's setup
        from bench.bench_database import prepare_database

        prepare_database("broker-outage-")
        figures = run(args.saves, args.wait, broker, worker)
    finally:
        worker.stop()
        broker.close()
    report(figures, broker)
    if url.startswith(("postgres://", "postgresql://")):
        from django.db import connections

        from bench.publish import admin_execute, database_name

        connections.close_all()
        admin_execute(url, f'DROP DATABASE IF EXISTS "{database_name(url)}" WITH (FORCE)')
    missed = figures.lost or figures.failed or figures.task_errors or figures.slow_saves
    if missed:
        print(f"  the worker's log and its record of tasks are kept in {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
