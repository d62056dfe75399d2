"""PURE reader of a memberships CSV file (issue 35): rows as values plus every problem named by line.

Header (any order, case ignored): ``id_number``, ``category``, ``start`` (YYYY-MM-DD), optional ``end``.
No Django: ``membership.services.imports`` resolves players and categories and writes, or writes nothing.
"""

from __future__ import annotations

import csv
import datetime
import io
from dataclasses import dataclass

REQUIRED = ("id_number", "category", "start")
COLUMNS = (*REQUIRED, "end")
# Problems named in full before the rest are counted (a file with every line wrong stays readable).
PROBLEMS_SHOWN = 50


@dataclass(frozen=True)
class MembershipRow:
    line: int
    id_number: int
    category: str
    start: datetime.date
    end: datetime.date | None


@dataclass(frozen=True)
class Problem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


def read_memberships(data: bytes) -> tuple[list[MembershipRow], list[Problem]]:
    """Every row of the file and every problem (an empty problem list: the file can be imported)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return [], [Problem(0, f"the file is not UTF-8 text (byte {error.start})")]
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if not header:
        return [], [Problem(1, "the file is empty; the first line names the columns " + ", ".join(COLUMNS))]
    names = [name.strip().lower() for name in header]
    missing = [name for name in REQUIRED if name not in names]
    if missing:
        return [], [Problem(1, f"the header lacks the column(s) {', '.join(missing)} (expected {', '.join(COLUMNS)})")]
    at = {name: names.index(name) for name in COLUMNS if name in names}
    rows: list[MembershipRow] = []
    problems: list[Problem] = []
    for line, values in enumerate(reader, start=2):
        if not any(value.strip() for value in values):
            continue
        row = _row(line, values, at, problems)
        if row is not None:
            rows.append(row)
    return rows, problems


def _row(line: int, values: list[str], at: dict[str, int], problems: list[Problem]) -> MembershipRow | None:
    width = len(values)
    raw_id, category, raw_start, raw_end = (
        values[at[name]].strip() if name in at and at[name] < width else "" for name in COLUMNS
    )
    if raw_id.isascii() and raw_id.isdigit() and len(raw_id) <= 18 and category:
        try:  # the common case, checked at once (100,000 lines a few seconds: issue 35)
            start = datetime.date.fromisoformat(raw_start)
            end = datetime.date.fromisoformat(raw_end) if raw_end else None
            if end is None or end >= start:
                return MembershipRow(line, int(raw_id), category, start, end)
        except ValueError:
            pass
    if not (raw_id.isascii() and raw_id.isdigit() and len(raw_id) <= 18):
        problems.append(Problem(line, f"id_number {raw_id[:30]!r} is not an ID number (digits only)"))
    if not category:
        problems.append(Problem(line, "the category is empty"))
    first = _date(line, "start", raw_start, problems, required=True)
    last = _date(line, "end", raw_end, problems, required=False)
    if first is not None and last is not None and last < first:
        problems.append(Problem(line, f"end {last} is before start {first}"))
    return None


def _date(line: int, name: str, raw: str, problems: list[Problem], *, required: bool) -> datetime.date | None:
    if not raw:
        if required:
            problems.append(Problem(line, f"the {name} date is empty (YYYY-MM-DD)"))
        return None
    try:
        return datetime.date.fromisoformat(raw)
    except ValueError:
        problems.append(Problem(line, f"{name} {raw[:30]!r} is not a date (YYYY-MM-DD)"))
        return None


def problems_text(problems: list[Problem]) -> list[str]:
    shown = [str(problem) for problem in problems[:PROBLEMS_SHOWN]]
    if len(problems) > PROBLEMS_SHOWN:
        shown.append(f"... and {len(problems) - PROBLEMS_SHOWN} more problems")
    return shown
