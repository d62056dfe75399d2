"""The trust command: hostile inputs through the real imports, counted in one table (issues 17 and 20).

Run from the repository root:

    python bench/trust.py [--inputs N] [--seed S] [--fuzz-examples E] [--kills K] [--broker-saves B]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_trust python bench/trust.py      (on PostgreSQL)

Without DATABASE_URL it works on a fresh SQLite file under /tmp (migrated first). Each check is a named
function in ``CHECKS`` that returns one row: inputs tried, unhandled exceptions (a traceback instead of the
project's refusal), inputs that took over 10 s, partial imports (a refused import that left rows behind,
or an accepted one whose rows disagree with its outcome). Target: 0 / 0 / 0. Add a row by appending to
``CHECKS``.

``hostile files``: N inputs (default 10,000) made from the real TRF files in ../shared/data/trf and from
generated FIDE lists (combined TXT, single-type TXT, XML; plain or in a ZIP, whole or damaged), each after
one to six mutations of ``tests/mutations.py`` (line accidents, long tokens, numbers of thousands of
digits, round counts past the field, thousands of rounds, XML declarations of unreadable encodings). Each
goes through the management command an official runs (``import_trf``, ``import_fide_list``: size limit,
archive, service) inside a transaction that is rolled back afterwards, so every input meets the same
database. Inputs that fail a check are written to ``--keep`` (default /tmp/trust-failures) to be replayed.

``API schema fuzzing``: bench/fuzz_api.py (schemathesis, every check, ``--fuzz-examples`` per operation): requests
are the inputs, server errors count as unhandled, conformance failures as partial. ``publication killed``
(PostgreSQL): bench/publication_kills.py (``--kills`` publications killed at random points inside their
transaction, by SIGKILL or by terminating the database session, in the database ``bench_kills`` next to
DATABASE_URL's): partial lists left count as partial, retries that differ from an undisturbed run as unhandled.
``broker down during saves``: bench/broker_outage.py (``--broker-saves`` real saves that queue tasks through the
outbox, made while the broker refuses connections and while it goes down under a real worker, then the
dispatcher run as beat runs it): the saves are the inputs, failed saves and tasks ending in an exception count
as unhandled, tasks lost (a committed save whose task never ran) as partial, saves over 10 s as slow. With
CELERY_BROKER_URL=redis://... the script runs a private redis-server; otherwise the filesystem broker.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SLOW_SECONDS = 10.0
HANG_SECONDS = 120  # an input still running then is stopped (and counted over 10 s)


@dataclass
class Row:
    """One line of the table."""

    check: str
    inputs: int = 0
    unhandled: int = 0
    slow: int = 0
    partial: int = 0
    seconds: float = 0.0
    accepted: int = 0  # of the inputs: imported (the others were refused with a message)
    slowest: float = 0.0  # seconds of the slowest input
    examples: list[str] = field(default_factory=list)  # the first failures, for the report

    def fail(self, what: str) -> None:
        if len(self.examples) < 12:
            self.examples.append(what)


@dataclass(frozen=True)
class Check:
    name: str
    run: Callable[[argparse.Namespace], Row]


# -------------------------------------------------------------------------------------------- hostile files


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def _state(models) -> tuple[int, ...]:
    return tuple(model.objects.count() for model in models)


def hostile_input(rng: random.Random, seeds: dict[str, list[tuple[str, bytes]]]) -> tuple[str, str, bytes, str]:
    """(kind trf|fide, file name, bytes, description) of one mutated input."""
    from tests.mutations import ZIP_DAMAGE, RandomChooser, damage_zip, mutate, zipped

    choose = RandomChooser(rng)
    kind = "trf" if rng.random() < 0.5 else "fide"
    name, seed = rng.choice(seeds[kind])
    data = mutate(choose, seed)
    what = f"{kind} from {name}"
    if kind == "fide" and rng.random() < 0.25:  # the ZIP as FIDE serves it, whole or damaged
        data = zipped(data, method=rng.choice([8, 8, 8, 0, 12, 14]), name=name)
        name = name.rsplit(".", 1)[0] + ".zip"
        if rng.random() < 0.7:
            damage = rng.choice(ZIP_DAMAGE)
            data = damage_zip(data, damage, at=rng.randrange(1 << 16))
            what += f", zipped, {damage}"
        else:
            what += ", zipped"
    return kind, name, data, what


def _import_one(kind: str, path: Path, list_date: str) -> bool:
    """Run the command on ``path``; True when it imported, False when it refused (CommandError)."""
    import io

    from django.core.management import call_command
    from django.core.management.base import CommandError

    out = io.StringIO()
    try:
        if kind == "trf":
            call_command("import_trf", str(path), stdout=out, stderr=out)
        else:
            call_command("import_fide_list", str(path), "--list-date", list_date, "--quiet", stdout=out, stderr=out)
    except CommandError:
        return False
    return True


def _consistent(kind: str, before: tuple[int, ...], after: tuple[int, ...], imported: bool) -> bool:
    """Refused: nothing changed. Imported: exactly one event (TRF), or one to three lists (FIDE)."""
    if not imported:
        return before == after
    if kind == "trf":
        return after[0] == before[0] + 1  # Event
    return 1 <= after[3] - before[3] <= 3  # RatingList


def _import_rolled_back(kind: str, path: Path, models: tuple, row: Row, options: argparse.Namespace) -> str:
    """Import one hostile file in a transaction rolled back afterwards, counting it in ``row``; what went wrong
    ("" when it was imported whole or refused cleanly)."""
    from django.db import transaction

    failure = ""
    with transaction.atomic():
        before = _state(models)
        signal.alarm(HANG_SECONDS)
        try:
            imported = _import_one(kind, path, "2026-10-01")
            signal.alarm(0)
            row.accepted += imported
            if not _consistent(kind, before, _state(models), imported):
                row.partial += 1
                failure = "partial"
        except _Hang:
            failure = f"still running after {HANG_SECONDS} s"
        except Exception as exc:  # what the check looks for: a traceback instead of a refusal
            signal.alarm(0)
            row.unhandled += 1
            failure = f"{type(exc).__name__}: {str(exc)[:160]}"
            if options.verbose:
                traceback.print_exc()
        transaction.set_rollback(True)
    return failure


def run_hostile_files(options: argparse.Namespace) -> Row:

    from events.models import Event, Game, Participant
    from players.models import Federation, Player
    from ratings.models import RatingList, RatingListEntry
    from tests.mutations import fide_list_seeds, trf_seeds

    models = (Event, Participant, Game, RatingList, RatingListEntry, Player, Federation)
    seeds = {
        "trf": [(f"seed{i}.trf", data) for i, data in enumerate(trf_seeds(max_size=40_000))],
        "fide": list(fide_list_seeds().items()),
    }
    row = Row("hostile files (TRF, FIDE lists)")
    keep = Path(options.keep)
    folder = Path(tempfile.mkdtemp(prefix="trust-inputs-"))
    previous = signal.signal(signal.SIGALRM, _alarm)
    started = time.monotonic()
    try:
        for number in range(options.inputs):
            rng = random.Random(options.seed * 1_000_003 + number)
            kind, name, data, what = hostile_input(rng, seeds)
            path = folder / name
            path.write_bytes(data)
            row.inputs += 1
            begun = time.monotonic()
            failure = _import_rolled_back(kind, path, models, row, options)
            elapsed = time.monotonic() - begun
            row.slowest = max(row.slowest, elapsed)
            if elapsed > SLOW_SECONDS:
                row.slow += 1
                failure = failure or f"{elapsed:.1f} s"
            if failure:
                keep.mkdir(parents=True, exist_ok=True)
                kept = keep / f"{options.seed}-{number}-{name}"
                kept.write_bytes(data)
                row.fail(f"input {number} ({what}, {len(data):,} bytes): {failure} -> {kept}")
            path.unlink()
            if options.progress and (number + 1) % 500 == 0:
                print(f"  {number + 1:,} inputs, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    row.seconds = time.monotonic() - started
    return row


# -------------------------------------------------------------------- benchmarks run as processes of their own


def _bench(script: str, *args: str, env: dict[str, str | None] | None = None) -> tuple[int, list[str], float]:
    """Run bench/``script``; ``env`` adds variables to this process's environment (None: removes one)."""
    import os
    import subprocess

    began = time.perf_counter()
    variables = {**os.environ, **(env or {})}
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        cwd=ROOT,
        env={name: value for name, value in variables.items() if value is not None},
        capture_output=True,
        text=True,
    )
    lines = result.stdout.splitlines() + result.stderr.splitlines()[-20:]
    return result.returncode, lines, time.perf_counter() - began


def _figure(lines: list[str], label: str, position: int) -> int | None:
    for line in lines:
        if line.strip().startswith(label):
            return int(line.split()[position].replace(",", ""))
    return None


def run_publication_kills(options: argparse.Namespace) -> Row:
    """bench/publication_kills.py: partial lists left count as partial, retries that differ from the
    undisturbed run as unhandled (PostgreSQL only)."""
    import os

    row = Row("publication killed (SIGKILL, backend terminated)")
    if not options.kills:
        row.fail("skipped (--kills 0)")
        return row
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        row.fail("skipped: needs PostgreSQL (DATABASE_URL=postgres://...)")
        return row
    kills_url = url.rsplit("/", 1)[0] + "/bench_kills"
    _code, lines, row.seconds = _bench(
        "publication_kills.py", "--kills", str(options.kills), env={"DATABASE_URL": kills_url}
    )
    killed = _figure(lines, "publication killed at random points", -1)
    partial = _figure(lines, "partial lists left", 3)
    identical = _figure(lines, "retries identical to the undisturbed run", 6)
    if killed is None or partial is None or identical is None:
        row.unhandled = 1
        row.fail("the benchmark did not finish: " + " / ".join(lines[-5:]))
        return row
    row.inputs, row.partial, row.unhandled, row.accepted = killed, partial, killed - identical, identical
    row.examples += [line.strip() for line in lines if "differs" in line or "entries left" in line][:12]
    return row


def run_schema_fuzzing(options: argparse.Namespace) -> Row:
    """bench/fuzz_api.py: every API operation fuzzed from the OpenAPI schema; server errors count as
    unhandled, conformance failures as partial (the answer is not what the schema promises)."""
    row = Row("API schema fuzzing (schemathesis)")
    if not options.fuzz_examples:
        row.fail("skipped (--fuzz-examples 0)")
        return row
    if not (ROOT / "bench" / "fuzz_api.py").exists():
        row.fail("skipped: bench/fuzz_api.py is not in this checkout")
        return row
    _code, lines, row.seconds = _bench("fuzz_api.py", "--examples", str(options.fuzz_examples))
    summary = next((line for line in lines if line.startswith("schema fuzzing:")), None)
    if summary is None:
        row.unhandled = 1
        row.fail("the fuzzer did not finish: " + " / ".join(lines[-5:]))
        return row
    words = summary.replace(",", "").split()
    row.inputs = int(words[4])  # "schema fuzzing: N operations, R requests in S s: E server errors, F ..."
    row.unhandled, row.partial = int(words[9]), int(words[12])
    row.accepted = row.inputs - row.unhandled
    # What failed: the operation's line, "    N x <check>" under it and the example request that follows.
    for i, line in enumerate(lines):
        if line.startswith("    ") and " x " in line:
            operation = next((lines[j].split()[0:2] for j in range(i - 1, -1, -1) if not lines[j][:1].isspace()), [])
            example = " / ".join(text.strip() for text in lines[i + 1 : i + 8] if text.strip())
            row.fail(f"{' '.join(operation)}: {line.strip()}: {example[:600]}")
    return row


def run_broker_outage(options: argparse.Namespace) -> Row:
    """bench/broker_outage.py: saves made while the broker refuses connections and while it goes down under a
    real worker; the inputs are the saves, unhandled the saves that failed and the tasks that ended in an
    exception, partial the tasks lost (a committed save whose task never ran), slowest the slowest save."""
    import os

    row = Row("broker down during saves (tasks lost as partial)")
    if not options.broker_saves:
        row.fail("skipped (--broker-saves 0)")
        return row
    url = os.environ.get("DATABASE_URL", "")
    # PostgreSQL: the script makes <name>_outage next to it; SQLite: a fresh file of its own.
    database = url if url.startswith(("postgres://", "postgresql://")) else None
    _code, lines, row.seconds = _bench(
        "broker_outage.py", "--saves", str(options.broker_saves), env={"DATABASE_URL": database}
    )
    figures = {
        "saves made": 2,
        "  committed": 1,
        "  failed": 1,
        "  saves over 10 s": 4,
        "tasks lost": 2,
        "  ended in an exception": 4,
    }
    found = {label: _figure(lines, label.strip(), position) for label, position in figures.items()}
    slowest = next((line.split()[-1] for line in lines if line.strip().startswith("slowest save")), None)
    if None in found.values() or slowest is None:
        row.unhandled = 1
        row.fail("the benchmark did not finish: " + " / ".join(lines[-5:]))
        return row
    row.inputs, row.accepted = found["saves made"], found["  committed"]
    row.unhandled = found["  failed"] + found["  ended in an exception"]
    row.partial, row.slow, row.slowest = found["tasks lost"], found["  saves over 10 s"], float(slowest)
    summary = ("broker:", "tasks queued", "sent ", "of them", "run by", "closed by", "duplicates", "webhook", "seconds")
    row.examples += [line.strip() for line in lines if line.strip().startswith(summary)]
    failures = ("outbox row", "task ", "save ", "the worker's log")
    row.examples += [line.strip() for line in lines if line.startswith("  ") and line.strip().startswith(failures)][:12]
    return row


CHECKS: list[Check] = [
    Check("hostile files", run_hostile_files),
    Check("API schema fuzzing", run_schema_fuzzing),
    Check("publication killed", run_publication_kills),
    Check("broker down during saves", run_broker_outage),
]


# -------------------------------------------------------------------------------------------- the table


def table(rows: list[Row]) -> str:
    header = ("check", "inputs tried", "unhandled exceptions", "over 10 s", "partial imports", "slowest", "time")
    lines = [
        (
            row.check,
            f"{row.inputs:,}",
            str(row.unhandled),
            str(row.slow),
            str(row.partial),
            f"{row.slowest:.1f} s",
            f"{row.seconds:.0f} s",
        )
        for row in rows
    ]
    widths = [max(len(cells[i]) for cells in [header, *lines]) for i in range(len(header))]
    out = [" | ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True))]
    out.append("-+-".join("-" * width for width in widths))
    out += [" | ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)) for cells in lines]
    return "\n".join(out)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000, help="hostile files to try (default 10,000)")
    parser.add_argument("--seed", type=int, default=2026, help="the run's seed: the same seed, the same inputs")
    parser.add_argument("--keep", default="/tmp/trust-failures", help="where inputs that fail a check are kept")
    parser.add_argument("--progress", action="store_true", help="a line on stderr every 500 inputs")
    parser.add_argument("--verbose", action="store_true", help="print each unhandled exception's traceback")
    parser.add_argument(
        "--fuzz-examples", type=int, default=300, help="schema fuzzing: examples per API operation (0: skip)"
    )
    parser.add_argument(
        "--kills", type=int, default=20, help="publications killed at random points (PostgreSQL; 0: skip)"
    )
    parser.add_argument("--broker-saves", type=int, default=200, help="saves made while the broker is down (0: skip)")
    return parser.parse_args(argv)


def run_checks(options: argparse.Namespace, checks: list[Check] | None = None) -> list[Row]:
    return [check.run(options) for check in checks or CHECKS]


def main(argv: list[str] | None = None) -> int:
    options = parse_args(argv)
    from bench.bench_database import prepare_database

    url = prepare_database("trust-")
    print(f"database: {url.split('@')[-1]}; seed {options.seed}", file=sys.stderr)
    rows = run_checks(options)
    print(table(rows))
    for row in rows:
        print(f"{row.check}: {row.accepted:,} of {row.inputs:,} inputs accepted, the others refused")
        for example in row.examples:
            print(f"{row.check}: {example}")
    return 0 if all(row.unhandled == row.slow == row.partial == 0 for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
