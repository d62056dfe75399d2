"""Benchmark: import 100,000 memberships from CSV (target < 10 s, a bad line named, nothing written;
DESIGN.md Targets, issue 35).

Run from the repository root:

    python bench/memberships.py                     # a fresh SQLite file under /tmp (migrated first)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_memberships python bench/memberships.py

Registers 100,000 players (bulk, not timed), writes a CSV of one membership each, then prints the wall time of
``memberships_import_csv`` for the good file and for the same file with one bad line (refused: the time, the
line named, and the memberships in the table, which must not change).
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_database import prepare_database  # noqa: E402 (needs the repository on sys.path)

FIRST_ID = 30_000_000


def memberships_csv(rows: int) -> bytes:
    categories = ("adult", "junior", "senior", "life")
    lines = ["id_number,category,start,end"]
    for i in range(rows):
        category = categories[i % 4]
        end = "" if category == "life" else "2026-08-31"
        lines.append(f"{FIRST_ID + i},{category},2025-09-{1 + i % 28:02d},{end}")
    return ("\n".join(lines) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    options = parser.parse_args()
    url = prepare_database("bench-memberships-")

    from core.bulk.rows import copy_rows
    from membership.models import CategoryKind, Membership, MembershipCategory
    from membership.services.imports import memberships_import_csv
    from players.models import Federation, Player

    Federation.objects.get_or_create(code="ENG", defaults={"name": "England"})
    for code, kind in (("adult", "annual"), ("junior", "annual"), ("senior", "annual"), ("life", CategoryKind.LIFE)):
        MembershipCategory.objects.get_or_create(federation_id="ENG", code=code, defaults={"name": code, "kind": kind})
    if not Player.objects.filter(id_number=FIRST_ID).exists():
        copy_rows(
            Player,
            ("id_number", "surname", "given_names", "sex", "federation_id", "needs_review", "created_at", "updated_at"),
            ((FIRST_ID + i, f"Bench{i}", "Member", "M", "ENG", False, "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z")
             for i in range(options.rows)),
        )  # fmt: skip
    good = memberships_csv(options.rows)
    bad_line = options.rows // 2 + 2
    lines = good.decode().split("\n")
    lines[bad_line - 1] = lines[bad_line - 1].replace("2025-09-", "2025-13-")
    bad = "\n".join(lines).encode()
    print(f"database: {url.split('@')[-1]}  rows: {options.rows}  file: {len(good) / 1e6:.1f} MB")

    before = Membership.objects.count()
    started = time.perf_counter()
    refused = memberships_import_csv(bad, user=None, federation="ENG", file_name="bad.csv")
    print(f"one bad line: {time.perf_counter() - started:.2f} s, refused: {refused.problems[:1]}, "
          f"memberships written: {Membership.objects.count() - before}")  # fmt: skip

    started = time.perf_counter()
    result = memberships_import_csv(good, user=None, federation="ENG", file_name="good.csv")
    elapsed = time.perf_counter() - started
    print(f"import: {elapsed:.2f} s for {result.written} memberships (target < 10 s) {result.problems[:1]}")


if __name__ == "__main__":
    main()
