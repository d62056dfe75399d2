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
    hold two million game lines. Python sees the list of dicts either way; a document stored as a plain list (lines
    with differing keys, rows written before) reads as it is.
    """

    def db_type(self, connection):
        # PostgreSQL: json, the document kept as the text written (checked, not decomposed), not jsonb. Nothing
        # queries inside the lines, they are read whole, and jsonb costs twice: parsing every document into
        # its binary tree took 6.8 s of the 10 s a FIDE-sized list spends writing its rating changes (json:
        # 3.7 s), and the tree is larger than the text (1,266 bytes a change against 870).
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def get_prep_value(self, value):
        return super().get_prep_value(compact_lines(value))

    def from_db_value(self, value, expression, connection):
        if value is not None and not isinstance(value, str):  # psycopg parses json (Django reads jsonb as text)
            return expand_lines(value)
        return expand_lines(super().from_db_value(value, expression, connection))
