"""Model fields of the ratings app."""

from __future__ import annotations

from django.db import models

LINES_COLUMNS, LINES_ROWS = "columns", "rows"


def compact_lines(value):
    """[{k: v, ...}, ...] with the same keys in every line -> {"columns": [k, ...], "rows": [[v, ...], ...]};
    anything else (lines with differing keys, no lines, not a list) is returned as it is."""
    if not isinstance(value, list) or not value or not all(isinstance(line, dict) for line in value):
        return value
    columns = list(value[0])
    if any(list(line) != columns for line in value):
        return value
    return {LINES_COLUMNS: columns, LINES_ROWS: [list(line.values()) for line in value]}


def expand_lines(value):
    """The inverse of compact_lines (a stored plain list is returned as it is)."""
    if isinstance(value, dict) and set(value) == {LINES_COLUMNS, LINES_ROWS}:
        columns = value[LINES_COLUMNS]
        return [dict(zip(columns, row, strict=True)) for row in value[LINES_ROWS]]
    return value


class GameLinesField(models.JSONField):
    """A list of per-game lines (dicts with the same keys), stored as {"columns": [keys], "rows": [[values]]}.

    Each key is written once per document instead of once per game: the rating changes of a FIDE-sized list
    hold two million game lines, and PostgreSQL parses every key it is sent into jsonb (half the time of a
    publication's writes). Python sees the list of dicts either way; a document stored as a plain list (lines
    with differing keys, rows written before) reads as it is.
    """

    def get_prep_value(self, value):
        return super().get_prep_value(compact_lines(value))

    def from_db_value(self, value, expression, connection):
        return expand_lines(super().from_db_value(value, expression, connection))
