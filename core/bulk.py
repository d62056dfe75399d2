"""Bulk reads and writes for millions of rows, for any model: COPY on PostgreSQL (psycopg 3), plain SQL elsewhere.

One behaviour on every database:

- :func:`copy_rows` inserts rows (tuples in the order of ``fields``) into a model's table. On PostgreSQL it is
  one ``COPY ... FROM STDIN (FORMAT BINARY)``; elsewhere (the embedded SQLite default) one INSERT run with
  ``executemany`` per batch. Like ``bulk_create`` it does not call ``save()`` or send signals, so callers
  fill derived columns themselves; field defaults are filled as the ORM would.
- :func:`copy_columns` is :func:`copy_rows` for data that is already in columns (NumPy arrays): the
  publication's entries and rating changes. On PostgreSQL NumPy writes COPY's binary format itself, a chunk
  of rows at a time: each chunk becomes one byte image with every value at its widest (a row per line of a
  2-D array), and one boolean mask drops what a row does not use (the bytes of NULLs, the unused width of
  short text), which leaves the rows in order, each as COPY reads it. Only long documents (JSON) are joined
  row by row in Python. No Python object is made per value: formatting a two-million-row list with psycopg's
  ``write_row`` cost the client more than the server needed to store the rows, so the server waited for it.
  Elsewhere the columns become Python values and go through copy_rows.
- :class:`BatchWriter` inserts or upserts (``INSERT ... ON CONFLICT DO UPDATE``) batch after batch of rows
  whose values are already what the database driver takes (the FIDE list import: players and entries).
- :func:`read_columns` reads some columns of a queryset into NumPy arrays. On PostgreSQL the query runs inside
  ``COPY (...) TO STDOUT (FORMAT BINARY)`` with every column cast to a fixed width and NULL replaced by a
  sentinel, so each row has the same size and NumPy reads the whole answer with one ``frombuffer`` (no Python
  object per value); text columns come in COPY's text format, split without a Python loop per row. Elsewhere
  ``values_list``.
- :func:`reserve_ids` takes primary keys from a table's sequence, so rows written by COPY (which returns no
  keys) can be referred to by the next rows.

All run on the caller's connection, inside the caller's transaction.

copy_columns' conventions for the columns (what the publication's arrays hold): NaN in a float array and NaT in
a date array are NULL, and so is None in an object array; a float array written to an integer column is
rounded to whole numbers. Text and JSON columns are object arrays or lists of str (JSON as its text, see
JsonText).

PostgreSQL binary COPY (documentation, "COPY", Binary Format): an 11-byte signature, a 32-bit flags field
and a 32-bit header extension length; then per row a 16-bit field count and per field a 32-bit length (-1:
NULL) followed by that many bytes in the type's send format (big-endian integers and floats, dates as days
since 2000-01-01, text as UTF-8, jsonb as a version byte 1 then the text, json as the text); a 16-bit -1 ends
the data.
"""

from __future__ import annotations

import datetime
import json
import struct
from collections.abc import Iterable, Sequence
from contextlib import contextmanager, nullcontext
from itertools import islice
from typing import NamedTuple

import numpy as np
from django.core.exceptions import EmptyResultSet
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections, models
from django.db.models import QuerySet
from django.utils import timezone

BATCH_SIZE = 5000
CHUNK_ROWS = 16384  # values per array when read_columns sends rows in chunks (chunk_by)


class JsonText(str):
    """A JSON document already written as text, for a JSON column in copy_rows: sent as it is (no parse and
    dump round trip for millions of documents). Other values of JSON columns are Python objects."""


def _dumps_json(value) -> str:
    # psycopg's JSON dumper for copy_rows' cursor: every JSON value arrives as JsonText (_json_text)
    return value if isinstance(value, JsonText) else json.dumps(value, cls=DjangoJSONEncoder)


# What read_columns returns for each kind of column, and what stands for NULL.
#   int64 / int32 / int16: NULL -> the ``null`` value given (default 0)
#   float64: NULL -> NaN;  bool: NULL -> False;  date: datetime64[D], NULL -> NaT
#   text: an object array of str, NULL -> None (read in COPY's text format, so all columns of that read are)
#   ("chars", n): text of at most n characters (a varchar(n) column: codes, titles, sex) read in the binary
#   format as n character codes, so the other columns stay binary too; an object array, NULL -> None
KINDS = ("int64", "int32", "int16", "float64", "bool", "date", "text", "chars")
_PG_CAST = {"int64": "int8", "int32": "int4", "int16": "int2", "float64": "float8", "bool": "bool"}
_PG_WIDTH = {"int64": 8, "int32": 4, "int16": 2, "float64": 8, "bool": 1, "date": 4}
# the binary form of each kind's fixed-width expression (read_columns' chunk_by)
_SEND = {
    "int64": "int8send",
    "int32": "int4send",
    "int16": "int2send",
    "float64": "float8send",
    "bool": "boolsend",
    "date": "int4send",
}
_BIG_ENDIAN = {"int64": ">i8", "int32": ">i4", "int16": ">i2", "float64": ">f8", "bool": "?", "date": ">i4"}
# PostgreSQL counts days from 2000-01-01; NumPy from 1970-01-01.
_PG_EPOCH_DAYS = (datetime.date(2000, 1, 1) - datetime.date(1970, 1, 1)).days
_NULL_DATE = -(2**31)
_NULL_INT = -(2**63)  # stands for NULL while an integer column travels (replaced by the caller's ``null``)
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_COPY_HEADER = len(_COPY_SIGNATURE) + 8  # signature, flags, header extension length (0)

# Binary COPY sends each value in the column's own type; these are the type names psycopg knows.
_PG_TYPES = {
    "AutoField": "int4",
    "BigAutoField": "int8",
    "BigIntegerField": "int8",
    "BooleanField": "bool",
    "CharField": "text",
    "DateField": "date",
    "DateTimeField": "timestamptz",
    "FloatField": "float8",
    "IntegerField": "int4",
    "PositiveIntegerField": "int4",
    "PositiveSmallIntegerField": "int2",
    "SmallIntegerField": "int2",
    "TextField": "text",
}


def _is_postgresql(using: str) -> bool:
    return connections[using].vendor == "postgresql"


def _field(model: type[models.Model], name: str) -> models.Field:
    """A concrete field by name or attname (``player`` and ``player_id`` both name the foreign key)."""
    for field in model._meta.concrete_fields:
        if name in (field.name, field.attname):
            return field
    raise ValueError(f"{model.__name__} has no column {name!r}")


def _pg_type(field: models.Field, connection) -> str:
    if isinstance(field, models.ForeignKey):
        return _pg_type(field.target_field, connection)  # the target's type
    internal = field.get_internal_type()
    if internal == "JSONField":
        return str(field.db_type(connection))  # jsonb, or json (ratings.fields.GameLinesField)
    try:
        pg_type = _PG_TYPES[internal]
    except KeyError:
        raise ValueError(f"copy_rows: no COPY type for {field.model.__name__}.{field.name} ({internal})") from None
    return pg_type


_INTEGER_TYPES = ("int2", "int4", "int8")


def _copy_types(connection, fields: Sequence[models.Field], table: str) -> list[str]:
    """The binary COPY types of ``fields`` in ``table``: the model's (_pg_type), except that an integer column is
    written in the width the table gives it (the entries' list and player: 4 bytes where the model's key is a
    bigint, ratings 0017); binary COPY refuses a value of another width."""
    types = [_pg_type(field, connection) for field in fields]
    if not any(pg_type in _INTEGER_TYPES for pg_type in types):
        return types
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, typname FROM pg_attribute JOIN pg_type ON pg_type.oid = atttypid "
            "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped AND typname IN ('int2', 'int4', 'int8')",
            [connection.ops.quote_name(table)],
        )
        physical = dict(cursor.fetchall())
    return [
        physical.get(field.column, pg_type) if pg_type in _INTEGER_TYPES else pg_type
        for field, pg_type in zip(fields, types, strict=True)
    ]


def copy_rows(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence],
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
    model, columns: list[models.Field], rows, using: str, batch_size: int, table: str | None = None
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


def _column_names(connection, columns: Sequence[models.Field]) -> str:
    return ", ".join(connection.ops.quote_name(field.column) for field in columns)


def _insert_statement(
    connection, model: type[models.Model], columns: Sequence[models.Field], table: str | None = None
) -> str:
    """``INSERT INTO <model's table, or table> (<columns>) VALUES (%s, ...)``: one row's statement, for
    executemany."""
    target = connection.ops.quote_name(table or model._meta.db_table)
    return f"INSERT INTO {target} ({_column_names(connection, columns)}) VALUES ({', '.join(['%s'] * len(columns))})"


def _copy_statement(connection, table: str, columns: Sequence[models.Field]) -> str:
    """``COPY <table> (<columns>) FROM STDIN`` (text format; binary callers add the option)."""
    return f"COPY {connection.ops.quote_name(table)} ({_column_names(connection, columns)}) FROM STDIN"


def _db_value_function(field: models.Field, connection):
    """value -> what the database driver gets, as the ORM's INSERT would send it."""
    prepare = field.get_db_prep_save
    if field.get_internal_type() == "JSONField":
        return lambda value: value if isinstance(value, JsonText) else prepare(value, connection)
    return lambda value: prepare(value, connection)


# Fields whose conversion (get_db_prep_save) leaves the int, float, str, bool and None of _python_values as they
# are on SQLite (an integer field's int(), a char field's str(), ...).
_DRIVER_READY = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "BigIntegerField",
        "BooleanField",
        "CharField",
        "FloatField",
        "IntegerField",
        "PositiveBigIntegerField",
        "PositiveIntegerField",
        "PositiveSmallIntegerField",
        "SmallAutoField",
        "SmallIntegerField",
        "TextField",
    }
)


def _driver_ready(field: models.Field) -> bool:
    """Whether copy_columns sends _python_values' values of ``field`` as they are (see _DRIVER_READY)."""
    if isinstance(field, models.ForeignKey):
        return _driver_ready(field.target_field)
    # (Django's own field classes only: a project's field may convert differently)
    return type(field).__module__.startswith("django.db.models.") and field.get_internal_type() in _DRIVER_READY


def _defaults(model, columns: list[models.Field]) -> tuple[list[models.Field], tuple]:
    """The columns ``rows`` leave out that the ORM would fill (field defaults, auto_now / auto_now_add), with
    their values: COPY, unlike bulk_create, only knows the database's own defaults."""
    given = {field.attname for field in columns}
    extra, values = [], []
    now = timezone.now()
    for field in model._meta.concrete_fields:
        if field.attname in given or field.primary_key:
            continue
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            value = now
        else:
            value = field.get_default()  # the field's default, "" for text, None otherwise
            if value is None:
                continue  # NULL, or the database refuses the row (as it would refuse the ORM's INSERT)
        extra.append(field)
        values.append(value)
    return extra, tuple(values)


def _is_json(field: models.Field) -> bool:
    return field.get_internal_type() == "JSONField"


def _json_text(field: models.Field, value) -> JsonText:
    """A JSON column's value as the ORM would store it (the field's get_prep_value, e.g. GameLinesField's)."""
    if isinstance(value, JsonText):
        return value
    return JsonText(json.dumps(field.get_prep_value(value), cls=getattr(field, "encoder", None) or DjangoJSONEncoder))


def _json_rows(rows: Iterable[Sequence], json_columns: list[tuple[int, models.Field]]):
    for row in rows:
        row = list(row)
        for i, field in json_columns:
            row[i] = _json_text(field, row[i])
        yield row


def _copy_rows_postgresql(
    model, columns: list[models.Field], rows: Iterable[Sequence], using: str, table: str | None = None
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
    connection,
    model: type[models.Model],
    columns: list[models.Field],
    *,
    json_dumps: bool = False,
    table: str | None = None,
):
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


class BatchWriter:
    """``INSERT`` (or, given ``conflict``, ``INSERT ... ON CONFLICT (conflict) DO UPDATE SET update``) of
    batch after batch of rows, each a tuple in the order of ``fields`` of values the database driver takes
    (dates, aware datetimes as ``connection.ops.adapt_datetimefield_value`` gives them, bools).

    The ORM's bulk_create spends about 0.4 ms per object building SQL (measured: 9 of 14 s for 10,000 list
    rows). Here SQLite runs one prepared statement for every row (``executemany``) and PostgreSQL a COPY
    (executemany would be a round trip per row, and multi-row VALUES spend 200 µs per row quoting parameters in
    Python); an upsert copies into a temporary table first. Columns not given get the model's defaults, as
    with copy_rows, so a field added later with a default needs no change in the callers.
    """

    def __init__(
        self,
        model: type[models.Model],
        fields: Sequence[str],
        *,
        conflict: Sequence[str] = (),
        update: Sequence[str] = (),
        compare: Sequence[str] = (),
        using: str = "default",
    ) -> None:
        """``compare``: on a conflict, update the row only when one of these fields differs (a row left as it
        was is not rewritten, nor its indexes)."""
        connection = connections[using]
        given = [_field(model, name) for name in fields]
        extra, defaults = _defaults(model, given)
        columns = given + extra
        self.using = using
        self.table = model._meta.db_table
        self.staging = f"import_{self.table}"
        self.columns = _column_names(connection, columns)
        self.copy_target = _copy_statement(connection, self.staging if conflict else self.table, columns)
        self.defaults = tuple(
            field.get_db_prep_save(value, connection) for field, value in zip(extra, defaults, strict=True)
        )
        self.tail = ""
        self.conflict = conflict
        quote = connection.ops.quote_name
        if conflict:
            targets = _column_names(connection, [_field(model, name) for name in conflict])
            updated = [_column_names(connection, [_field(model, name)]) for name in update]
            changes = ", ".join(f"{column} = EXCLUDED.{column}" for column in updated)
            self.tail = f" ON CONFLICT ({targets}) DO UPDATE SET {changes}"
            if compare:
                differs = "IS DISTINCT FROM" if connection.vendor == "postgresql" else "IS NOT"  # NULL-safe
                compared = [_column_names(connection, [_field(model, name)]) for name in compare]
                self.tail += " WHERE " + " OR ".join(
                    f"{quote(self.table)}.{column} {differs} EXCLUDED.{column}" for column in compared
                )
        self.compare = compare
        self.tail_update = tuple(update)
        self.insert = _insert_statement(connection, model, columns) + self.tail
        self.model = model
        self.given, self.extra = given, extra

    def write(self, rows: list[tuple], returning: Sequence[str] = ()) -> list[tuple]:
        """Write ``rows``. ``returning`` (PostgreSQL upserts only): for every row written, the values of those
        fields and whether the row was inserted (True) or updated (False)."""
        if not rows:
            return []
        connection = connections[self.using]
        if returning and (connection.vendor != "postgresql" or not self.tail):
            raise ValueError("BatchWriter.write(returning=...) is for PostgreSQL upserts only")
        # raw COPY bypasses Django's cursor wrapper: its errors as Django's (IntegrityError, OperationalError)
        with connection.wrap_database_errors, connection.cursor() as cursor:
            if connection.vendor != "postgresql":  # SQLite: one prepared statement for every row
                cursor.executemany(self.insert, [row + self.defaults for row in rows])
                return []
            return self._copy(connection, cursor.cursor, rows, returning)

    def write_columns(self, columns: Sequence[np.ndarray], returning: Sequence[str] = ()) -> list[np.ndarray]:
        """:meth:`write` for rows given as columns (equal-length arrays in the order of ``fields``, with
        copy_columns' conventions: NaN / None are NULL, text as str or UTF-8 bytes (``S`` arrays),
        timestamps as datetime64 in UTC). On PostgreSQL NumPy writes COPY's binary format (encode_rows) and
        ``returning`` comes back as arrays through ``COPY (INSERT ... RETURNING ...) TO``: the values of
        those fields (int64) and whether each row was inserted (bool), in no particular order; elsewhere
        the columns become rows for :meth:`write`."""
        count = len(columns[0]) if len(columns) else 0
        if not count:
            return [np.zeros(0, dtype=np.int64) for _ in returning] + ([np.zeros(0, dtype=bool)] if returning else [])
        connection = connections[self.using]
        if connection.vendor != "postgresql":
            python = [_python_values(field, column) for field, column in zip(self.given, columns, strict=True)]
            self.write(list(zip(*python, strict=True)), returning)  # (returning: refused there)
            return []
        if returning and not self.tail:
            raise ValueError("BatchWriter.write_columns(returning=...) is for upserts only")
        quote = connection.ops.quote_name
        table, staging = quote(self.table), quote(self.staging)
        with connection.wrap_database_errors, connection.cursor() as cursor:
            raw = cursor.cursor
            if self.tail:
                raw.execute(
                    f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} ON COMMIT DROP AS "
                    f"SELECT {self.columns} FROM {table} WITH NO DATA"
                )
                raw.execute(f"TRUNCATE {staging}")
            self._copy_binary(connection, raw, self.copy_target, columns)
            if not self.tail:
                return []
            upsert = f"INSERT INTO {table} ({self.columns}) SELECT {self.columns} FROM {staging}{self.tail}"
            if not returning:
                raw.execute(upsert)
                return []
        # xmax is 0 on a row version this statement inserted (see _copy)
        names = [quote(str(_field(self.model, name).column)) for name in returning]
        kinds = ["int64"] * len(returning)
        if not self.compare:
            written = ", ".join(f"{name}::int8" for name in names)
            return _copy_out_binary(connection, f"{upsert} RETURNING {written}, (xmax = 0)", None, [*kinds, "bool"])
        # A row left as it was is not returned by the upsert: its values are read from the table in the same
        # statement, one index probe per row (a subquery per row: never a join planned as a scan of the whole
        # table); the table as it was before the upsert, which held that row already.
        if tuple(self.conflict) != tuple(returning[:1]) or len(self.conflict) != 1:
            raise ValueError("BatchWriter.write_columns: with compare, returning starts with the one conflict field")
        key = names[0]
        written = ", ".join(f"{name}::int8" for name in names)
        looked_up = ", ".join(
            f"(SELECT t.{name} FROM {table} AS t WHERE t.{key} = s.{key})::int8" for name in names[1:]
        )
        return _copy_out_binary(
            connection,
            f"WITH written AS ({upsert} RETURNING {written}, (xmax = 0)) SELECT * FROM written UNION ALL "
            f"SELECT s.{key}::int8, {looked_up}, false FROM {staging} AS s "
            f"WHERE NOT EXISTS (SELECT FROM written WHERE written.{key} = s.{key})",
            None,
            [*kinds, "bool"],
        )

    def _copy_binary(self, connection, raw, target: str, columns: Sequence[np.ndarray]) -> None:
        """Binary COPY of the rows given as ``columns`` (the ``fields``; the defaults added) by ``target``
        (a ``COPY ... FROM STDIN`` statement naming every column)."""
        count = len(columns[0])
        fields = [*self.given, *self.extra]
        values: list = [*columns, *(_constant(value, count) for value in self.defaults)]
        types = [_pg_type(field, connection) for field in fields]
        names = [f"{self.model.__name__}.{field.name}" for field in fields]
        with raw.copy(target + " (FORMAT BINARY)") as copy:
            copy.write(_SIGNATURE)
            for start in range(0, count, ENCODE_ROWS):
                stop = min(start + ENCODE_ROWS, count)
                copy.write(encode_rows([column[start:stop] for column in values], types, names))
            copy.write(_TRAILER)

    def _copy(self, connection, raw, rows: list[tuple], returning: Sequence[str] = ()) -> list[tuple]:
        quote = connection.ops.quote_name
        table, staging = quote(self.table), quote(self.staging)
        if self.tail:
            raw.execute(
                f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} ON COMMIT DROP AS "
                f"SELECT {self.columns} FROM {table} WITH NO DATA"
            )
            raw.execute(f"TRUNCATE {staging}")
        with raw.copy(self.copy_target) as copy:
            defaults = self.defaults
            for row in rows:
                copy.write_row(row + defaults)
        if not self.tail:
            return []
        upsert = f"INSERT INTO {table} ({self.columns}) SELECT {self.columns} FROM {staging}{self.tail}"
        if not returning:
            raw.execute(upsert)
            return []
        # xmax is 0 on a row version this statement inserted; an updated row carries the updating transaction's id
        names = ", ".join(quote(_field(self.model, name).column) for name in returning)
        raw.execute(f"{upsert} RETURNING {names}, (xmax = 0)")
        return raw.fetchall()


class StagedUpsert:
    """An upsert of many batches of rows done once, as a whole, at the end: each batch is copied into a
    temporary table (no index; on PostgreSQL binary COPY, no WAL), and :meth:`finish` updates the rows whose
    key is registered (one join, only the rows that differ from the table's), inserts the others and returns
    every row's key and primary key (one join).

    Against :class:`BatchWriter`'s upsert per batch (FIDE list import, 1.93 M rows): no row lock is taken on a
    row left as it was (PostgreSQL's ``ON CONFLICT DO UPDATE ... WHERE`` locks the row it leaves), no look-up
    per row, and the number of new rows is known before they are written. When they are at least
    ``rebuild_at`` and at least as many as the rows the table has (a first load), the table's secondary
    indexes are dropped, the rows inserted, and the indexes built again from the whole table (a sorted build)
    instead of being maintained row by row. On PostgreSQL the table's unique and foreign-key constraints go
    the same way (one validating join per foreign key instead of a check per row at commit); that takes an
    ACCESS EXCLUSIVE lock on the table (and on the tables its foreign keys refer to) until the caller's
    transaction ends: readers of those tables wait meanwhile (docs/operations.md, FIDE list import). On SQLite
    (where readers see the database as it was, or wait for the one writer, whatever the writer does) the
    unique constraints written in the table's definition stay, and so do the foreign keys.

    ``fields`` starts with ``key``, a unique column; ``update`` and ``compare`` as for BatchWriter.
    """

    def __init__(
        self,
        model: type[models.Model],
        fields: Sequence[str],
        *,
        key: str,
        update: Sequence[str],
        compare: Sequence[str],
        rebuild_at: int | None = None,
        using: str = "default",
    ) -> None:
        if not fields or fields[0] != key:
            raise ValueError("StagedUpsert: fields start with the key")
        self.writer = BatchWriter(model, fields, conflict=(key,), update=update, compare=compare, using=using)
        self.using = using
        self.model = model
        self.key = key
        self.rebuild_at = rebuild_at
        self.staging = f"stage_{model._meta.db_table}"
        self.staged = 0
        self.rebuilt = False  # finish() dropped and rebuilt the table's indexes

    def add_columns(self, columns: Sequence[np.ndarray]) -> None:
        """Stage one batch of rows (columns in the order of ``fields``, as BatchWriter.write_columns takes
        them). A key must not come twice over all the batches."""
        if not len(columns) or not len(columns[0]):
            return
        connection = connections[self.using]
        quote = connection.ops.quote_name
        writer = self.writer
        staging = quote(self.staging)
        with connection.wrap_database_errors, connection.cursor() as cursor:
            if not self.staged:  # (one left by an import that failed inside a caller's transaction: emptied)
                if connection.vendor == "postgresql":
                    cursor.execute(
                        f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} ON COMMIT DROP AS "
                        f"SELECT {writer.columns} FROM {quote(writer.table)} WITH NO DATA"
                    )
                    cursor.execute(f"TRUNCATE {staging}")
                else:
                    cursor.execute(
                        f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} AS "
                        f"SELECT {writer.columns} FROM {quote(writer.table)} WHERE 0"
                    )
                    cursor.execute(f"DELETE FROM {staging}")
            if connection.vendor == "postgresql":
                target = f"COPY {staging} ({writer.columns}) FROM STDIN"
                writer._copy_binary(connection, cursor.cursor, target, columns)
            else:
                python = [_python_values(field, column) for field, column in zip(writer.given, columns, strict=True)]
                defaults = writer.defaults
                cursor.executemany(
                    _insert_statement(connection, self.model, [*writer.given, *writer.extra], self.staging),
                    [row + defaults for row in zip(*python, strict=True)],
                )
        self.staged += len(columns[0])

    def finish(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Write the staged rows; returns (key, primary key) of every staged row, in no particular order, and
        the number of rows inserted."""
        if not self.staged:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
        connection = connections[self.using]
        postgresql = connection.vendor == "postgresql"
        quote = connection.ops.quote_name
        writer = self.writer
        table, staging = quote(writer.table), quote(self.staging)
        key = _column_names(connection, [_field(self.model, self.key)])
        pk = _column_names(connection, [self.model._meta.pk])
        missing = f"NOT EXISTS (SELECT 1 FROM {table} AS t WHERE t.{key} = s.{key})"
        with connection.wrap_database_errors, connection.cursor() as cursor:
            # (autovacuum never analyses temporary tables; SQLite plans the joins with the key's index)
            if postgresql:
                cursor.execute(f"ANALYZE {staging}")
            cursor.execute(f"SELECT count(*) FROM {staging} AS s WHERE {missing}")
            new = cursor.fetchone()[0]
            rebuild = False
            if self.rebuild_at is not None and new >= self.rebuild_at:
                cursor.execute(f"SELECT count(*) FROM {table}")
                rebuild = new >= cursor.fetchone()[0]
            compared = [_column_names(connection, [_field(self.model, name)]) for name in writer.compare]
            updated = [_column_names(connection, [_field(self.model, name)]) for name in writer.tail_update]
            differs = "IS DISTINCT FROM" if postgresql else "IS NOT"  # NULL-safe
            changed = " OR ".join(f"t.{column} {differs} s.{column}" for column in compared) or "1 = 1"
            update = (
                f"UPDATE {table} AS t SET {', '.join(f'{column} = s.{column}' for column in updated)} "
                f"FROM {staging} AS s WHERE t.{key} = s.{key} AND ({changed})"
            )
            columns = writer.columns
            insert = f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {staging} AS s WHERE {missing}"
            dropped = _secondary_indexes_dropped if postgresql else _sqlite_indexes_dropped
            # (dropped before the update: a table with foreign-key checks pending cannot be altered)
            with dropped(cursor, writer.table) if rebuild else nullcontext():
                if new < self.staged:
                    cursor.execute(update)
                if new:
                    # (a row another session registered meanwhile is updated; PostgreSQL's rebuild holds the
                    # table locked, without the unique index ON CONFLICT needs)
                    cursor.execute(insert if rebuild and postgresql else insert + writer.tail)
                created = max(cursor.rowcount, 0) if new else 0
            self.rebuilt = rebuild
        if postgresql:
            keys, ids = _copy_out_binary(
                connection,
                f"SELECT s.{key}::int8, t.{pk}::int8 FROM {staging} AS s JOIN {table} AS t ON t.{key} = s.{key}",
                None,
                ["int64", "int64"],
            )
        with connection.wrap_database_errors, connection.cursor() as cursor:
            if not postgresql:
                cursor.execute(f"SELECT s.{key}, t.{pk} FROM {staging} AS s JOIN {table} AS t ON t.{key} = s.{key}")
                parts = [np.zeros((0, 2), dtype=np.int64)]
                while rows := cursor.fetchmany(ENCODE_ROWS):  # (a tuple per row: a chunk at a time)
                    parts.append(np.array(rows, dtype=np.int64).reshape(-1, 2))
                pairs = np.concatenate(parts)
                keys, ids = pairs[:, 0].copy(), pairs[:, 1].copy()
            cursor.execute(f"DROP TABLE {staging}")  # (its space, at once; a second upsert makes its own)
        return keys, ids, created


@contextmanager
def _sqlite_indexes_dropped(cursor, table: str):
    """SQLite: drop ``table``'s indexes created by CREATE INDEX (not the unique constraints of its definition)
    and create them again, as they were, after the block."""
    cursor.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s AND sql IS NOT NULL", [table]
    )
    indexes = cursor.fetchall()
    for name, _ in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    yield
    for _, definition in indexes:
        cursor.execute(definition)


@contextmanager
def _secondary_indexes_dropped(cursor, table: str):
    """Drop ``table``'s indexes but its primary key, its unique constraints no foreign key refers to and its
    foreign keys; recreate them all as they were (the catalog's own definitions) after the block. PostgreSQL;
    the caller's transaction holds ACCESS EXCLUSIVE on the table until it ends (taken first: no other session
    writes a row between the caller's statements in the block, which do without the unique constraints)."""
    quoted = '"' + table.replace('"', '""') + '"'
    cursor.execute(f"LOCK TABLE {quoted} IN ACCESS EXCLUSIVE MODE")
    cursor.execute(
        "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = %s::regclass AND NOT i.indisprimary "
        "AND NOT EXISTS (SELECT FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid) "
        "ORDER BY 1",
        [table],
    )
    indexes = cursor.fetchall()
    cursor.execute(
        "SELECT k.conname, k.contype, pg_get_constraintdef(k.oid) FROM pg_constraint k "
        "WHERE k.conrelid = %s::regclass AND (k.contype = 'f' OR (k.contype = 'u' AND NOT EXISTS "
        "(SELECT FROM pg_constraint r WHERE r.contype = 'f' AND r.conindid = k.conindid AND r.confrelid = k.conrelid)))"
        " ORDER BY k.contype DESC, 1",  # unique constraints first: a foreign key may refer to the table itself
        [table],
    )
    constraints = cursor.fetchall()
    # A table with foreign-key checks pending (rows written earlier in the transaction) cannot be altered:
    # those checks are made now, and the constraints deferred again after.
    cursor.execute(
        "SELECT quote_ident(conname), condeferred FROM pg_constraint WHERE contype = 'f' AND condeferrable "
        "AND (conrelid = %s::regclass OR confrelid = %s::regclass) ORDER BY 1",
        [table, table],
    )
    deferrable = cursor.fetchall()
    if deferrable:
        cursor.execute(f"SET CONSTRAINTS {', '.join(name for name, _ in deferrable)} IMMEDIATE")
    for name, _, _ in constraints:
        cursor.execute(f'ALTER TABLE {quoted} DROP CONSTRAINT "{name}"')
    for name, _ in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    yield
    # sorts of two million keys in memory (SET LOCAL: until the transaction ends)
    cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
    for _, definition in indexes:
        cursor.execute(definition)
    for name, _, definition in constraints:
        cursor.execute(f'ALTER TABLE {quoted} ADD CONSTRAINT "{name}" {definition}')
    if deferred := [name for name, initially_deferred in deferrable if initially_deferred]:
        cursor.execute(f"SET CONSTRAINTS {', '.join(deferred)} DEFERRED")


def read_columns(
    queryset: QuerySet,
    columns: dict[str, str | tuple[str, int]],
    *,
    using: str | None = None,
    chunk_by: str | None = None,
) -> dict[str, np.ndarray]:
    """The values of ``columns`` (ORM lookups, e.g. ``"white__player_id"``) of ``queryset`` as NumPy arrays.

    ``columns`` maps each lookup to its kind (see KINDS), or to ``(kind, null)`` for an integer column whose
    NULL should read as ``null`` instead of 0. Rows come in the queryset's order. One query.

    ``chunk_by`` (PostgreSQL, no text columns): an integer column of ``columns`` whose values are dense (a
    primary key). The database then packs the rows' binary values into one bytea per CHUNK_ROWS values of
    that column (string_agg of int8send(...) || ..., GROUP BY key / CHUNK_ROWS): the client receives a
    hundred COPY rows instead of a million (each costs it a few microseconds, more than the database spends
    on a simple join) and reads each chunk with one frombuffer. Rows come in no particular order.
    """
    for lookup, spec in columns.items():
        kind = spec[0] if isinstance(spec, tuple) else spec
        if kind == "chars" and not (isinstance(spec, tuple) and spec[1] >= 1):
            raise ValueError(f"read_columns: {lookup!r}: give the most characters, e.g. ('chars', 3)")
        if kind not in KINDS:
            raise ValueError(f"read_columns: {lookup!r} has unknown kind {kind!r} (one of {', '.join(KINDS)})")
    if chunk_by is not None and chunk_by not in columns:
        raise ValueError(f"read_columns: chunk_by {chunk_by!r} must be one of the columns read")
    using = using or queryset.db
    lookups = list(columns)
    if not _is_postgresql(using):
        return _read_columns_orm(queryset, columns, lookups)
    return _read_columns_postgresql(queryset, columns, lookups, using, chunk_by)


def _spec(spec) -> tuple[str, int]:
    return spec if isinstance(spec, tuple) else (spec, 0)


def _read_columns_orm(queryset: QuerySet, columns: dict, lookups: list[str]) -> dict[str, np.ndarray]:
    rows = list(queryset.values_list(*lookups))
    values = list(zip(*rows, strict=True)) if rows else [() for _ in lookups]
    out = {}
    for lookup, column in zip(lookups, values, strict=True):
        kind, null = _spec(columns[lookup])
        if kind == "float64":
            out[lookup] = np.array([np.nan if v is None else v for v in column], dtype=np.float64)
        elif kind == "date":
            out[lookup] = np.array(
                [np.datetime64("NaT") if v is None else v for v in column], dtype="datetime64[D]"
            ).reshape(-1)
        elif kind == "bool":
            out[lookup] = np.array([bool(v) for v in column], dtype=bool)
        elif kind in ("text", "chars"):
            out[lookup] = np.array(column, dtype=object).reshape(-1)
        else:
            out[lookup] = np.array([null if v is None else v for v in column], dtype=kind)
    return out


def _read_columns_postgresql(queryset: QuerySet, columns: dict, lookups: list[str], using: str, chunk_by: str | None):
    connection = connections[using]
    try:
        sql, params = queryset.values_list(*lookups).query.sql_with_params()
    except EmptyResultSet:  # e.g. .none() or filter(id__in=[]): no query to run
        return _read_columns_orm(queryset.none(), columns, lookups)
    aliases = ", ".join(f"c{i}" for i in range(len(lookups)))
    specs = [_spec(columns[lookup]) for lookup in lookups]
    if any(kind == "text" for kind, _ in specs):
        select = f"SELECT * FROM ({sql}) AS q({aliases})"
        kinds = ["text" if kind == "chars" else kind for kind, _ in specs]
        values = _copy_out_text(connection, select, params, kinds)
    else:
        expressions, kinds = [], []
        for i, (kind, extra) in enumerate(specs):
            if kind == "chars":  # the length (-1: NULL), then each character's code (0 past the end)
                expressions.append(f"COALESCE(char_length(c{i}), -1)::int4")
                expressions += [f"COALESCE(ascii(substr(c{i}, {k}, 1)), 0)::int4" for k in range(1, extra + 1)]
                kinds += ["int32"] * (extra + 1)
            else:
                expressions.append(_fixed_width(f"c{i}", kind, extra))
                kinds.append(kind)
        if chunk_by is None:
            select = f"SELECT {', '.join(expressions)} FROM ({sql}) AS q({aliases})"
            flat = iter(_copy_out_binary(connection, select, params, kinds))
        else:
            named = ", ".join(f"{expression} AS a{k}" for k, expression in enumerate(expressions))
            key = f"c{lookups.index(chunk_by)}"
            packed = " || ".join(f"{_SEND[kind]}(a{k})" for k, kind in enumerate(kinds))
            select = (
                f"SELECT string_agg({packed}, ''::bytea) FROM (SELECT {named}, {key} AS chunk_key "
                f"FROM ({sql}) AS q({aliases})) AS r GROUP BY chunk_key / {CHUNK_ROWS}"
            )
            flat = iter(_copy_out_packed(connection, select, params, kinds))
        values = [
            _characters(next(flat), [next(flat) for _ in range(extra)]) if kind == "chars" else next(flat)
            for kind, extra in specs
        ]
    out = {}
    for lookup, (kind, null), column in zip(lookups, specs, values, strict=True):
        if kind in ("int64", "int32", "int16"):
            column = np.where(column == _NULL_INT, null, column).astype(kind)
        out[lookup] = column
    return out


def _characters(lengths: np.ndarray, codes: list[np.ndarray]) -> np.ndarray:
    """Strings from per-row lengths and character codes, each distinct string built once. The codes of a row
    are packed into one integer key (a sort of one integer column, not of rows)."""
    if not lengths.size:
        return np.zeros(0, dtype=object)
    key = lengths.astype(np.int64) + 1  # 0: NULL
    bits = max(int(max(code.max() for code in codes)).bit_length(), 1)
    if bits * len(codes) + int(key.max()).bit_length() <= 63:
        for code in codes:
            key = (key << bits) | code.astype(np.int64)
    else:  # wide characters in long values: dense ranks, one character at a time
        for code in codes:
            values, rank = np.unique(code, return_inverse=True)
            _, key = np.unique(key * values.size + rank.reshape(-1), return_inverse=True)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    strings = [
        None if lengths[i] < 0 else "".join(chr(code[i]) for code in codes[: lengths[i]]) for i in first.tolist()
    ]
    return np.array(strings, dtype=object)[inverse.reshape(-1)]


def _fixed_width(column: str, kind: str, null: int) -> str:
    """A SELECT expression giving ``column`` as a never-NULL value of a fixed binary width."""
    if kind == "float64":
        return f"COALESCE({column}::float8, 'NaN'::float8)"
    if kind == "date":
        return f"COALESCE(({column} - DATE '2000-01-01'), {_NULL_DATE})::int4"
    if kind == "bool":
        return f"COALESCE({column}, false)"
    return f"COALESCE({column}, {int(null)})::{_PG_CAST[kind]}"


def _copy_out_packed(connection, select: str, params, kinds: list[str]) -> list[np.ndarray]:
    """Run ``COPY (select) TO STDOUT (FORMAT BINARY)`` where each row is one bytea of packed fixed-width
    records (the columns' send functions, concatenated), into one NumPy array per column."""
    data = _copy_out(connection, f"COPY ({select}) TO STDOUT (FORMAT BINARY)", params)
    if not data.startswith(_COPY_SIGNATURE):
        raise RuntimeError("read_columns: PostgreSQL did not answer in COPY's binary format")
    record = np.dtype([(f"value{i}", _BIG_ENDIAN[kind]) for i, kind in enumerate(kinds)])
    chunks, at = [], _COPY_HEADER
    while struct.unpack_from(">h", data, at)[0] != -1:  # a row's field count; -1 is the trailer
        (size,) = struct.unpack_from(">i", data, at + 2)
        if size % record.itemsize:
            raise RuntimeError(f"read_columns: {size} bytes are not whole records of {record.itemsize}")
        chunks.append(np.frombuffer(data, dtype=record, count=size // record.itemsize, offset=at + 6))
        at += 6 + size
    table = np.concatenate(chunks) if chunks else np.zeros(0, dtype=record)
    return [_native(table[f"value{i}"], kind) for i, kind in enumerate(kinds)]


def _native(values: np.ndarray, kind: str) -> np.ndarray:
    """Big-endian values as COPY sends them -> a native array of the kind (dates: datetime64[D], NaT)."""
    if kind == "date":
        days = values.astype(np.int64)
        dates = (days + _PG_EPOCH_DAYS).astype("datetime64[D]")
        dates[days == _NULL_DATE] = np.datetime64("NaT")
        return dates
    return values.astype(kind)  # native byte order, contiguous


def _copy_out_binary(connection, select: str, params, kinds: list[str]) -> list[np.ndarray]:
    """Run ``COPY (select) TO STDOUT (FORMAT BINARY)``, every column a fixed width, into NumPy arrays."""
    data = _copy_out(connection, f"COPY ({select}) TO STDOUT (FORMAT BINARY)", params)
    if not data.startswith(_COPY_SIGNATURE):
        raise RuntimeError("read_columns: PostgreSQL did not answer in COPY's binary format")
    dtype = [("fields", ">i2")]
    for i, kind in enumerate(kinds):
        dtype += [(f"length{i}", ">i4"), (f"value{i}", _BIG_ENDIAN[kind])]
    record = np.dtype(dtype)
    body = len(data) - _COPY_HEADER - 2  # the trailer is a field count of -1
    count, rest = divmod(body, record.itemsize)
    if rest:
        raise RuntimeError(f"read_columns: {body} bytes are not whole rows of {record.itemsize} bytes")
    table = np.frombuffer(data, dtype=record, count=count, offset=_COPY_HEADER)
    if count and (
        (table["fields"] != len(kinds)).any()
        or any((table[f"length{i}"] != _PG_WIDTH[kind]).any() for i, kind in enumerate(kinds))
    ):
        raise RuntimeError("read_columns: a row does not have the fixed width expected (a NULL slipped through?)")
    return [_native(table[f"value{i}"], kind) for i, kind in enumerate(kinds)]


_TEXT_ESCAPES = {"\\\\": "\\", "\\t": "\t", "\\n": "\n", "\\r": "\r", "\\b": "\b", "\\f": "\f", "\\v": "\v"}


def _unescape(value: str):
    """One field of COPY's text format: \\N is NULL; backslash sequences stand for control characters."""
    if value == "\\N":
        return None
    if "\\" not in value:
        return value
    out, i = [], 0
    while i < len(value):
        pair = value[i : i + 2]
        if pair in _TEXT_ESCAPES:
            out.append(_TEXT_ESCAPES[pair])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def _copy_out_text(connection, select: str, params, kinds: list[str]) -> list[np.ndarray]:
    """Run ``COPY (select) TO STDOUT`` (text format) and split it into columns with C-level string and list
    operations (a Python loop per value only for a column holding backslash sequences)."""
    text = _copy_out(connection, f"COPY ({select}) TO STDOUT", params).decode("utf-8")
    width = len(kinds)
    fields = text.replace("\n", "\t").split("\t") if text else [""]
    fields.pop()  # after the last row's newline
    if len(fields) % width:
        raise RuntimeError(f"read_columns: {len(fields)} text fields are not whole rows of {width}")
    escaped = "\\" in text  # NULL is \N; control characters in a value are backslash sequences
    del text
    out = []
    for i, kind in enumerate(kinds):
        column = fields[i::width]
        if kind == "text":
            if escaped and any("\\" in value for value in column):
                column = [_unescape(value) for value in column]
            out.append(np.array(column, dtype=object).reshape(-1))
            continue
        if escaped and "\\N" in column:
            missing = {"bool": "f", "float64": "NaN", "date": "NaT"}.get(kind, str(_NULL_INT))
            column = [missing if value == "\\N" else value for value in column]
        if kind == "bool":
            out.append(np.array(column, dtype="U1") == "t")
        elif kind == "float64":
            out.append(np.array(column, dtype=np.float64).reshape(-1))
        elif kind == "date":
            out.append(np.array(column, dtype="datetime64[D]").reshape(-1))
        else:
            out.append(np.array(column, dtype=np.int64).reshape(-1))
    return out


def _copy_out(connection, statement: str, params) -> bytes:
    chunks = []
    # Raw psycopg COPY bypasses Django's cursor wrapper: wrap its errors so a lost connection is
    # django.db.OperationalError, which the publication tasks retry (ratings/tasks.py RETRY).
    with connection.wrap_database_errors, connection.cursor() as cursor:
        with cursor.cursor.copy(statement, params or None) as copy:
            for chunk in copy:
                chunks.append(bytes(chunk))
    return b"".join(chunks)


def reserve_ids(model: type[models.Model], count: int, *, using: str = "default") -> np.ndarray:
    """``count`` new primary keys for ``model``, taken from its sequence, so rows written with copy_rows can
    be referred to (COPY returns no keys). On PostgreSQL nextval() (other sessions never get them); on SQLite
    the table's AUTOINCREMENT counter is moved past them inside the caller's transaction."""
    connection = connections[using]
    table = model._meta.db_table
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    if connection.vendor == "postgresql":
        column = model._meta.pk.column
        select = "SELECT nextval(pg_get_serial_sequence(%s, %s))::int8 FROM generate_series(1, %s)"
        return _copy_out_binary(connection, select, [table, column, int(count)], ["int64"])[0]
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT MAX("{model._meta.pk.column}") FROM "{table}"')
        top = cursor.fetchone()[0] or 0
        cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
        row = cursor.fetchone()
        first = max(top, row[0] if row else 0) + 1
        last = first + count - 1
        if row:
            cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [last, table])
        else:
            cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, last])
    return np.arange(first, last + 1, dtype=np.int64)


# --- copy_columns: rows given column by column (NumPy arrays) ----------------------------------------------

ENCODE_ROWS = 20_000  # rows per byte image in copy_columns (memory: rows x widest row, a few MB)
_SIGNATURE = _COPY_SIGNATURE + struct.pack(">ii", 0, 0)  # no flags, no header extension
_TRAILER = struct.pack(">h", -1)
_NULL = struct.pack(">i", -1)
# integer send formats and the values they hold
_INTEGERS = {
    "int2": (">i2", -(2**15), 2**15 - 1),
    "int4": (">i4", -(2**31), 2**31 - 1),
    "int8": (">i8", None, None),
}
_WIDTH = {"int2": 2, "int4": 4, "int8": 8, "float8": 8, "bool": 1, "date": 4, "timestamptz": 8}
_DOCUMENTS = ("json", "jsonb")  # joined row by row (long)
_NONE = np.array(None, dtype=object)  # compared with an object array: which values are None (NULL)


def copy_columns(
    model: type[models.Model],
    columns: dict[str, np.ndarray | Sequence],
    *,
    using: str = "default",
    table: str | None = None,
) -> int:
    """Insert one row per position of the ``columns`` (field names or attnames -> equal-length arrays) into
    ``model``'s table (or ``table``, one shaped like it: a list's partition, ratings.services.entry_storage);
    columns left out get the ORM's defaults, as with copy_rows. Returns the number of rows."""
    fields = [_field(model, name) for name in columns]
    lengths = {len(values) for values in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"copy_columns: the columns of {model.__name__} differ in length ({sorted(lengths)})")
    count = lengths.pop() if lengths else 0
    if not count:
        return 0
    extra, defaults = _defaults(model, fields)
    values = list(columns.values()) + [np.full(count, value, dtype=object) for value in defaults]
    fields += extra
    connection = connections[using]
    if connection.vendor != "postgresql":
        # One INSERT run for every row of a chunk. The numbers, text and booleans _python_values gives are
        # what the driver takes: only the other columns (dates, JSON, ...) go through the field's conversion,
        # which for a list of 1.3 M entries cost more than SQLite spent storing them (get_db_prep_save per value).
        prepare = [None if _driver_ready(field) else _db_value_function(field, connection) for field in fields]
        statement = _insert_statement(connection, model, fields, table)
        with connection.cursor() as cursor:
            for start in range(0, count, ENCODE_ROWS):  # converted a chunk at a time (memory bounded by the chunk)
                chunk = [
                    _python_values(field, column[start : start + ENCODE_ROWS])
                    for field, column in zip(fields, values, strict=True)
                ]
                chunk = [
                    python if convert is None else [convert(value) for value in python]
                    for convert, python in zip(prepare, chunk, strict=True)
                ]
                cursor.executemany(statement, list(zip(*chunk, strict=True)))
        return count
    types = _copy_types(connection, fields, table or model._meta.db_table)
    values = [
        [v if v is None or isinstance(v, str) else _json_text(field, v) for v in column] if _is_json(field) else column
        for field, column in zip(fields, values, strict=True)
    ]
    # documents last: each row is then its fixed part (one slice of the chunk's image) and its documents
    order = sorted(range(len(fields)), key=lambda i: types[i] in _DOCUMENTS)
    fields, types, values = [fields[i] for i in order], [types[i] for i in order], [values[i] for i in order]
    names = [f"{model.__name__}.{field.name}" for field in fields]
    with copy_in(connection, model, fields, table=table) as copy:  # a chunk is sent while the next is encoded
        copy.write(_SIGNATURE)
        for start in range(0, count, ENCODE_ROWS):
            stop = min(start + ENCODE_ROWS, count)
            copy.write(encode_rows([column[start:stop] for column in values], types, names))
        copy.write(_TRAILER)
    return count


class _Encoded(NamedTuple):
    lengths: np.ndarray  # bytes of each row's value; -1: NULL
    data: np.ndarray  # uint8 (rows, widest): each row's bytes, left-aligned


def encode_rows(columns: list, types: list[str], names: list[str]) -> bytes:
    """The rows of ``columns`` (equal lengths; PostgreSQL type names in ``types``, documents last) in COPY's
    binary format, without the signature and trailer."""
    n = len(columns[0])
    documents = [i for i, pg_type in enumerate(types) if pg_type in _DOCUMENTS]
    fixed = [
        _encode(column, pg_type, name)
        for column, pg_type, name in zip(columns, types, names, strict=True)
        if pg_type not in _DOCUMENTS
    ]
    width = 2 + sum(4 + column.data.shape[1] for column in fixed)
    image = np.empty((n, width), dtype=np.uint8)
    keep = None  # every byte of the image is kept unless a column has NULLs or short values
    image[:, :2] = np.frombuffer(struct.pack(">h", len(types)), dtype=np.uint8)
    at = 2
    for column in fixed:
        w = column.data.shape[1]
        image[:, at : at + 4] = column.lengths.astype(">i4").view(np.uint8).reshape(n, 4)
        image[:, at + 4 : at + 4 + w] = column.data
        used = np.maximum(column.lengths, 0)
        if w and (used < w).any():
            if keep is None:
                keep = np.ones((n, width), dtype=bool)
            keep[:, at + 4 : at + 4 + w] = np.arange(w) < used[:, None]
        at += 4 + w
    if keep is None:
        packed = image.reshape(-1)
        row_ends = np.arange(1, n + 1) * width
    else:
        packed = image[keep]  # row-major: each row's kept bytes, rows in order
        row_ends = np.cumsum(keep.sum(axis=1))
    if not documents:
        return packed.tobytes()
    # each row: its fixed part, then its documents
    fixed_bytes = packed.tobytes()
    texts = [_documents(columns[i], types[i]) for i in documents]
    pieces = []
    start = 0
    for row, end in enumerate(row_ends.tolist()):
        pieces.append(fixed_bytes[start:end])
        pieces.extend(text[row] for text in texts)
        start = end
    return b"".join(pieces)


def _documents(values, pg_type: str) -> list[bytes]:
    """Each JSON document as a field: length, (jsonb: the version byte), UTF-8 text; NULL for None."""
    version = b"\x01" if pg_type == "jsonb" else b""
    out = []
    for value in values:
        if value is None:
            out.append(_NULL)
            continue
        payload = version + value.encode()
        out.append(struct.pack(">i", len(payload)) + payload)
    return out


def _constant(value, count: int) -> np.ndarray:
    """A column of ``count`` times one value as the driver takes it (a datetime as datetime64 in UTC)."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.UTC).replace(tzinfo=None)
        return np.full(count, np.datetime64(value, "us"))
    return np.full(count, value, dtype=object)


def _encode(values, pg_type: str, name: str) -> _Encoded:
    if pg_type == "text":
        return _encode_text(values)
    n = len(values)
    width = _WIDTH.get(pg_type)
    if width is None:
        raise ValueError(f"copy_columns: {name}: no binary encoding for {pg_type}")
    array = np.asarray(values)
    if pg_type == "timestamptz":  # datetime64 in UTC: microseconds since 2000-01-01 00:00 UTC; NaT is NULL
        micros = array.astype("datetime64[us]")
        null = np.isnat(micros)
        raw = np.where(null, 0, micros.astype(np.int64) - _PG_EPOCH_DAYS * 86_400_000_000).astype(">i8")
        lengths = np.where(null, -1, 8).astype(np.int32)
        return _Encoded(lengths, np.ascontiguousarray(raw).view(np.uint8).reshape(n, 8))
    if pg_type == "date":
        days = array.astype("datetime64[D]")
        null = np.isnat(days)
        raw = np.where(null, 0, days.astype(np.int64) - _PG_EPOCH_DAYS).astype(">i4")
    elif array.dtype == object:  # Python values (ORM defaults): None is NULL
        null = np.equal(array, _NONE)
        kind = bool if pg_type == "bool" else np.float64
        encoded = _encode(np.where(null, kind(0), array).astype(kind), pg_type, name)
        return encoded._replace(lengths=np.where(null, -1, encoded.lengths).astype(np.int32))
    elif pg_type == "bool":
        null = np.zeros(n, dtype=bool)
        raw = array.astype(np.uint8)
    elif pg_type == "float8":
        null = np.isnan(array) if array.dtype.kind == "f" else np.zeros(n, dtype=bool)
        raw = np.where(null, 0.0, array).astype(">f8")
    else:
        big_endian, low, high = _INTEGERS[pg_type]
        if array.dtype.kind == "f":
            null = np.isnan(array)
            whole = np.rint(np.where(null, 0.0, array)).astype(np.int64)
        else:
            null = np.zeros(n, dtype=bool)
            whole = array.astype(np.int64)
        if low is not None and high is not None and whole.size and (whole.min() < low or whole.max() > high):
            bad = whole[(whole < low) | (whole > high)][0]
            raise ValueError(f"copy_columns: {name}: {bad} does not fit a {pg_type} column ({low}..{high})")
        raw = whole.astype(big_endian)
    lengths = np.where(null, -1, width).astype(np.int32)
    return _Encoded(lengths, np.ascontiguousarray(raw).view(np.uint8).reshape(n, width))


def _encode_text(values) -> _Encoded:
    """UTF-8 text: ASCII rows straight from their UCS-4 codes (one array operation), others one by one. A
    NumPy bytes (``S``) array is taken as UTF-8 already, as it is (no NULL; no NUL inside a value)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        n, width = len(values), values.dtype.itemsize
        data = np.ascontiguousarray(values).view(np.uint8).reshape(n, width)
        return _Encoded(np.count_nonzero(data, axis=1).astype(np.int32), data)
    objects = np.asarray(values, dtype=object)
    null = np.equal(objects, _NONE)
    strings = np.where(null, "", objects).astype(str)  # fixed-width UCS-4, NUL-padded
    n = strings.size
    chars = strings.dtype.itemsize // 4
    codes = strings.view(np.uint32).reshape(n, chars) if chars else np.zeros((n, 0), dtype=np.uint32)
    lengths = np.count_nonzero(codes, axis=1)  # text holds no NUL (PostgreSQL refuses it)
    wide = np.flatnonzero((codes >= 128).any(axis=1)) if chars else np.zeros(0, dtype=np.int64)
    if not wide.size:
        data = codes.astype(np.uint8)
    else:  # characters beyond ASCII take 2 to 4 bytes: encode those rows in Python
        encoded = {int(i): strings[i].encode() for i in wide}
        widest = max(chars, max(len(b) for b in encoded.values()))
        data = np.zeros((n, widest), dtype=np.uint8)
        data[:, :chars] = codes.astype(np.uint8)
        for i, text in encoded.items():
            data[i, :] = 0
            data[i, : len(text)] = np.frombuffer(text, dtype=np.uint8)
            lengths[i] = len(text)
    return _Encoded(np.where(null, -1, lengths).astype(np.int32), data)


def _python_values(field: models.Field, values) -> list:
    """A column as the Python values the ORM writes (NaN / NaT -> None, floats into integer columns rounded)."""
    if _is_json(field):
        return [None if v is None else v if isinstance(v, JsonText) else _json_text(field, v) for v in values]
    array = np.asarray(values)
    if array.dtype.kind == "S":  # UTF-8 bytes (see _encode_text)
        return [value.decode() for value in array.tolist()]
    if array.dtype.kind == "M":
        return array.astype("datetime64[D]").astype(object).tolist()
    if array.dtype.kind == "f":
        null = np.isnan(array)
        if field.get_internal_type() not in ("FloatField",):
            out = np.rint(np.where(null, 0.0, array)).astype(np.int64).astype(object)
        else:
            out = array.astype(object)
        out[null] = None
        return out.tolist()
    return array.tolist()
