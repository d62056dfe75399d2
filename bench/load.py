"""Benchmark: real traffic against gunicorn, first idle, then while a FIDE-scale list is being published.

Run from the repository root, after bench/publish.py has built its database (same DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/bench_publish):

    python bench/load.py                          # 16 clients, 30 s idle, then during the publication
    python bench/load.py --clients 32 --seconds 60 --workers 5

Each run:

1. copies the built database (CREATE DATABASE ... TEMPLATE, not timed) so the publication never changes it;
2. collects the static files and starts gunicorn as production does (gunicorn.conf.py, ``--workers`` sync
   workers, whitenoise serving /static/) on a free port of 127.0.0.1, DEBUG off;
3. drives a mix of real requests — profiles, list pages at random, name search, API detail, API list entries,
   a stylesheet — from ``--clients`` concurrent clients (threads, a new connection per request as gunicorn's
   sync workers close them) for ``--seconds``: the idle figures;
4. starts the pending list's publication (bench/publish.py's child, the real service) and drives the same mix
   until it ends, while a sampler asks PostgreSQL every 50 ms how many sessions are waiting on a lock;
5. prints, per phase, requests, throughput, p50 / p95 / p99, errors and lock waits, then the targets:
   no errors, no request waiting on the publication's locks, p95 during the publication within 2x of idle.

``--players N --games M`` builds a small federation first when the database holds none (CI runs it so).
``--idle-only`` stops after the idle figures: for a database with no pending list to publish, such as
bench/history.py's (``DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_history python bench/load.py
--idle-only``), and to compare settings of the web processes (``DATABASE_CONN_MAX_AGE=0``: a connection per
request, docs/operations.md §1.4).
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.publish import (  # noqa: E402
    DEFAULT_URL,
    admin_execute,
    database_name,
    read_marker,
    with_database,
)
from bench.web import percentile  # noqa: E402

TARGET_P95_RATIO = 2.0
LOCK_SAMPLE_SECONDS = 0.05


@dataclass
class Phase:
    name: str
    times_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    lock_samples: int = 0
    lock_waits: int = 0

    def row(self) -> str:
        n = len(self.times_ms)
        if not n:
            return f"{self.name:24} no requests"
        return (
            f"{self.name:24} {n:>8,} {n / self.seconds:>9.1f} {percentile(self.times_ms, 0.50):>8.1f} "
            f"{percentile(self.times_ms, 0.95):>8.1f} {percentile(self.times_ms, 0.99):>8.1f} "
            f"{len(self.errors):>7,} {self.lock_waits:>6,}/{self.lock_samples:,}"
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def copy_database(url: str, suffix: str) -> str:
    run_url = with_database(url, f"{database_name(url)}_{suffix}")
    admin_execute(url, f'DROP DATABASE IF EXISTS "{database_name(run_url)}"')
    for attempt in range(10):  # the template must have no other session (autovacuum)
        try:
            admin_execute(
                url,
                f'CREATE DATABASE "{database_name(run_url)}" TEMPLATE "{database_name(url)}" STRATEGY FILE_COPY',
            )
            return run_url
        except Exception as exc:  # psycopg.errors.ObjectInUse
            if attempt == 9:
                raise SystemExit(f"cannot copy {database_name(url)}: {exc}") from None
            time.sleep(3)
    raise AssertionError("unreachable")


def web_environment(run_url: str, static_root: str) -> dict[str, str]:
    return dict(
        os.environ,
        DATABASE_URL=run_url,
        DJANGO_SETTINGS_MODULE="federation.settings",
        DEBUG="0",
        SECRET_KEY=os.environ.get("SECRET_KEY", "bench-only-secret-key-not-for-production"),
        ALLOWED_HOSTS="127.0.0.1,testserver",
        # A benchmark's clients all come from one address: the public throttle would answer most with 429.
        API_ANON_THROTTLE="100000000/minute",
        REQUEST_LOG="0",
        STATIC_ROOT=static_root,
        SECURE_SSL_REDIRECT="0",
        CELERY_TASK_ALWAYS_EAGER="1",
    )


def start_gunicorn(env: dict[str, str], port: int, workers: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "federation.wsgi",
            "--config",
            str(ROOT / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn stopped:\n{process.stderr.read()[-3000:] if process.stderr else ''}")
        try:
            status, _ = fetch(port, "/health/?format=json")
            if status == 200:
                return process
        except OSError:
            pass
        time.sleep(0.3)
    process.kill()
    raise SystemExit("gunicorn did not answer /health/ within 60 s")


def fetch(port: int, path: str) -> tuple[int, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers={"Host": "127.0.0.1", "Accept-Encoding": "gzip"})
        response = connection.getresponse()
        body = response.read()
        return response.status, len(body)
    finally:
        connection.close()


def request_mix(run_url: str, seed: int) -> list[str]:
    """The paths the clients ask for, drawn once from the database (bench/web.py's sample)."""
    os.environ["DATABASE_URL"] = run_url
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "federation.settings")
    import django

    django.setup()
    from django.contrib.staticfiles import finders
    from django.db import connection

    from bench.web import sample

    rating_list, players, prefixes, pages, rng = sample(400, seed)
    connection.close()
    day, kind = rating_list.list_date.isoformat(), rating_list.rating_type
    stylesheet = "admin/css/base.css" if finders.find("admin/css/base.css") else None
    paths = []
    for i in range(2000):
        player = players[i % len(players)]
        paths += [
            f"/players/{player}/",
            f"/players/{player}/chart.svg",  # the profile embeds its chart: a browser asks for both
            f"/lists/{day}/{kind}/?page={rng.randint(1, pages)}",
            f"/players/?q={quote(rng.choice(prefixes))}",
            f"/api/v1/players/{player}/",
            f"/api/v1/rating-lists/{day}/{kind}/entries/?page={rng.randint(1, max(pages // 2, 1))}",
        ]
        if stylesheet and i % 5 == 0:
            paths.append(f"/static/{stylesheet}")
    random.Random(seed).shuffle(paths)
    return paths


def drive(port: int, paths: list[str], clients: int, phase: Phase, until) -> None:
    """``clients`` threads ask for ``paths`` in turn until ``until()`` is true."""
    cursor = iter(range(10**12))
    lock = threading.Lock()

    def client() -> None:
        while not until():
            with lock:
                path = paths[next(cursor) % len(paths)]
            began = time.perf_counter()
            try:
                status, _ = fetch(port, path)
            except Exception as exc:  # a refused or cut connection, a malformed answer: an error, not a crash
                status, error = 0, f"{path}: {type(exc).__name__}"
            else:
                error = "" if status == 200 else f"{path}: HTTP {status}"
            elapsed = (time.perf_counter() - began) * 1000
            with lock:
                phase.times_ms.append(elapsed)
                if error:
                    phase.errors.append(error)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    phase.seconds = time.perf_counter() - began


def sample_locks(run_url: str, phase: Phase, stop: threading.Event) -> None:
    """Count the sessions waiting on a lock (pg_stat_activity.wait_event_type = 'Lock'), every 50 ms."""
    import psycopg

    with psycopg.connect(run_url, autocommit=True) as connection:
        while not stop.is_set():
            (waiting,) = connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            ).fetchone()
            phase.lock_samples += 1
            phase.lock_waits += int(waiting > 0)
            stop.wait(LOCK_SAMPLE_SECONDS)


def run_phase(name: str, port: int, paths: list[str], clients: int, run_url: str, until) -> Phase:
    phase = Phase(name)
    stop = threading.Event()
    sampler = threading.Thread(target=sample_locks, args=(run_url, phase, stop), daemon=True)
    sampler.start()
    try:
        drive(port, paths, clients, phase, until)
    finally:
        stop.set()
        sampler.join()
    return phase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the idle phase (default 30)")
    parser.add_argument("--workers", type=int, default=None, help="gunicorn workers (default: gunicorn.conf.py)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--players", type=int, help="build a federation of this size when none is built")
    parser.add_argument("--games", type=int, help="rated games of the built federation's last list")
    parser.add_argument("--idle-only", action="store_true", help="the idle figures only: no publication")
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    marker = read_marker(url)
    if marker is None:
        if not args.players:
            raise SystemExit(f"no benchmark federation in {url}: run bench/publish.py first (or pass --players)")
        subprocess.run(
            [sys.executable, str(ROOT / "bench" / "publish.py"), "--build-only", "--players", str(args.players)]
            + (["--games", str(args.games)] if args.games else []),
            env=dict(os.environ, DATABASE_URL=url),
            check=True,
        )
        marker = read_marker(url)
    workers = args.workers or 2 * (os.cpu_count() or 1) + 1
    run_url = copy_database(url, "load")
    gunicorn = None
    try:
        with tempfile.TemporaryDirectory(prefix="bench-static-") as static_root:
            env = web_environment(run_url, static_root)
            subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--no-input", "-v", "0"], env=env, cwd=ROOT, check=True
            )
            port = free_port()
            gunicorn = start_gunicorn(env, port, workers)
            paths = request_mix(run_url, args.seed)
            of_list = "" if args.idle_only else f"list {marker['list_date']} of "  # --idle-only publishes none
            print(
                f"gunicorn: {workers} sync workers on 127.0.0.1:{port}; {args.clients} clients; "
                f"{of_list}{marker['players']:,} players"
            )
            deadline = time.monotonic() + args.seconds
            idle = run_phase("idle", port, paths, args.clients, run_url, lambda: time.monotonic() > deadline)
            if args.idle_only:
                report_idle(idle)
                return
            publication = subprocess.Popen(
                [sys.executable, str(ROOT / "bench" / "publish.py"), "--child-publish", _iso(marker["list_date"])],
                env=dict(env, CELERY_TASK_ALWAYS_EAGER="1"),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            during = run_phase(
                "during the publication", port, paths, args.clients, run_url, lambda: publication.poll() is not None
            )
            out, err = publication.communicate()
            if publication.returncode != 0:
                raise SystemExit(f"the publication failed:\n{err[-3000:]}")
            published = json.loads(out.strip().splitlines()[-1])
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            try:
                gunicorn.wait(timeout=30)
            except subprocess.TimeoutExpired:
                gunicorn.kill()
        admin_execute(url, f'DROP DATABASE IF EXISTS "{database_name(run_url)}"')
    report(idle, during, published)


def _iso(day: datetime.date | str) -> str:
    return day.isoformat() if isinstance(day, datetime.date) else str(day)


def print_phases(*phases: Phase) -> None:
    columns = ("requests", 8), ("req/s", 9), ("p50 ms", 8), ("p95 ms", 8), ("p99 ms", 8), ("errors", 7)
    print(f"{'phase':24} " + " ".join(f"{name:>{width}}" for name, width in columns) + "  lock waits")
    for phase in phases:
        print(phase.row())
    for phase in phases:
        for error in sorted(set(phase.errors))[:10]:
            print(f"  {phase.name}: {error}")


def report_idle(idle: Phase) -> None:
    """--idle-only: the idle phase and its errors (target 0)."""
    print_phases(idle)
    print()
    print(f"{'errors':48} {len(idle.errors):>12,}  0  {'ok' if not idle.errors else 'MISSED'}")


def report(idle: Phase, during: Phase, published: dict) -> None:
    print(f"publication: {published['seconds']:.1f} s, created: {published['created']}")
    print()
    print_phases(idle, during)
    ratio = percentile(during.times_ms, 0.95) / percentile(idle.times_ms, 0.95) if idle.times_ms else float("nan")
    errors = len(idle.errors) + len(during.errors)
    print()
    print(f"{'target':48} {'value':>12}")
    print(f"{'errors (both phases)':48} {errors:>12,}  0  {'ok' if errors == 0 else 'MISSED'}")
    print(
        f"{'samples with a session waiting on a lock':48} {during.lock_waits:>12,}  0  "
        f"{'ok' if during.lock_waits == 0 else 'MISSED'}"
    )
    print(
        f"{'p95 during / p95 idle':48} {ratio:>12.2f}  <= {TARGET_P95_RATIO:.0f}  "
        f"{'ok' if ratio <= TARGET_P95_RATIO else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
