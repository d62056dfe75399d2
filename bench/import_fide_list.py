"""Benchmark: import a combined FIDE list (players_list_foa.txt layout) of --rows lines, twice.

Run from the repository root:

    python bench/import_fide_list.py                  # 20,000 rows on a fresh SQLite file under /tmp
    python bench/import_fide_list.py --rows 1930000   # the issue's figure: FIDE's combined list (1.93 M rows)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_import python bench/import_fide_list.py --rows 1930000

The list is generated with ratings.fide_list.write_fide_list_txt into a temporary file (about 40% of the
players rated in standard, 15% in rapid, 12% in blitz, as in FIDE's file). Two imports are timed: the first
creates every player, the second (the next month's list) updates them. For each: wall time, rows per second,
the process's peak RSS so far (resource.getrusage), and the time projected for 1,930,000 rows at that rate
against the targets (issue 17: under 60 s on PostgreSQL, 120 s on SQLite, peak memory under 1 GB). With
--trace, the peak of Python allocations during an import (tracemalloc, measured on a third import because
tracing slows Python down). The list dates are chosen after any list already in the database, so the bench
can run again on the same database. With --profile, where each import's time went (wall seconds per phase,
the reading thread's apart: it runs while the database writes).
"""

import argparse
import collections
import datetime
import functools
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_database import prepare_database  # noqa: E402 (needs the repository on sys.path)

FIDE_ROWS = 1_930_000  # FIDE's combined list (issue 17)
TARGET_SECONDS_POSTGRESQL = 60
TARGET_SECONDS_SQLITE = 120
TARGET_RSS_MB = 1024


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_list(path: Path, rows: int, seed: int) -> None:
    from ratings.fide_list import FideListRating, FideListRow, write_fide_list_txt

    rng = random.Random(seed)
    federations = ["ESP", "GER", "FRA", "IND", "USA", "RUS", "IRL", "NOR", "POL", "ITA", "BRA", "ARG"]
    titles = [("", 0.93), ("FM", 0.03), ("CM", 0.02), ("IM", 0.01), ("GM", 0.01)]

    def rating(share: float) -> FideListRating:
        if rng.random() >= share:
            return FideListRating(None, 0, None)
        value = max(1400, min(2850, int(rng.gauss(1750, 250))))
        k_factor = 10 if value >= 2400 else rng.choice([20, 20, 20, 40])
        return FideListRating(value, rng.choice([0, 0, 0, 4, 9]), k_factor)

    def generate():
        for i in range(rows):
            surname, given = f"Surname{i % 50_000:05d}", f"Given{i:06d}"
            title = rng.choices([t for t, _ in titles], [w for _, w in titles])[0]
            woman = rng.random() < 0.12
            yield FideListRow(
                fide_id=10_000_000 + i * 7,
                name=f"{surname}, {given}",
                surname=surname,
                given_names=given,
                federation=rng.choice(federations),
                sex="F" if woman else "M",
                title=title,
                women_title="",
                other_titles=(),
                foa_title="",
                standard=rating(0.40),
                rapid=rating(0.15),
                blitz=rating(0.12),
                birth_year=rng.randint(1940, 2018),
                flag=("w" if woman else "") + ("i" if rng.random() < 0.3 else ""),
            )

    with open(path, "w", encoding="ascii", newline="") as handle:
        handle.writelines(write_fide_list_txt(generate()))


def first_free_list_date() -> datetime.date:
    from django.db.models import Max

    from ratings.models import RatingList

    latest = RatingList.objects.aggregate(latest=Max("list_date"))["latest"]
    if latest is None:
        return datetime.date(2026, 1, 1)
    return datetime.date(latest.year + (latest.month == 12), latest.month % 12 + 1, 1)


def next_month(day: datetime.date) -> datetime.date:
    return datetime.date(day.year + (day.month == 12), day.month % 12 + 1, 1)


PHASES: collections.Counter[str] = collections.Counter()  # --profile: phase -> seconds in the current import


def timed(owner, name: str, label: str | None = None) -> None:
    """--profile: ``owner.name`` (a function, or a generator function whose items are timed one by one)
    adds its wall time to PHASES[label]."""
    inner = getattr(owner, name)
    label = label or name.strip("_")

    @functools.wraps(inner)
    def wrapper(*args, **kwargs):
        began = time.perf_counter()
        try:
            result = inner(*args, **kwargs)
        finally:
            PHASES[label] += time.perf_counter() - began
        if not hasattr(result, "__next__"):
            return result

        def items():
            while True:
                began = time.perf_counter()
                try:
                    item = next(result)
                except StopIteration:
                    return
                finally:
                    PHASES[label] += time.perf_counter() - began
                yield item

        return items()

    setattr(owner, name, wrapper)


def profile_phases() -> None:
    """--profile: time the import's phases (module-level names the service calls)."""
    from ratings.fide_list import FideListReader
    from ratings.services import entry_storage
    from ratings.services import fide_list_import as service

    timed(FideListReader, "column_batches", "read and parse (reading thread; overlaps the rest)")
    timed(service, "_read_ahead", "wait for the reading thread")
    timed(service._PlayerUpsert, "add", "players staged or written, batch by batch")
    timed(service._PlayerUpsert, "finish", "players written at the end (PostgreSQL)")
    for name in (
        "_first_row_of_each_player",
        "federations_ensure",
        "_player_columns",
        "_entry_columns",
        "_entries_write",
        "list_order",
        "copy_columns",
        "entry_storage_prepare",
        "entry_storage_attach",
        "_lists_complete",
        "_import",
    ):
        if hasattr(service, name):
            timed(service, name)
    del entry_storage


NESTED_PHASES = ("list_order", "copy_columns", "entry_storage_prepare", "entry_storage_attach")  # in _entries_write


def print_phases(total: float) -> None:
    imported = PHASES.pop("import", 0.0)
    reading = [label for label in PHASES if label.startswith("read and parse")]
    for label, seconds in PHASES.items():
        print(f"    {seconds:7.1f} s  {'  ' if label in NESTED_PHASES else ''}{label}")
    counted = sum(s for label, s in PHASES.items() if label not in NESTED_PHASES and label not in reading)
    print(f"    {imported - counted:7.1f} s  rest of _import (ANALYZE of the players, the loop itself)")
    print(f"    {total - imported:7.1f} s  outside _import (first batch, transaction commit, ...)")
    PHASES.clear()


def run_import(path: Path, list_date: datetime.date):
    from ratings.services.fide_list_import import fide_list_import

    began = time.perf_counter()

    def progress(rows: int) -> None:
        print(f"    {rows:>9,} rows read and written at {time.perf_counter() - began:6.1f} s", file=sys.stderr)

    with open(path, "rb") as handle:
        outcome = fide_list_import(handle, list_date=list_date, progress=progress, source_name=path.name)
    return outcome, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000, help="lines of the list (FIDE's: --rows 1930000)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--trace",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also measure the Python allocation peak with tracemalloc (a third import)",
    )
    parser.add_argument(
        "--profile",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="print where each import's time went (seconds per phase)",
    )
    args = parser.parse_args()
    url = prepare_database("bench-import-fide-")
    folder = Path(tempfile.mkdtemp(prefix="bench-fide-list-"))
    path = folder / "players_list_foa.txt"
    began = time.perf_counter()
    write_list(path, args.rows, args.seed)
    print(f"database: {url.split('@')[-1]}")
    print(
        f"list: {args.rows:,} rows, {path.stat().st_size / 1e6:.1f} MB, written in {time.perf_counter() - began:.1f} s"
    )
    rss_before = peak_rss_mb()
    postgresql = url.startswith(("postgres://", "postgresql://"))
    target = TARGET_SECONDS_POSTGRESQL if postgresql else TARGET_SECONDS_SQLITE
    list_date = first_free_list_date()
    if args.profile:
        profile_phases()
    print(
        f"targets at {FIDE_ROWS:,} rows: under {target} s ({'PostgreSQL' if postgresql else 'SQLite'}), "
        f"peak RSS under {TARGET_RSS_MB:,} MB"
    )
    for label in ("first import (players created)", "second import (players updated)"):
        outcome, elapsed = run_import(path, list_date)
        entries = sum(outcome.entries.values())
        rate = outcome.rows / elapsed
        at_scale = FIDE_ROWS / rate
        rss = peak_rss_mb()
        print(
            f"{label:34} {elapsed:7.1f} s  {rate:>9,.0f} rows/s  "
            f"({outcome.players_created:,} created, {outcome.players_updated:,} updated, {entries:,} entries)"
        )
        met = {True: "met", False: "NOT met"}
        scale = "measured" if outcome.rows >= FIDE_ROWS else f"projected at {FIDE_ROWS:,} rows"
        print(
            f"    {scale}: {at_scale:.1f} s (target {target} s: {met[at_scale < target]}); "
            f"peak RSS so far {rss:,.0f} MB (target {TARGET_RSS_MB:,} MB: {met[rss < TARGET_RSS_MB]})"
        )
        if args.profile:
            print_phases(elapsed)
        list_date = next_month(list_date)
    print(f"peak RSS: {peak_rss_mb():,.0f} MB (before the imports: {rss_before:,.0f} MB)")
    if args.trace:
        tracemalloc.start()
        outcome, elapsed = run_import(path, list_date)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"tracemalloc peak during one import: {peak / 2**20:,.1f} MB "
            f"({outcome.rows:,} rows in {elapsed:.1f} s while tracing)"
        )
    path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
