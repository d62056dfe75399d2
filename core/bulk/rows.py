"""copy_rows: rows (tuples) into a model's table, by binary COPY on PostgreSQL (copy_in), by one INSERT run
with executemany per batch elsewhere."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import TYPE_CHECKING, Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper

from core.bulk.fields import (
    AnyField,
    JsonText,
    _copy_statement,
    _copy_types,
    _db_value_function,
    _defaults,
    _field,
    _insert_statement,
    _is_json,
    _is_postgresql,
    _json_text,
)

if TYPE_CHECKING:
    from psycopg import Copy

BATCH_SIZE = 5000


def copy_rows(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    using: str = "default",
    batch_size: int = BATCH_SIZE,
    table: str | None = None,
) -> int:
    """Insert ``rows`` (each a sequence of values in the order of ``fields``) into ``model``'s table (or
    ``table``, one shaped like it: a list's partition, ratings.services.entry_storage).

    Values are what the ORM stores: ``None`` for NULL, ``datetime.date`` for dates, lists / dicts for JSON
    columns; ``fields`` are field names or attnames (``player`` / ``player_id``). Returns the number of rows.
    The rows are consumed as they come, so a generator keeps memory flat whatever the number of rows.
    """
    columns = [_field(model, name) for name in fields]
    if _is_postgresql(using):
        return _copy_rows_postgresql(model, columns, rows, using, table)
    return _copy_rows_executemany(model, columns, rows, using, batch_size, table)


def _copy_rows_executemany(
    model: type[models.Model],
    columns: list[AnyField],
    rows: Iterable[Sequence[Any]],
    using: str,
    batch_size: int,
    table: str | None = None,
) -> int:
    """One INSERT statement run for every row of a batch (executemany): a fixed number of queries per
    batch_size rows, whatever the width of the rows (bulk_create splits by the database's parameter limit)."""
    connection = connections[using]
    extra, defaults = _defaults(model, columns)
    columns = columns + extra
    statement = _insert_statement(connection, model, columns, table)
    prepare = [_db_value_function(field, connection) for field in columns]
    count = 0
    iterator = iter(rows)
    with connection.cursor() as cursor:
        while batch := list(islice(iterator, batch_size)):
            cursor.executemany(
                statement,
                [[convert(value) for convert, value in zip(prepare, (*row, *defaults), strict=True)] for row in batch],
            )
            count += len(batch)
    return count


def _copy_rows_postgresql(
    model: type[models.Model],
    columns: list[AnyField],
    rows: Iterable[Sequence[Any]],
    using: str,
    table: str | None = None,
) -> int:
    connection = connections[using]
    json_columns = [(i, field) for i, field in enumerate(columns) if _is_json(field)]
    if json_columns:
        rows = _json_rows(rows, json_columns)
    extra, defaults = _defaults(model, columns)
    defaults = tuple(
        _json_text(field, value) if _is_json(field) else value for field, value in zip(extra, defaults, strict=True)
    )
    columns = columns + extra
    types = _copy_types(connection, columns, table or model._meta.db_table)
    count = 0
    with copy_in(connection, model, columns, json_dumps="json" in types or "jsonb" in types, table=table) as copy:
        copy.set_types(types)
        write = copy.write_row
        if defaults:
            for row in rows:
                write((*row, *defaults))
                count += 1
        else:
            for row in rows:
                write(row)
                count += 1
    return count


@contextmanager
def copy_in(
    connection: BaseDatabaseWrapper,
    model: type[models.Model],
    columns: list[AnyField],
    *,
    json_dumps: bool = False,
    table: str | None = None,
) -> Iterator[Copy]:
    """``COPY <model's table, or table> (<columns>) FROM STDIN (FORMAT BINARY)`` on the caller's connection and
    transaction; yields psycopg's Copy (rows by ``write_row``, or ready-made binary data by ``write``).

    Raw psycopg COPY bypasses Django's cursor wrapper: its errors are wrapped so a lost connection is
    django.db.OperationalError, which the publication tasks retry (ratings/tasks.py RETRY). A worker thread
    sends while the caller formats: the server parses and indexes without waiting for the next batch to be
    converted (and formatting never waits for the network). ``json_dumps``: JSON values that are already
    text (JsonText) are sent as they are."""
    from psycopg.copy import QueuedLibpqWriter

    statement = _copy_statement(connection, table or model._meta.db_table, columns) + " (FORMAT BINARY)"
    with connection.wrap_database_errors, connection.cursor() as cursor:
        if json_dumps:
            from psycopg.types.json import set_json_dumps

            set_json_dumps(_dumps_json, context=cursor.cursor)
        with cursor.cursor.copy(statement, writer=QueuedLibpqWriter(cursor.cursor)) as copy:
            yield copy


def _dumps_json(value: Any) -> str:
    # psycopg's JSON dumper for copy_rows' cursor: every JSON value arrives as JsonText (_json_text)
    return value if isinstance(value, JsonText) else json.dumps(value, cls=DjangoJSONEncoder)


def _json_rows(rows: Iterable[Sequence[Any]], json_columns: list[tuple[int, AnyField]]) -> Iterator[list[Any]]:
    for row in rows:
        row = list(row)
        for i, field in json_columns:
            row[i] = _json_text(field, row[i])
        yield row
