"""Benchmark: publish one rating list of 2,000,000 players and 1,000,000 rated games on PostgreSQL.

Run from the repository root (PostgreSQL must be running; the database is created when missing):

    python bench/publish.py                       # 2,000,000 players, 1,000,000 rated games in the period
    python bench/publish.py --players 200000 --games 100000      # a smaller federation
    python bench/publish.py --rebuild             # build the federation again

DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench_publish) names the database holding the
federation. It is built once with simulate_federation's service (COPY: a few minutes) — a starting list, four
months of events, the first list published — and a marker row records what was built, so later runs reuse it
(another --players / --games, or --rebuild, builds it again). Each run then:

1. copies that database (CREATE DATABASE ... TEMPLATE, not timed) so the built data is never changed;
2. publishes the pending list in the copy through the real service (ratings.services.rating_list_publish,
   in a process of its own): wall time and peak memory (ru_maxrss of that process plus its children);
3. times what PostgreSQL needs for the bare input and output of the same rows in the same copy: the period's
   rated games COPYed out (binary, to a sink) and the list's entries COPYed in (binary) to a scratch table
   made LIKE the entries table (same columns, defaults and indexes);
   (2 and 3 each start after a CHECKPOINT, not timed, so neither pays for flushing what came before);
4. prints the figures, the ratio of 2 to 3 and the targets (< 60 s, < 4 GB, ratio <= 3), then drops the copy.

The web benchmark (bench/web.py) reads the same database.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode, urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_publish"
RATING_TYPE = "standard"
# A fixed calendar, so a rebuild gives the same federation: a starting list on 1 July 2026, events from July
# to October, the September list published while building, the November list published by the benchmark.
TODAY = datetime.date(2026, 11, 1)
MONTHS = 4
SEED = 2026
# Rated games per simulated game (forfeits and byes are not rated) and months of events the benchmarked list
# rates (events ending after the closing date wait for the next list), measured on the simulation.
RATED_SHARE = 0.983
PERIOD_MONTHS = 1.97
MARKER = "bench_publish_marker"
TARGET_SECONDS, TARGET_MEMORY_MB, TARGET_RATIO = 60.0, 4096.0, 3.0


def configure(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "federation.settings")
    os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
    # The build simulates each month of two million players in Python inside that month's transaction: on a
    # loaded machine the pause between two statements passed the production bound of 60 s and the server ended
    # the session (federation/settings.py). A benchmark's builder is not a worker that may hang: no bound.
    os.environ.setdefault("DATABASE_IDLE_IN_TRANSACTION_TIMEOUT", "0")


def server_url(url: str) -> str:
    return urlparse(url)._replace(path="/postgres").geturl()


def database_name(url: str) -> str:
    return urlparse(url).path.lstrip("/")


def with_database(url: str, name: str) -> str:
    return urlparse(url)._replace(path=f"/{name}").geturl()


def admin_execute(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(server_url(url), autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)


def database_exists(url: str) -> bool:
    import psycopg

    with psycopg.connect(server_url(url), autocommit=True) as connection:
        row = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database_name(url)]).fetchone()
    return row is not None


def read_marker(url: str) -> dict | None:
    import psycopg

    if not database_exists(url):
        return None
    with psycopg.connect(url) as connection:
        exists = connection.execute("SELECT to_regclass(%s)", [MARKER]).fetchone()[0]
        if exists is None:
            return None
        row = connection.execute(f"SELECT players, games, seed, list_date, build_seconds FROM {MARKER}").fetchone()
    if row is None:
        return None
    return dict(zip(("players", "games", "seed", "list_date", "build_seconds"), row, strict=True))


# --------------------------------------------------------------------------------------------------------
# Build (once)
# --------------------------------------------------------------------------------------------------------
def build(url: str, players: int, games: int) -> dict:
    """Simulate the federation into ``url`` (a fresh database) and publish every list but the last."""
    import django
    from django.core.management import call_command

    configure(url)
    django.setup()
    call_command("migrate", verbosity=0)

    from django.db import connection

    from ratings.services import rating_list_publish
    from ratings.services.simulation import federation_simulate

    began = time.perf_counter()
    games_per_month = round(games / RATED_SHARE / PERIOD_MONTHS)
    print(f"building: {players:,} players, {MONTHS} months of about {games_per_month:,} games (seed {SEED})")
    summary = federation_simulate(
        players, MONTHS, SEED, rating_type=RATING_TYPE, today=TODAY, games_per_month=games_per_month
    )
    print(
        f"  simulated {summary.players:,} players, {summary.events:,} events, {summary.games:,} games "
        f"in {time.perf_counter() - began:.0f} s"
    )
    *earlier, benchmarked = summary.list_dates
    for list_date in earlier:
        step = time.perf_counter()
        outcome = rating_list_publish(RATING_TYPE, list_date, today=TODAY)
        print(f"  {outcome.describe()} in {time.perf_counter() - step:.0f} s")
    step = time.perf_counter()
    connection.close()
    import psycopg

    with psycopg.connect(url, autocommit=True) as raw:
        raw.execute("VACUUM ANALYZE")
    print(f"  VACUUM ANALYZE in {time.perf_counter() - step:.0f} s")
    seconds = time.perf_counter() - began
    with psycopg.connect(url, autocommit=True) as raw:
        raw.execute(
            f"CREATE TABLE {MARKER} (players integer, games integer, seed integer, list_date date, "
            "build_seconds double precision, built_at timestamptz DEFAULT now())"
        )
        raw.execute(
            f"INSERT INTO {MARKER} (players, games, seed, list_date, build_seconds) VALUES (%s, %s, %s, %s, %s)",
            [players, games, SEED, benchmarked, seconds],
        )
    print(f"built in {seconds / 60:.1f} min")
    return read_marker(url)


# --------------------------------------------------------------------------------------------------------
# One measurement
# --------------------------------------------------------------------------------------------------------
def child_publish(list_date: datetime.date) -> None:
    """Run in a process of its own (so its peak memory is the publication's): publish, print JSON."""
    import logging

    import django

    django.setup()
    from ratings.services import rating_list_publish

    steps = []

    class Steps(logging.Handler):
        def emit(self, record):
            name, seconds = record.args
            steps.append((name, seconds))

    logger = logging.getLogger("ratings.services.publication")
    handler = Steps(logging.DEBUG)
    handler.addFilter(lambda record: record.msg.startswith("publication step"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    began = time.perf_counter()
    outcome = rating_list_publish(RATING_TYPE, list_date, today=list_date)  # published on its date
    seconds = time.perf_counter() - began
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        json.dumps(
            {
                "seconds": seconds,
                "maxrss_kb": own + children,
                "rating_list_id": outcome.rating_list.pk,
                "created": outcome.created,
                "summary": outcome.summary,
                "steps": steps,
            }
        )
    )


def publish_in_child(url: str, list_date: datetime.date) -> dict:
    """Publish the list of ``list_date`` in the database ``url`` through the real service, in a process of its
    own (child_publish): its wall time, peak memory, list id, summary and steps."""
    child = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "publish.py"), "--child-publish", list_date.isoformat()],
        env=dict(os.environ, DATABASE_URL=url),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if child.returncode != 0:
        raise SystemExit(f"the publication of {list_date} failed:\n{child.stderr[-4000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def checkpoint(url: str) -> None:
    """Write every dirty page out before a timed part (not timed), so the publication and the bare I/O both
    start from a clean server: otherwise the copy's pages, or the publication's gigabyte of WAL, are flushed
    while the next part runs, and which part pays for it depends on timing (bare I/O varied 11-19 s)."""
    admin_execute(url, "CHECKPOINT")


def bare_io(url: str, rating_list_id: int) -> dict:
    """What PostgreSQL needs to read the list's rated games and to write its entries, with nothing else."""
    import psycopg

    figures = {}
    with psycopg.connect(url) as connection:
        cursor = connection.cursor()
        began = time.perf_counter()
        size = 0
        with cursor.copy(
            "COPY (SELECT g.id, g.event_id, g.round, w.player_id, b.player_id, g.result "
            "FROM events_game g JOIN events_participant w ON w.id = g.white_id "
            "JOIN events_participant b ON b.id = g.black_id "
            "WHERE g.event_id IN (SELECT id FROM events_event WHERE rated_on_id = %s) "
            "AND g.result IN ('1-0', '1/2-1/2', '0-1')) TO STDOUT (FORMAT BINARY)",
            [rating_list_id],
        ) as copy:
            for chunk in copy:
                size += len(chunk)
        figures["games_out_seconds"] = time.perf_counter() - began
        figures["games_out_mb"] = size / 1e6
        connection.commit()

        columns = [
            row[0]
            for row in cursor.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'ratings_ratinglistentry' AND column_name <> 'id' "
                "ORDER BY ordinal_position"
            )
        ]
        names = ", ".join(f'"{c}"' for c in columns)
        chunks = []
        with cursor.copy(
            f"COPY (SELECT {names} FROM ratings_ratinglistentry WHERE rating_list_id = %s) TO STDOUT (FORMAT BINARY)",
            [rating_list_id],
        ) as copy:
            for chunk in copy:
                chunks.append(bytes(chunk))
        data = b"".join(chunks)
        del chunks
        cursor.execute("DROP TABLE IF EXISTS bench_scratch_entries")
        cursor.execute("CREATE TABLE bench_scratch_entries (LIKE ratings_ratinglistentry INCLUDING ALL)")
        connection.commit()
        began = time.perf_counter()
        with cursor.copy(f"COPY bench_scratch_entries ({names}) FROM STDIN (FORMAT BINARY)") as copy:
            view = memoryview(data)
            for start in range(0, len(data), 1 << 20):
                copy.write(view[start : start + (1 << 20)])
        connection.commit()
        figures["entries_in_seconds"] = time.perf_counter() - began
        figures["entries_in_mb"] = len(data) / 1e6
        figures["entries"] = cursor.execute("SELECT count(*) FROM bench_scratch_entries").fetchone()[0]
        cursor.execute("DROP TABLE bench_scratch_entries")
        connection.commit()
    return figures


def measure(url: str, marker: dict, keep: bool) -> None:
    result, io = publish_in_copy(url, marker, keep)
    report(marker, result, io)


def publish_in_copy(url: str, marker: dict, keep: bool, session_options: str = "") -> tuple[dict, dict]:
    """Steps 1 to 3 of the module's docstring: the publication's figures (JSON of --child-publish) and the
    bare I/O's. ``session_options`` (``-c name=value ...``) are set on the publication's connection only
    (DATABASE_URL's ``?options=``; bench/pg_settings.py measures synchronous_commit that way)."""
    run_url = with_database(url, f"{database_name(url)}_run")
    run_name = database_name(run_url)
    began = time.perf_counter()
    admin_execute(url, f'DROP DATABASE IF EXISTS "{run_name}"')
    for attempt in range(10):  # the template must have no other session (autovacuum, a web benchmark)
        try:
            admin_execute(url, f'CREATE DATABASE "{run_name}" TEMPLATE "{database_name(url)}" STRATEGY FILE_COPY')
            break
        except Exception as exc:  # psycopg.errors.ObjectInUse
            if attempt == 9:
                raise SystemExit(f"cannot copy {database_name(url)}: {exc}") from None
            time.sleep(3)
    print(f"copied {database_name(url)} to {run_name} in {time.perf_counter() - began:.0f} s (not timed)")
    try:
        checkpoint(run_url)
        publication_url = f"{run_url}?{urlencode({'options': session_options})}" if session_options else run_url
        result = publish_in_child(publication_url, marker["list_date"])
        if not result["created"]:
            raise SystemExit("the list was already published in the copy: rebuild with --rebuild")
        checkpoint(run_url)
        io = bare_io(run_url, result["rating_list_id"])
    finally:
        if not keep:
            admin_execute(url, f'DROP DATABASE IF EXISTS "{run_name}"')
    return result, io


def report(marker: dict, result: dict, io: dict) -> None:
    s = result["summary"]
    seconds = result["seconds"]
    memory_mb = result["maxrss_kb"] / 1024
    bare = io["games_out_seconds"] + io["entries_in_seconds"]
    ratio = seconds / bare

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    print()
    print(
        f"federation: {marker['players']:,} registered players; list {marker['list_date']} ({RATING_TYPE}): "
        f"{s['games']:,} rated games in {s['events']:,} events, {s['entries']:,} entries "
        f"({s['rated']:,} rated, {s['new_ratings']:,} new), {s.get('changes', 0):,} rating changes"
    )
    print(f"{'measure':48} {'value':>12}  target")
    print(
        f"{'publication, wall time (rating_list_publish)':48} {seconds:>10.1f} s  < {TARGET_SECONDS:.0f} s  "
        f"{verdict(seconds < TARGET_SECONDS)}"
    )
    print(
        f"{'publication, peak memory (ru_maxrss)':48} {memory_mb:>9,.0f} MB  "
        f"< {TARGET_MEMORY_MB / 1024:.0f} GB  "
        f"{verdict(memory_mb < TARGET_MEMORY_MB)}"
    )
    for name, step_seconds in result["steps"]:
        print(f"{'  ' + name:48} {step_seconds:>10.1f} s")
    other = seconds - sum(step_seconds for _, step_seconds in result["steps"])
    print(f"{'  plan, lock, audit, commit':48} {other:>10.1f} s")
    print(
        f"{'PostgreSQL: rated games out (COPY TO)':48} {io['games_out_seconds']:>10.1f} s  "
        f"({io['games_out_mb']:,.0f} MB)"
    )
    print(
        f"{'PostgreSQL: entries in (COPY FROM)':48} {io['entries_in_seconds']:>10.1f} s  "
        f"({io['entries']:,} rows, {io['entries_in_mb']:,.0f} MB)"
    )
    print(f"{'PostgreSQL: bare input and output':48} {bare:>10.1f} s")
    print(
        f"{'ratio publication / bare I/O':48} {ratio:>12.2f}  <= {TARGET_RATIO:.0f}  {verdict(ratio <= TARGET_RATIO)}"
    )


def ensure_built(url: str, players: int, games: int, *, rebuild: bool = False) -> dict:
    """The federation of ``players`` and ``games`` in ``url``: reused when its marker says so (migrated to the
    code's newest migrations), otherwise the database is dropped and built again; returns the marker. Django is
    configured for ``url`` afterwards (not set up)."""
    marker = read_marker(url)
    wanted = (players, games, SEED)
    if rebuild or marker is None or (marker["players"], marker["games"], marker["seed"]) != wanted:
        if marker is not None or database_exists(url):
            print(f"dropping {database_name(url)} to build it again")
            admin_execute(url, f'DROP DATABASE IF EXISTS "{database_name(url)}" WITH (FORCE)')
        admin_execute(url, f'CREATE DATABASE "{database_name(url)}"')
        marker = build(url, players, games)
        from django.db import connections

        connections.close_all()
    else:
        print(
            f"reusing {database_name(url)}: {marker['players']:,} players, built in "
            f"{marker['build_seconds'] / 60:.1f} min (--rebuild to build again)"
        )
        # new migrations (indexes, columns) reach the reused database too
        configure(url)
        subprocess.run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, check=True)
    configure(url)
    return marker


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2_000_000, help="registered players (default 2,000,000)")
    parser.add_argument(
        "--games", type=int, default=1_000_000, help="rated games in the list's period (default 1,000,000)"
    )
    parser.add_argument("--rebuild", action="store_true", help="build the federation again")
    parser.add_argument("--keep", action="store_true", help="keep the measured copy (<database>_run)")
    parser.add_argument(
        "--build-only", action="store_true", help="build (or reuse) the federation, measure nothing (bench/load.py)"
    )
    parser.add_argument("--child-publish", metavar="LIST_DATE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_publish:
        child_publish(datetime.date.fromisoformat(args.child_publish))
        return
    url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit(f"bench/publish.py measures PostgreSQL; DATABASE_URL is {url!r}")
    marker = ensure_built(url, args.players, args.games, rebuild=args.rebuild)
    if not args.build_only:
        measure(url, marker, args.keep)


if __name__ == "__main__":
    main()
