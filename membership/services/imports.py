"""Memberships imported in bulk from CSV (issue 35): every problem named by line, nothing written if any.

The file is read by the pure ``membership.csv_rows``; players are found by ID number and categories by code
(of the federation the file is for) in a few queries whatever the size; the rows go in by ``core.bulk``
(COPY on PostgreSQL) in one transaction with one audit record (DESIGN.md: bulk data moves in bulk).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from audit.services import Actor, audit_record
from core.bulk.columns import copy_columns
from membership import csv_rows, rules
from membership.models import CategoryKind, Membership, MembershipCategory, MembershipSource
from membership.services.status import season_of
from players.models import Federation, Player

# ID numbers looked up per query (well below SQLite's limit of bound parameters).
_LOOKUP_CHUNK = 10_000
# ``price`` is left empty: the category's price (the CSV says nothing of what was paid).
FIELDS = ("player_id", "category_id", "start", "end", "season", "source")


@dataclass
class MembershipImport:
    """What an import did: rows written, or the problems (by line) that refused the file."""

    written: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return bool(self.problems)


def memberships_import_csv(
    data: bytes, *, user: Actor, federation: str = "", file_name: str = "", source: str = MembershipSource.CSV
) -> MembershipImport:
    """Import memberships from CSV bytes; refused as a whole (nothing written) if any line is wrong."""
    code = (federation or settings.FEDERATION_CODE or "").upper()
    if not Federation.objects.filter(code=code).exists():
        return MembershipImport(
            problems=[f"no federation {code!r}: give the federation whose categories the file uses"]
        )
    rows, problems = csv_rows.read_memberships(data)
    categories = {c.code: c for c in MembershipCategory.objects.filter(federation_id=code)}
    players = _player_ids({row.id_number for row in rows})
    for row in rows:
        if row.id_number not in players:
            problems.append(csv_rows.Problem(row.line, f"no player with ID number {row.id_number}"))
        if row.category not in categories:
            known = ", ".join(sorted(categories)) or "none yet"
            problems.append(csv_rows.Problem(row.line, f"no category {row.category!r} in {code} (known: {known})"))
        elif row.end is None and categories[row.category].kind == CategoryKind.TOURNAMENT:
            problems.append(csv_rows.Problem(row.line, "a tournament membership needs its end date"))
    if problems:
        problems.sort(key=lambda problem: problem.line)
        return MembershipImport(problems=csv_rows.problems_text(problems))
    season = season_of(code)
    values = [_values(row, categories[row.category], players[row.id_number], season, source) for row in rows]
    columns: dict[str, np.ndarray | Sequence[Any]] = {name: [row[i] for row in values] for i, name in enumerate(FIELDS)}
    with transaction.atomic():
        written = copy_columns(Membership, columns)
        audit_record(user, "membership.import", f"memberships CSV {file_name}".strip(),
                     after={"federation": code, "rows": written, "file": file_name})  # fmt: skip
    return MembershipImport(written=written)


def _values(row: csv_rows.MembershipRow, category: MembershipCategory, player_id: int, season: rules.Season,
            source: str) -> tuple:  # fmt: skip
    """A row's column values; the end a category implies when the file gives none (season: its last day;
    life: none; day pass: the same day)."""
    end = row.end
    if end is None and category.kind == CategoryKind.ANNUAL:
        end = season.end_of(row.start)
    elif end is None and category.kind == CategoryKind.DAY:
        end = row.start
    return (player_id, category.pk, row.start, end, season.start_of(row.start).year, source)


def _player_ids(id_numbers: set[int]) -> dict[int, int]:
    """ID number → player pk, by plain SQL in chunks (compiling a 10,000-value IN through the ORM costs more
    than running it)."""
    wanted = sorted(id_numbers)
    found: dict[int, int] = {}
    table = connection.ops.quote_name(Player._meta.db_table)
    with connection.cursor() as cursor:
        for index in range(0, len(wanted), _LOOKUP_CHUNK):
            chunk = wanted[index : index + _LOOKUP_CHUNK]
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(f"SELECT id_number, id FROM {table} WHERE id_number IN ({marks})", chunk)
            found.update(cursor.fetchall())
    return found
