"""Benchmark: publication, storage and page times after a long history of rating lists, on PostgreSQL.

Run from the repository root (PostgreSQL must be running; the database is created when missing):

    python bench/history.py                                  # 20,000 players, 24 lists (minutes)
    python bench/history.py --players 200000 --lists 24      # a mid-sized federation
    python bench/history.py --players 2000000 --lists 24     # FIDE scale: 2,000,000 players, ~1 M rated games a list
    python bench/history.py --players 2000000 --lists 60     # ten years: extends the 24-list history above

--database (default DATABASE_URL, else postgres://postgres@127.0.0.1:5432/bench_history) names the database (PostgreSQL
only: SQLite users see the same product, but this benchmark is about PostgreSQL's storage), which keeps the
history between runs. The build is resumable: what exists is read back from the database (which lists are
published, which figures are recorded in its table bench_history), so a run that stopped (interrupted, killed,
disk full) continues where it stopped when started again with the same options, and a finished history prints
its figures again; a larger ``--lists`` extends it, ``--rebuild`` starts again, ``--web-again`` measures the
page medians again (after a change to the pages) on the history as it is, ``--web-against URL`` compares them
with another built history (the same federation built with fewer ``--lists``, say: 12 lists against 24 shows
whether a page full of a player's history still grows with the lists kept). Every list is written in one
transaction: a stopped build never leaves half a list.

The history, oldest first (``--lists`` N counts lists 1 to N):

- the federation of bench/publish.py's builder (ensure_built; ``--games`` rated games a period, default half the
  players as at FIDE scale): a starting list, four months of simulated events, the September 2026 list
  published — the past before list 1;
- list 1 (2026-11-01): the pending list, published for real (bench/publish.py's publish_in_child: the product's
  ratings.services.rating_list_publish in a process of its own), timed;
- lists 2 .. N-1, every two months: clone_list() (the previous list one period later, written in bulk: seconds
  where a simulation and a publication would take minutes);
- list N: its period's events simulated as list 1's were (simulate_period), then published for real, timed the
  same way.

Around each real publication, not timed: VACUUM ANALYZE before it (as the builder ends), a CHECKPOINT before
each timed part. After it: the bare COPY I/O of the same rows and the ratio (bench/publish.py's bare_io), and the
storage of the tables that grow with history (heap + indexes + TOAST summed over pg_partition_tree, so the
entries table is measured however it is stored: one table or a partition per list). Each figure is stored as
soon as it is known. The history as it was after list 1 is kept as a second database (<database>_list1), and as
it was after list 13 as a third (<database>_list13, ``--full-at``), so that bench/web.py's page medians after
list 1, list 13 and list N are measured at the end in alternating rounds: on a shared machine, load that comes
and goes would otherwise pass for a difference between them. The machine's load average is printed with the
figures (a publication happens once: its time is read with it).

The table printed at the end compares list 1 and list N; targets (issue 17): list N within 1.2x of list 1 on
every figure, <= 150 bytes per entry including indexes. A page about a player's record shows more at list N
than at list 1 (one period of games there, N periods here) until its page is full (the newest 12 lists, 50 games
a page): the sizes table says how much more, and so does the verdict of a page that misses the target (``NO
(shows 5.6x)``). A second table compares each page after list 13, where a player active on every list has full
pages, with list N: there what a page shows no longer grows with the record, and its time must not grow with the
lists kept (the same 1.2x).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import copy_database  # noqa: E402
from bench.publish import (  # noqa: E402
    MONTHS,
    PERIOD_MONTHS,
    RATED_SHARE,
    RATING_TYPE,
    SEED,
    admin_execute,
    bare_io,
    checkpoint,
    database_exists,
    database_name,
    ensure_built,
    publish_in_child,
    server_url,
    with_database,
)
from bench.web import configure as configure_web  # noqa: E402
from bench.web import measure_pages  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_history"
STATE_TABLE = "bench_history"
TARGET_GROWTH = 1.2  # list N / list 1, every figure
TARGET_BYTES_PER_ENTRY = 150.0
RATING_NOISE = 12.0  # standard deviation (points) of a cloned list's rating change, for the players who played
WEB_SEED = 7  # bench/web.py's default; round r asks for the pages of seed WEB_SEED + r on both databases
SNAPSHOT = "list1"  # <database>_list1: the history as it was after list 1, kept for the paired web medians
# The list after which a player's pages are full: the profile and the API history show the newest 12 lists
# (public.selectors.ratings.RECENT_LISTS), so from list 13 on a player active on every list fills them, and more
# lists kept must not cost a page more. The history as it was after it is kept as <database>_list13.
FULL_AT = 13


# --------------------------------------------------------------------------------------------------------
# State kept in the database (what makes the build resumable)
# --------------------------------------------------------------------------------------------------------
def state_read() -> dict[str, dict]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE IF NOT EXISTS {STATE_TABLE} (key text PRIMARY KEY, value json NOT NULL)")
        cursor.execute(f"SELECT key, value FROM {STATE_TABLE}")
        return {key: value if isinstance(value, dict) else json.loads(value) for key, value in cursor.fetchall()}


def state_write(key: str, value: dict) -> None:
    """Store ``value`` under ``key`` (in the caller's transaction, if any)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {STATE_TABLE} (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            [key, json.dumps(value, default=str)],
        )


def current_lists() -> dict[datetime.date, object]:
    """The current (published, not superseded) lists of the benchmark's rating type by date."""
    from ratings.models import RatingList

    return {rl.list_date: rl for rl in RatingList.objects.current(RATING_TYPE).order_by("list_date")}


def vacuum_analyze() -> None:
    """Statistics and visibility maps brought up to date (not timed), as autovacuum would in production and as
    bench/publish.py's builder does before list 1: the planner then sees the history as it is."""
    from django.db import connection

    with connection.cursor() as cursor:  # autocommit: VACUUM cannot run in a transaction
        cursor.execute("VACUUM ANALYZE")


# --------------------------------------------------------------------------------------------------------
# The history's bulk
# --------------------------------------------------------------------------------------------------------
def _entry_kind(field) -> str | tuple[str, int]:
    """core.bulk.read_columns' kind for an entry column, NULL kept (NaN / NaT / None) where the column has it."""
    from django.db import models

    if isinstance(field, models.BooleanField):
        return "bool"
    if isinstance(field, models.DateField):
        return "date"
    if isinstance(field, models.CharField):
        return ("chars", field.max_length)
    if isinstance(field, models.FloatField) or field.null:
        return "float64"  # copy_columns rounds a float array written to an integer column; NaN is NULL
    return "int64"


def _insert_copies(cursor, model, where: str, params: list, overrides: dict[str, str], offset: bool) -> int:
    """INSERT ... SELECT: the rows of ``model`` matching ``where`` again, every column as it is except
    ``overrides`` (SQL expressions). ``offset``: primary keys moved past the table's largest (returns by how
    much, so the rows that refer to them can follow) and the sequence moved on; otherwise new keys from it."""
    table = model._meta.db_table
    shift = 0
    if offset:
        cursor.execute(f"SELECT min(id) FROM {table} WHERE {where}", params)
        low = cursor.fetchone()[0]
        cursor.execute(f"SELECT max(id) FROM {table}")
        top = cursor.fetchone()[0]
        if low is None:
            return 0
        shift = top + 1 - low
        overrides = {"id": f"id + {shift}", **overrides}
    columns = [f.column for f in model._meta.concrete_fields if offset or not f.primary_key]
    cursor.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) "
        f"SELECT {', '.join(overrides.get(c, c) for c in columns)} FROM {table} WHERE {where}",
        params,
    )
    if offset:
        cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
    return shift


def _copy_events(cursor, events: str, params: list, days: int, overrides: dict[str, str]) -> int:
    """The events matching ``events`` (SQL on the events table, ``params`` its parameters) again, with their
    participants and games, every date moved by ``days`` and ``overrides`` (SQL expressions) on the events;
    primary keys moved past each table's largest. The games' integrity trigger (events migration 0003) and
    foreign-key checks are skipped when the role may (superuser: session_replication_role = replica): the copies
    satisfy them by construction. Returns how far the events' keys moved."""
    from events.models import Event, Game, Participant

    of_events = f"event_id IN (SELECT id FROM {Event._meta.db_table} WHERE {events})"
    moved = {"start_date": f"start_date + {days}", "end_date": f"end_date + {days}", "updated_at": "now()"}
    event_shift = _insert_copies(cursor, Event, events, params, {**moved, **overrides}, offset=True)
    participant_shift = _insert_copies(
        cursor, Participant, of_events, params, {"event_id": f"event_id + {event_shift}"}, offset=True
    )
    cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    superuser = cursor.fetchone()[0]
    if superuser:
        cursor.execute("SET LOCAL session_replication_role = replica")
    _insert_copies(
        cursor,
        Game,
        of_events,
        params,
        {
            "event_id": f"event_id + {event_shift}",
            "white_id": f"white_id + {participant_shift}",
            "black_id": f"black_id + {participant_shift}",
            "date": f"date + {days}",
        },
        offset=True,
    )
    if superuser:
        cursor.execute("SET LOCAL session_replication_role = origin")
    return event_shift


def clone_list(previous, list_date: datetime.date, seed: int):
    """Write the list of ``list_date`` as ``previous`` one period later, in ONE transaction; returns it.

    This is the history's bulk: a 24-list FIDE-scale history in well under an hour instead of 22 simulations
    and publications. It writes exactly this, and nothing else:

    1. ratings_ratinglist: one row, published and current, continuing ``previous`` (``previous``, period_start
       = its date, closing date from the rating policy, version 1), with its rules, preset and counts;
    2. ratings_ratinglistentry: every entry of ``previous`` again, written as the publication writes a list's
       entries (ratings.services.publication.write._write_entries: the list created inside entry_storage_bulk, its
       own table prepared, filled with core.bulk.copy_columns, indexed and attached as the list's partition on
       PostgreSQL, ratings.services.entry_storage) — with
       the rating of each rated player who played on ``previous`` (games > 0) moved by a random change
       (normal, RATING_NOISE points, rounded, not below the rules' floor) and that change in ``change``
       (0 for the other rated players); the dates of the rating state (last_game_date, pool_since) moved by
       the days between the two lists, so inactivity and newcomers' pools stay as they were; position, rank and
       federation rank computed again by the engine (ratings.engine.list_state.list_order); every other
       column as on ``previous``;
    3. events_event: every event rated on ``previous`` with rating changes there (so not the events of step 5)
       again, start and end dates moved by the same days,
       status rated, rated on the new list; events_participant and events_game: their participants and games
       again (games dated the same way), primary keys moved past each table's largest and the sequences moved
       on. The games' integrity trigger (events migration 0003) and foreign-key checks are skipped when the
       role may (superuser: session_replication_role = replica): the copies satisfy them by construction;
    4. ratings_ratingchange: every rating change of ``previous`` again, on the new list and the copied events;
       the per-game details as they were (their game keys name the original games);
    5. events still awaiting rating that ended on or before the new list's closing date (the simulated events
       that ended between a real list's closing date and its date): marked rated on the new list, without
       rating changes, so the last list's real publication rates its own period only, as list 1 did.

    Not written: the events' status timeline and history records, the audit trail, webhooks, shadow lists,
    pool ledgers. When the entries' storage changes, step 2 must keep writing through the publication's own
    path: this is the one place that writes a cloned list.
    """
    import numpy as np
    from django.db import connection, transaction
    from django.utils import timezone

    from core.bulk import copy_columns, read_columns
    from events.models import EventStatus
    from ratings.engine import get_preset
    from ratings.engine.list_state import list_order
    from ratings.models import RatingChange, RatingList, RatingListEntry, RatingListStatus
    from ratings.selectors import events_pending_rating
    from ratings.services.entry_storage import (
        entry_storage_attach,
        entry_storage_bulk,
        entry_storage_prepare,
        entry_table,
    )
    from ratings.services.schedule import rating_policy_for

    policy = rating_policy_for(previous.rating_type)
    closing_date = policy.closing_date(list_date)
    days = (list_date - previous.list_date).days
    rng = np.random.default_rng([seed, list_date.toordinal()])
    fields = [
        f for f in RatingListEntry._meta.concrete_fields if f.attname != RatingListEntry.rating_list.field.attname
    ]
    with transaction.atomic():
        with entry_storage_bulk():  # its entries are written and attached below
            rating_list = RatingList.objects.create(
                rating_type=previous.rating_type,
                list_date=list_date,
                version=1,
                period_start=previous.list_date,
                closing_date=closing_date,
                status=RatingListStatus.PUBLISHED,
                rules_preset=previous.rules_preset,
                rules=previous.rules,
                previous=previous,
                published_at=timezone.now(),
                entry_count=previous.entry_count,
                rated_count=previous.rated_count,
                game_count=previous.game_count,
                event_count=previous.event_count,
                new_rating_count=previous.new_rating_count,
                dropped_count=previous.dropped_count,
            )
        # 2. entries
        entries = read_columns(
            RatingListEntry.objects.filter(rating_list=previous).order_by("position", "player_id"),  # as written
            {f.attname: _entry_kind(f) for f in fields},
        )
        rating = entries["rating"]
        played = (entries["games"] > 0) & ~np.isnan(rating)
        moved = rating + np.rint(rng.normal(0.0, RATING_NOISE, rating.size))
        floor = get_preset(previous.rules_preset).rating_floor
        if floor is not None:
            moved = np.maximum(moved, floor)
        entries["rating"] = np.where(played, moved, rating)
        entries["change"] = np.where(played, entries["rating"] - rating, np.where(np.isnan(rating), np.nan, 0.0))
        for name in ("last_game_date", "pool_since"):
            entries[name] = entries[name] + np.timedelta64(days, "D")  # NaT stays NaT
        entries["position"], entries["rank"], entries["federation_rank"] = list_order(
            entries["player_id"], entries["rating"], entries["inactive"], entries["federation"]
        )
        entry_storage_prepare([rating_list.pk])
        copy_columns(
            RatingListEntry,
            {"rating_list_id": np.full(rating.size, rating_list.pk), **entries},
            table=entry_table(rating_list.pk),
        )
        entry_storage_attach([rating_list.pk])
        with connection.cursor() as cursor:
            # 3. events, participants, games
            # the events rated on ``previous`` with rating changes there (not the tails of step 5)
            rated = f"SELECT event_id FROM {RatingChange._meta.db_table} WHERE rating_list_id = %s"
            event_shift = _copy_events(
                cursor,
                f"rated_on_id = %s AND id IN ({rated})",
                [previous.pk, previous.pk],
                days,
                {"status": f"'{EventStatus.RATED.value}'", "rated_on_id": str(int(rating_list.pk))},
            )
            # 4. rating changes
            _insert_copies(
                cursor,
                RatingChange,
                "rating_list_id = %s",
                [previous.pk],
                {"rating_list_id": str(int(rating_list.pk)), "event_id": f"event_id + {event_shift}"},
                offset=False,
            )
        # 5. the tail of a real list's period
        events_pending_rating(previous.rating_type, closing_date).update(
            status=EventStatus.RATED, rated_on=rating_list, updated_at=timezone.now()
        )
    return rating_list


def simulate_period(players: int, games: int, previous, list_date: datetime.date) -> int:
    """The events of the period of ``list_date`` (after ``previous``), simulated as list 1's were: bench/publish.py's
    builder runs federation_simulate for the MONTHS months before list 1's date; the same simulation
    (ratings.simulation.simulate_federation: same players, seed, games a month and event stream) runs here for
    the MONTHS months before ``list_date``, and its months are written by the simulation service's own writer
    (ratings.services.simulation._write_month: submitted events, participants, games), the players found by
    their ID number. Events that ended on or before ``previous``'s closing date belong to earlier lists and
    are left out; as for list 1, events ending after ``list_date`` are not written yet. One transaction;
    returns the number of events written."""
    import numpy as np
    from django.conf import settings
    from django.db import transaction

    from core.bulk import read_columns
    from players.models import Federation, Player
    from ratings.engine.months import add_months
    from ratings.services.schedule import rating_policy_for
    from ratings.services.simulation import SimulationSummary, _write_month
    from ratings.simulation import SimulatedPlayers, simulate_federation

    policy = rating_policy_for(RATING_TYPE)
    earlier = np.datetime64(policy.closing_date(previous.list_date), "D")
    never = np.datetime64("9999-12-31", "D")
    registry = read_columns(Player.objects.order_by("id_number"), {"id_number": "int64", "id": "int64"})
    federation = Federation.objects.get(code=settings.FEDERATION_CODE or "ESP")
    summary = SimulationSummary(rating_type=RATING_TYPE, starting_list_date=previous.list_date, list_dates=[list_date])
    games_per_month = round(games / RATED_SHARE / PERIOD_MONTHS)  # as bench/publish.py's builder asks
    with transaction.atomic():
        player_pk = None
        start = add_months(list_date, -MONTHS)
        for batch in simulate_federation(players, MONTHS, SEED, start, games_per_month=games_per_month):
            if isinstance(batch, SimulatedPlayers):
                at = np.searchsorted(registry["id_number"], batch.id_number)
                if not np.array_equal(
                    registry["id_number"][np.minimum(at, registry["id_number"].size - 1)], batch.id_number
                ):
                    raise SystemExit("the simulated players are not the database's: build again with --rebuild")
                player_pk = registry["id"][at]
                continue
            # an event that ended on or before the previous closing date was rated on an earlier list: given an
            # end date after ``list_date``, _write_month leaves it out as it leaves out events still running
            month = replace(batch, event_end=np.where(batch.event_end <= earlier, never, batch.event_end))
            _write_month(month, player_pk, RATING_TYPE, federation, list_date, summary)
    return summary.events


# --------------------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------------------
def history_tables() -> dict[str, tuple[str, str]]:
    """The tables that grow with every list: name -> (table, SQL condition selecting one list's rows, %s = its
    primary key)."""
    from events.models import Event, Game, Participant
    from ratings.models import RatingChange, RatingListEntry

    of_list = f"event_id IN (SELECT id FROM {Event._meta.db_table} WHERE rated_on_id = %s)"
    return {
        "entries": (RatingListEntry._meta.db_table, "rating_list_id = %s"),
        "rating changes": (RatingChange._meta.db_table, "rating_list_id = %s"),
        "games": (Game._meta.db_table, of_list),
        "participants": (Participant._meta.db_table, of_list),
        "events": (Event._meta.db_table, "rated_on_id = %s"),
    }


def total_bytes(table: str) -> int:
    """Heap + indexes + TOAST of ``table``: of every partition under it when it is partitioned."""
    from django.db import connection

    with connection.cursor() as cursor:
        # PostgreSQL 15 lists no tree for a plain table: then the table alone
        cursor.execute(
            "SELECT COALESCE((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(%s::regclass)), "
            "pg_total_relation_size(%s::regclass))",
            [table, table],
        )
        return int(cursor.fetchone()[0])


def storage(rating_list_id: int) -> dict[str, dict]:
    """Per history table: its total bytes and rows, the rows of the list ``rating_list_id`` and their bytes: the
    size of their partition when they fill one of their own, otherwise their share of the table (rows x the
    table's bytes per row: a single table cannot tell one list's pages from another's)."""
    from django.db import connection

    figures = {}
    with connection.cursor() as cursor:
        for name, (table, of_list) in history_tables().items():
            cursor.execute(f"SELECT count(*) FROM {table}")
            rows = cursor.fetchone()[0]
            cursor.execute(
                f"SELECT tableoid::regclass::text, count(*) FROM {table} WHERE {of_list} GROUP BY 1", [rating_list_id]
            )
            holders = cursor.fetchall()
            list_rows = sum(count for _, count in holders)
            table_bytes = total_bytes(table)
            list_bytes, measured = round(list_rows * table_bytes / rows) if rows else 0, "share"
            if len(holders) == 1 and holders[0][0] != table:
                cursor.execute(f"SELECT count(*) FROM {holders[0][0]}")
                if cursor.fetchone()[0] == list_rows:  # a partition of the list's rows alone
                    list_bytes, measured = total_bytes(holders[0][0]), "partition"
            figures[name] = {
                "bytes": table_bytes,
                "rows": rows,
                "list_rows": list_rows,
                "list_bytes": list_bytes,
                "list_bytes_from": measured,
            }
    return figures


def measure_real_list(url: str, ordinal: int, list_date: datetime.date, args, state: dict) -> dict:
    """Publish list ``ordinal`` for real unless it is, then measure whatever of its figures is not recorded yet
    (each stored as soon as known). Figures other than the publication's are taken only while it is the newest
    list: they describe the history at its moment."""
    key = f"list {list_date}"
    figures = dict(state.get(key, {}))
    lists = current_lists()
    rating_list = lists.get(list_date)
    if rating_list is None:
        previous = lists[max(day for day in lists if day < list_date)]
        if ordinal > 1:
            from ratings.selectors import events_waiting_for_later_list
            from ratings.services.schedule import rating_policy_for

            closing = rating_policy_for(RATING_TYPE).closing_date(previous.list_date)
            if events_waiting_for_later_list(RATING_TYPE, closing).exists():
                print(f"list {ordinal} ({list_date}): its period's events were simulated by an earlier run")
            else:
                began = time.perf_counter()
                count = simulate_period(args.players, args.games, previous, list_date)
                print(
                    f"list {ordinal} ({list_date}): {count:,} events simulated in {time.perf_counter() - began:.0f} s"
                )
        began = time.perf_counter()
        vacuum_analyze()
        print(f"  VACUUM ANALYZE in {time.perf_counter() - began:.0f} s (not timed)")
        checkpoint(url)
        load = os.getloadavg()[0]  # the machine's other work, for reading the times
        result = publish_in_child(url, list_date)
        if not result["created"]:
            raise SystemExit(f"the list of {list_date} was published meanwhile by someone else: --rebuild")
        figures = {"ordinal": ordinal, "publication": result, "load": {"publication": load}}
        state_write(key, figures)
        print(f"list {ordinal} ({list_date}): published in {result['seconds']:.1f} s (timed)")
        rating_list = current_lists()[list_date]
    elif "publication" not in figures:
        raise SystemExit(
            f"list {ordinal} ({list_date}) is published but its publication's figures were not recorded (the run "
            "stopped in between): build again with --rebuild"
        )
    newest = max(current_lists()) == list_date
    missing = [name for name in ("bare_io", "storage") if name not in figures]
    if missing and not newest:
        raise SystemExit(
            f"list {ordinal} ({list_date}) lacks {', '.join(missing)} and later lists exist: build again with --rebuild"
        )
    if "bare_io" in missing:
        checkpoint(url)
        figures["bare_io"] = bare_io(url, rating_list.pk)
        state_write(key, figures)
    if "storage" in missing:
        figures["storage"] = storage(rating_list.pk)
        figures["lists"] = len(current_lists())
        state_write(key, figures)
    return figures


def child_web(requests: int, seed: int) -> None:
    """Run in a process of its own on DATABASE_URL: bench/web.py's measurement, printed as JSON."""
    configure_web()
    import django

    django.setup()
    rating_list, timed = measure_pages(requests, seed)
    times = {name: t for name, _, t, _ in timed}
    sizes = {name: size for name, _, _, size in timed}
    print(json.dumps({"list_date": rating_list.list_date.isoformat(), "times": times, "sizes": sizes}))


def web_in_child(url: str, requests: int, seed: int) -> tuple[str, dict[str, list[float]], dict[str, list[int]]]:
    import subprocess

    child = subprocess.run(
        [sys.executable, __file__, "--child-web", f"{requests}:{seed}"],
        env=dict(os.environ, DATABASE_URL=url),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if child.returncode != 0:
        raise SystemExit(f"bench/web.py's measurement on {database_name(url)} failed:\n{child.stderr[-4000:]}")
    answer = json.loads(child.stdout.strip().splitlines()[-1])
    return answer["list_date"], answer["times"], answer["sizes"]


def paired_web(databases: list[tuple[str, str, datetime.date | None]], args) -> dict:
    """bench/web.py's medians on each of ``databases`` (name in the result, URL, the newest list it must hold):
    after list 1 (on the snapshot kept then), after list 13 (the snapshot kept then, if any) and after list N (on
    the history), measured in alternating rounds (each round the same pages on every database, a process each),
    so the machine's other work — the same for all within a round — does not pass for a difference between them."""
    requests = max(args.web_requests // args.web_rounds, 1)
    times: dict[str, dict[str, list[float]]] = {which: {} for which, _, _ in databases}
    sizes: dict[str, dict[str, list[int]]] = {which: {} for which, _, _ in databases}
    loads = []
    for round_number in range(args.web_rounds):
        for which, database, expected in databases:
            loads.append(os.getloadavg()[0])
            list_date, pages, answers = web_in_child(database, requests, WEB_SEED + round_number)
            if expected is not None and list_date != expected.isoformat():
                raise SystemExit(f"{database_name(database)}'s newest list is {list_date}, not {expected}: --rebuild")
            for name, values in pages.items():
                times[which].setdefault(name, []).extend(values)
                sizes[which].setdefault(name, []).extend(answers[name])
    medians = {which: {name: statistics.median(v) for name, v in pages.items()} for which, pages in times.items()}
    # what each page showed at either end (median bytes of its answers): a page of a player's record grows with
    # the record until its page is full, and its time with it
    shown = {which: {name: statistics.median(v) for name, v in pages.items()} for which, pages in sizes.items()}
    return {**medians, "sizes": shown, "load": statistics.mean(loads), "requests": requests * args.web_rounds}


def keep_snapshot(url: str, ordinal: int) -> None:
    """The history as it is now, after list ``ordinal``, copied to <database>_list<ordinal> (for the web medians)."""
    from django.db import connections

    step = time.perf_counter()
    connections.close_all()  # CREATE DATABASE ... TEMPLATE needs the template to itself
    copied = copy_database(url, f"list{ordinal}")
    print(f"  kept the history after list {ordinal} as {database_name(copied)} in {time.perf_counter() - step:.0f} s")


def drop_snapshots(url: str) -> None:
    """Every <database>_list<n> an earlier history of ``url`` kept."""
    import psycopg

    with psycopg.connect(server_url(url), autocommit=True) as connection:
        pattern = f"^{database_name(url)}_list[0-9]+$"
        found = connection.execute("SELECT datname FROM pg_database WHERE datname ~ %s", [pattern]).fetchall()
    for (name,) in found:
        admin_execute(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def awaiting_rating_again(tail_list, days: int) -> int:
    """Events awaiting rating after the newest list, as after a real publication (list 1's and list N's: the
    simulated events that ended after its closing date, submitted, not rated yet): list 1's, which clone_list's
    step 5 rated on list 2 (``tail_list``) without rating changes, copied again with their participants and games,
    dates moved by ``days``, status submitted, on no list; the next clone rates them (its step 5), as list 2 rated
    list 1's. Without them a player's profile after a cloned list skipped its live rating (a query on the pending
    games, about 1 ms at FIDE scale) that it reads after list 1 and list N: the history after list 13 would
    answer faster for a reason other than the lists kept. One transaction; none if some event awaits rating
    already. Returns the number of events written."""
    from django.db import connection, transaction

    from events.models import Event, EventStatus
    from ratings.models import RatingChange

    if Event.objects.filter(status=EventStatus.SUBMITTED).exists():
        return 0
    changed = f"SELECT event_id FROM {RatingChange._meta.db_table} WHERE rating_list_id = %s"
    tail = f"rated_on_id = %s AND id NOT IN ({changed})"
    with transaction.atomic(), connection.cursor() as cursor:
        _copy_events(
            cursor,
            tail,
            [tail_list.pk, tail_list.pk],
            days,
            {"status": f"'{EventStatus.SUBMITTED.value}'", "rated_on_id": "NULL"},
        )
    return Event.objects.filter(status=EventStatus.SUBMITTED).count()


def clone_lists(url: str, dates: list[datetime.date], full_at: int | None) -> None:
    """Lists 2 .. N-1 (clone_list), those missing; the history after list ``full_at`` kept (keep_snapshot)."""
    analysed = False
    for ordinal, day in enumerate(dates[1:-1], start=2):
        lists = current_lists()
        if day in lists:
            if (
                ordinal == full_at
                and max(lists) == day
                and not database_exists(with_database(url, f"{database_name(url)}_list{ordinal}"))
            ):
                keep_full(url, dates, ordinal)  # stopped between the clone and its copy
            continue
        if not analysed:
            # the statistics as they are after list 1's publication (or a stopped clone): planned with those of
            # before it, the copies' joins took a list's half a million rating changes for one row and ran for
            # minutes at FIDE scale
            vacuum_analyze()
            analysed = True
        step = time.perf_counter()
        clone_list(lists[max(lists)], day, SEED)
        vacuum_analyze()  # kept current as autovacuum would; the last list's VACUUM then has little to do
        seconds = time.perf_counter() - step
        state_write(f"clone {day}", {"seconds": seconds})
        print(f"list {ordinal} ({day}): cloned from the previous list in {seconds:.1f} s")
        if ordinal == full_at:
            keep_full(url, dates, ordinal)


def keep_full(url: str, dates: list[datetime.date], ordinal: int) -> None:
    """The history after list ``ordinal`` kept (keep_snapshot), with events awaiting rating as after list 1."""
    days = (dates[ordinal - 1] - dates[0]).days
    print(f"  {awaiting_rating_again(current_lists()[dates[1]], days):,} events awaiting rating after list {ordinal}")
    vacuum_analyze()  # as after the clone: the copy's planner sees its rows
    keep_snapshot(url, ordinal)


# --------------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------------
def derived(figures: dict, web: dict[str, float]) -> dict[str, float]:
    """The compared figures of one real list, by row name (in the order printed)."""
    publication, io, store = figures["publication"], figures["bare_io"], figures["storage"]
    entries = store["entries"]
    out = {
        "publication wall time (s)": publication["seconds"],
        "publication / bare COPY I/O": publication["seconds"] / (io["games_out_seconds"] + io["entries_in_seconds"]),
        "publication peak memory (MB)": publication["maxrss_kb"] / 1024,
        "entries: bytes per entry, all lists": entries["bytes"] / entries["rows"],
        "entries: the list's storage (MB)": entries["list_bytes"] / 1e6,
        "entries: the list's bytes per entry": entries["list_bytes"] / entries["list_rows"],
        "rating changes: the list's storage (MB)": store["rating changes"]["list_bytes"] / 1e6,
        "games: the list's storage (MB)": store["games"]["list_bytes"] / 1e6,
    }
    for page, median in web.items():
        out[f"web median (ms): {page}"] = median
    return out


def grown(web: dict, before: str, after: str, page: str) -> float:
    """How much more ``page`` answered on ``after`` than on ``before`` (median bytes; 1.0 when not measured)."""
    sizes = web.get("sizes", {})
    size, other = sizes.get(before, {}).get(page), sizes.get(after, {}).get(page)
    return other / size if size and other else 1.0


def verdict(met: bool, shown: float) -> str:
    """yes, or NO with what the page showed more when it did: a page about a player's record that shows more
    of it (bytes) costs more for that, not for the lists kept (the second table compares it once it is full)."""
    if met:
        return "yes"
    return f"NO (shows {shown:.1f}x)" if shown > TARGET_GROWTH else "NO"


def report(
    first_date: datetime.date, last_date: datetime.date, lists: int, state: dict, web: dict, build: dict
) -> None:
    first, last = state[f"list {first_date}"], state[f"list {last_date}"]
    a, b = derived(first, web["first"]), derived(last, web["last"])
    history = current_lists()
    s1, sn = first["publication"]["summary"], last["publication"]["summary"]
    print()
    print(
        f"history: {len(history)} current lists in the database ({lists} from list 1, {first_date}, to list {lists}, "
        f"{last_date}); list 1: {s1['entries']:,} entries, {s1['games']:,} rated games; list {lists}: "
        f"{sn['entries']:,} entries, {sn['games']:,} rated games"
    )
    label_1, label_n = f"list 1 {first_date}", f"list {lists} {last_date}"
    print(f"{'figure':58} {label_1:>18} {label_n:>18} {'ratio':>7}  {'target':22} met?")
    for name, value in a.items():
        other = b.get(name)
        if other is None:
            continue
        ratio = other / value if value else float("inf")
        target = f"<= {TARGET_GROWTH}x list 1"
        met = ratio <= TARGET_GROWTH
        if name == "entries: bytes per entry, all lists":
            target = f"<= {TARGET_BYTES_PER_ENTRY:.0f} B and {TARGET_GROWTH}x"
            met = met and other <= TARGET_BYTES_PER_ENTRY
        page = name.removeprefix("web median (ms): ")
        shown = grown(web, "first", "last", page) if page != name else 1.0
        print(f"{name:58} {value:>18,.1f} {other:>18,.1f} {ratio:>7.2f}  {target:22} {verdict(met, shown)}")
    print()
    print(
        "load average (1 min, the machine's other work) when the publication began: list 1 "
        f"{first['load']['publication']:.1f}, list {lists} {last['load']['publication']:.1f}; web medians: "
        f"{web['requests']} requests a page on each database, in alternating rounds, mean load {web['load']:.1f}"
    )
    if "sizes" in web:  # medians stored by an older run have none: --web-again measures them too
        print()
        print(
            "what each page answered (median bytes): a page that grows in time grows in what it shows, a player's "
            "record until its page is full (12 lists, 50 games) or, the chart, a point a list"
        )
        print(f"  {'page':38} {label_1:>18} {label_n:>18} {'ratio':>7}")
        for page, size in web["sizes"]["first"].items():
            other = web["sizes"]["last"].get(page)
            if other is not None:
                print(f"  {page:38} {size:>18,.0f} {other:>18,.0f} {other / size if size else float('inf'):>7.2f}")
    print()
    print(
        "tables that grow with history (heap + indexes + TOAST over pg_partition_tree): the whole table, and the "
        "list's rows (their partition, or their share of the table: rows x bytes per row)"
    )
    print(
        f"{'table':16} {'at':10} {'lists':>6} {'rows':>13} {'MB':>10} {'B/row':>7} {'list rows':>11} "
        f"{'list MB':>9} {'from':>9}"
    )
    for name in history_tables():
        for figures, day in ((first, first_date), (last, last_date)):
            t = figures["storage"][name]
            per_row = t["bytes"] / t["rows"] if t["rows"] else 0.0
            print(
                f"{name:16} {day.isoformat():10} {figures['lists']:>6} {t['rows']:>13,} {t['bytes'] / 1e6:>10,.1f} "
                f"{per_row:>7.0f} {t['list_rows']:>11,} {t['list_bytes'] / 1e6:>9,.1f} {t['list_bytes_from']:>9}"
            )
    print()
    print(
        f"build: federation {build['federation_seconds'] / 60:.1f} min, {build['clones']} cloned lists "
        f"{build['clone_seconds'] / 60:.1f} min ({build['clone_seconds'] / max(build['clones'], 1):.0f} s each); "
        f"this run {build['run_seconds'] / 60:.1f} min"
    )


def report_full(full_date: datetime.date, last_date: datetime.date, full_at: int, lists: int, web: dict) -> None:
    """The page medians after list ``full_at`` against those after the last list (measured with list 1's, in the
    same alternating rounds). From list ``full_at`` a player active on every list has full pages (12 lists, 50
    games), so what a page shows no longer grows with the record and its time must not grow with the lists kept:
    the comparison that separates the cost of history kept from the cost of a longer record shown."""
    label_k, label_n = f"list {full_at} {full_date}", f"list {lists} {last_date}"
    print()
    print(
        f"web medians (ms) once a player's pages are full, list {full_at} against list {lists} (the same rounds): "
        "what a page costs must not grow with the lists kept"
    )
    print(f"  {'page':38} {label_k:>18} {label_n:>18} {'ratio':>7} {'bytes ratio':>12}  met ({TARGET_GROWTH}x)?")
    for page, median in web["full"].items():
        this = web["last"][page]
        ratio = this / median if median else float("inf")
        shown = grown(web, "full", "last", page)
        met = verdict(ratio <= TARGET_GROWTH, shown)
        print(f"  {page:38} {median:>18.1f} {this:>18.1f} {ratio:>7.2f} {shown:>12.2f}  {met}")


def web_medians(databases: list[tuple[str, str, datetime.date]], args) -> dict:
    """The page medians of ``databases``, measured once and kept in the state (again with --web-again)."""
    key = "web " + " ".join(str(day) for _, _, day in databases)  # "web <list 1> [<list 13>] <list N>"
    web = None if args.web_again else state_read().get(key)
    if web is None:
        step = time.perf_counter()
        web = paired_web(databases, args)
        state_write(key, web)
        print(f"web medians in alternating rounds on {len(databases)} databases in {time.perf_counter() - step:.0f} s")
    return web


def history_dates(url: str, first: datetime.date, lists: int) -> list[datetime.date]:
    """The dates of list 1 to list ``lists`` under the rating policy; refused if the database holds later lists."""
    from ratings.services.schedule import rating_policy_for

    policy = rating_policy_for(RATING_TYPE)
    dates = [first]
    while len(dates) < lists:
        dates.append(policy.next_list_date(dates[-1]))
    beyond = [day for day in current_lists() if day > dates[-1]]
    if beyond:
        raise SystemExit(
            f"{database_name(url)} already holds lists up to {max(beyond)}, past list {lists} ({dates[-1]}): "
            "ask for more --lists or --rebuild"
        )
    return dates


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20_000, help="registered players (default 20,000)")
    parser.add_argument(
        "--games", type=int, default=None, help="rated games a period (default half the players, as at FIDE scale)"
    )
    parser.add_argument("--lists", type=int, default=24, help="lists from list 1 to the last (default 24)")
    parser.add_argument("--web-requests", type=int, default=200, help="requests a page for the medians (default 200)")
    parser.add_argument("--web-rounds", type=int, default=4, help="alternating rounds of the web medians (default 4)")
    parser.add_argument(
        "--full-at",
        type=int,
        default=FULL_AT,
        help=f"keep the history after this list too and compare each page there with the last list: a player's "
        f"pages are full from list {FULL_AT} (default; 0: not kept; a list from 2 to N-2: a cloned list that "
        "another follows)",
    )
    parser.add_argument("--rebuild", action="store_true", help="drop the history and build it again")
    parser.add_argument(
        "--web-against",
        metavar="DATABASE_URL",
        help="also compare the page medians with another built history (e.g. --lists 12 of the same federation)",
    )
    parser.add_argument(
        "--web-again",
        action="store_true",
        help="measure the web medians again (after a change to the pages), keeping the history and its other figures",
    )
    parser.add_argument(
        "--database",
        default=os.environ.get("DATABASE_URL", DEFAULT_URL),
        help=f"PostgreSQL database URL (default DATABASE_URL, else {DEFAULT_URL})",
    )
    parser.add_argument("--child-web", metavar="REQUESTS:SEED", help=argparse.SUPPRESS)
    return parser


def main() -> None:
    parser = argument_parser()
    args = parser.parse_args()
    if args.child_web:
        requests, seed = map(int, args.child_web.split(":"))
        child_web(requests, seed)
        return
    args.games = args.games if args.games is not None else max(args.players // 2, 1)
    if args.lists < 2:
        parser.error("--lists must be at least 2 (list 1 and the last list are both published for real)")
    url = args.database
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit(
            f"bench/history.py measures PostgreSQL (partitions, pg_partition_tree, COPY); the database is {url!r}"
        )
    began = time.perf_counter()
    os.environ["DATABASE_URL"] = url
    # a cloned list followed by another, which rates the events it leaves awaiting rating (awaiting_rating_again)
    full_at = args.full_at if 1 < args.full_at < args.lists - 1 else None
    snapshot = with_database(url, f"{database_name(url)}_{SNAPSHOT}")
    full = with_database(url, f"{database_name(url)}_list{full_at}") if full_at else None
    if args.rebuild:
        drop_snapshots(url)
    configure_web()  # before Django starts: the settings bench/web.py measures with
    marker = ensure_built(url, args.players, args.games, rebuild=args.rebuild)
    import django

    django.setup()
    state = state_read()
    dates = history_dates(url, marker["list_date"], args.lists)
    print(f"history: list 1 {dates[0]} .. list {args.lists} {dates[-1]} ({args.players:,} players)")
    if dates[0] not in current_lists():  # a new history: the snapshots left by an earlier one are not its own
        drop_snapshots(url)
    measure_real_list(url, 1, dates[0], args, state)
    if not database_exists(snapshot):
        if max(current_lists()) != dates[0]:
            raise SystemExit(f"{database_name(snapshot)} (the history after list 1) is missing: --rebuild")
        keep_snapshot(url, 1)
    clone_lists(url, dates, full_at)
    if full and not database_exists(full):  # a history built before --full-at, or with another one
        print(f"  {database_name(full)} (the history after list {full_at}) is missing: full pages not compared")
        full = None
    measure_real_list(url, args.lists, dates[-1], args, state_read())
    databases = [("first", snapshot, dates[0]), ("last", url, dates[-1])]
    if full and full_at:
        databases.insert(1, ("full", full, dates[full_at - 1]))
    web = web_medians(databases, args)
    state = state_read()
    clones = [value["seconds"] for key, value in state.items() if key.startswith("clone ")]
    build = {
        "federation_seconds": marker["build_seconds"],
        "clones": len(clones),
        "clone_seconds": sum(clones),
        "run_seconds": time.perf_counter() - began,
    }
    report(dates[0], dates[-1], args.lists, state, web, build)
    if "full" in web and full_at:
        report_full(dates[full_at - 1], dates[-1], full_at, args.lists, web)
    if args.web_against:
        web_against(args.web_against, url, dates[-1], args)


def web_against(other: str, url: str, last: datetime.date, args) -> None:
    """The page medians of this history against another built history (``--web-against``, e.g. the same
    federation with fewer lists), in alternating rounds as paired_web: once a player's pages are full (a page of
    games, the newest lists), what a page costs must not depend on the lists kept."""
    web = paired_web([("first", other, None), ("last", url, last)], args)
    print()
    print(
        f"web medians (ms), {database_name(other)} against {database_name(url)} ({web['requests']} requests a page "
        f"each, alternating rounds, mean load {web['load']:.1f})"
    )
    print(f"{'page':40} {database_name(other):>22} {database_name(url):>22} {'ratio':>7}  met ({TARGET_GROWTH}x)?")
    for page, median in web["first"].items():
        this = web["last"][page]
        ratio = this / median
        print(f"{page:40} {median:>22.1f} {this:>22.1f} {ratio:>7.2f}  {'yes' if ratio <= TARGET_GROWTH else 'NO'}")


if __name__ == "__main__":
    main()
