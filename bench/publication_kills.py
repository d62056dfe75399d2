"""Trust: a publication killed at random points never leaves a partial list, and its retry publishes exactly
the list an undisturbed run publishes (issue 17's trust table; PostgreSQL).

    python bench/publication_kills.py [--kills 20] [--players 20000] [--games 10000] [--seed 5]

DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench_kills) names the database holding the
federation, built once by bench/publish.py's builder at the given size and reused. Then:

1. an undisturbed run: the pending list published in a copy of that database (CREATE DATABASE ... TEMPLATE),
   its duration and a digest of every entry and rating change (md5 over the rows in a fixed order);
2. ``--kills`` times, in a fresh copy: the publication started in a process of its own and, once its database
   session is inside the publication's transaction, killed after a random share of the undisturbed duration —
   alternately the process (SIGKILL) and its database session (pg_terminate_backend);
   then: is any list of that date left (a partial list has fewer entries than the undisturbed one)? and the
   retry (the same service, as a redelivered task runs it): is its digest the undisturbed one?

Prints kills, partial lists left (target 0), retries identical (target all), killed before the commit.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.publish import (  # noqa: E402
    RATING_TYPE,
    admin_execute,
    database_name,
    read_marker,
    with_database,
)

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_kills"
DIGEST = (
    "SELECT count(*), md5(coalesce(string_agg(concat_ws(',', e.player_id, e.rating, e.games, e.k_factor, e.change, "
    "e.position, e.rank, e.rated_games_total, e.pool_games), ';' ORDER BY e.player_id), '')) "
    "FROM ratings_ratinglistentry e JOIN ratings_ratinglist l ON l.id = e.rating_list_id "
    "WHERE l.list_date = %s AND l.rating_type = %s AND l.superseded_by_id IS NULL"
)
CHANGES_DIGEST = (
    "SELECT md5(coalesce(string_agg(concat_ws(',', c.player_id, c.event_id, c.change, c.details::text), ';' "
    "ORDER BY c.player_id, c.event_id), '')) FROM ratings_ratingchange c "
    "JOIN ratings_ratinglist l ON l.id = c.rating_list_id WHERE l.list_date = %s AND l.rating_type = %s"
)


@dataclass
class Figures:
    kills: int = 0
    partial: int = 0
    identical: int = 0
    before_commit: int = 0
    failures: list[str] = field(default_factory=list)


def copy_of(url: str, name: str) -> str:
    copy_url = with_database(url, name)
    admin_execute(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin_execute(url, f'CREATE DATABASE "{name}" TEMPLATE "{database_name(url)}" STRATEGY FILE_COPY')
    return copy_url


def digest(url: str, list_date) -> tuple[int, str, str]:
    import psycopg

    with psycopg.connect(url) as connection:
        entries, entry_digest = connection.execute(DIGEST, [list_date, RATING_TYPE]).fetchone()
        (change_digest,) = connection.execute(CHANGES_DIGEST, [list_date, RATING_TYPE]).fetchone()
    return entries, entry_digest, change_digest


def publish_process(url: str, list_date) -> subprocess.Popen:
    env = dict(
        os.environ,
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="federation.settings",
        SECRET_KEY=os.environ.get("SECRET_KEY", "bench-only-secret-key-not-for-production"),
        CELERY_TASK_ALWAYS_EAGER="1",
        REQUEST_LOG="0",
    )
    return subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "publish.py"), "--child-publish", list_date.isoformat()],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def publication_session(url: str, timeout: float = 120.0) -> int | None:
    """The backend pid of the publishing process once it holds a transaction that has written (the list row)."""
    import psycopg

    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as connection:
        while time.monotonic() < deadline:
            row = connection.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND backend_xid IS NOT NULL ORDER BY xact_start LIMIT 1"
            ).fetchone()
            if row:
                return int(row[0])
            time.sleep(0.005)
    return None


def transaction_ended(url: str, pid: int) -> None:
    """Wait until the session ``pid`` no longer holds a transaction that has written (committed or gone)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        while connection.execute(
            "SELECT 1 FROM pg_stat_activity WHERE pid = %s AND backend_xid IS NOT NULL", [pid]
        ).fetchone():
            time.sleep(0.005)


def run(url: str, kills: int, seed: int) -> Figures:
    marker = read_marker(url)
    if marker is None:
        raise SystemExit(f"no federation built in {url}")
    list_date = marker["list_date"]
    base = database_name(url)
    rng = random.Random(seed)
    figures = Figures()

    copy = copy_of(url, f"{base}_undisturbed")
    child = publish_process(copy, list_date)
    pid = publication_session(copy)
    started = time.perf_counter()
    if pid is not None:
        transaction_ended(copy, pid)
    undisturbed_seconds = time.perf_counter() - started
    child.wait()
    expected = digest(copy, list_date)
    admin_execute(url, f'DROP DATABASE IF EXISTS "{base}_undisturbed" WITH (FORCE)')
    if child.returncode != 0 or expected[0] == 0:
        raise SystemExit("the undisturbed publication failed")
    print(f"undisturbed: {expected[0]:,} entries, {undisturbed_seconds:.1f} s inside the transaction")

    for attempt in range(kills):
        copy = copy_of(url, f"{base}_kill")
        child = publish_process(copy, list_date)
        backend = publication_session(copy)
        time.sleep(rng.uniform(0.0, 0.95) * undisturbed_seconds)
        how = "SIGKILL of the process" if attempt % 2 == 0 else "pg_terminate_backend of its session"
        if attempt % 2 == 0:
            child.send_signal(signal.SIGKILL)
        elif backend is not None:
            admin_execute(copy, f"SELECT pg_terminate_backend({backend})")
        child.wait()
        figures.kills += 1
        finished = child.returncode == 0
        figures.before_commit += int(not finished)
        left = digest(copy, list_date)
        if left[0] not in (0, expected[0]) or (left[0] and left != expected):
            figures.partial += 1
            figures.failures.append(f"kill {attempt + 1} ({how}): {left[0]:,} entries left")
        retry = publish_process(copy, list_date)
        retry.wait()
        if digest(copy, list_date) == expected:
            figures.identical += 1
        else:
            figures.failures.append(f"kill {attempt + 1} ({how}): the retry differs from the undisturbed list")
        admin_execute(url, f'DROP DATABASE IF EXISTS "{base}_kill" WITH (FORCE)')
        print(f"  kill {attempt + 1:>2}: {how}, {'after' if finished else 'before'} the commit")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit("bench/publication_kills.py needs PostgreSQL (DATABASE_URL=postgres://...)")
    if read_marker(url) is None:
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "publish.py"),
                "--build-only",
                "--players",
                str(args.players),
                "--games",
                str(args.games),
            ],
            env=dict(os.environ, DATABASE_URL=url),
            check=True,
        )
    else:  # reused: new migrations (a column the publication writes) must reach it, as bench/publish.py does
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"],
            cwd=ROOT,
            env=dict(os.environ, DATABASE_URL=url, SECRET_KEY=os.environ.get("SECRET_KEY", "bench-only-secret")),
            check=True,
        )
    figures = run(url, args.kills, args.seed)
    print()
    print(f"{'publication killed at random points':44} {figures.kills:>6}")
    print(f"{'  killed before the commit':44} {figures.before_commit:>6}")
    print(f"{'  partial lists left':44} {figures.partial:>6}  target 0  {'ok' if not figures.partial else 'MISSED'}")
    print(
        f"{'  retries identical to the undisturbed run':44} {figures.identical:>6}  target {figures.kills}  "
        f"{'ok' if figures.identical == figures.kills else 'MISSED'}"
    )
    for failure in figures.failures:
        print(f"  {failure}")
    sys.exit(0 if not figures.partial and figures.identical == figures.kills else 1)


if __name__ == "__main__":
    main()
