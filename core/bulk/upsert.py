"""BatchWriter (inserts batch after batch) and StagedUpsert, the one staged upsert: rows copied into a
temporary table, then one join updates the rows that differ and one statement inserts the others. A
BatchWriter given ``conflict`` upserts each batch through a StagedUpsert."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any, NamedTuple

import numpy as np
from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper

from core.bulk.columns import ENCODE_ROWS, _constant, write_binary
from core.bulk.fields import (
    _column_names,
    _copy_statement,
    _defaults,
    _field,
    _insert_statement,
    _pg_type,
    _python_values,
)
from core.bulk.indexes import _secondary_indexes_dropped, _sqlite_indexes_dropped
from core.bulk.read import _copy_out_binary


class _Columns(NamedTuple):
    """The columns a writer sends: the fields given, then those the ORM would fill (defaults, auto_now),
    with those defaults as the database driver takes them."""

    given: list[models.Field[Any, Any]]
    extra: list[models.Field[Any, Any]]
    defaults: tuple[Any, ...]
    names: str  # the quoted column names, comma-separated


def _columns(model: type[models.Model], fields: Sequence[str], connection: BaseDatabaseWrapper) -> _Columns:
    given = [_field(model, name) for name in fields]
    extra, defaults = _defaults(model, given)
    prepared = tuple(field.get_db_prep_save(value, connection) for field, value in zip(extra, defaults, strict=True))
    return _Columns(given, extra, prepared, _column_names(connection, given + extra))


class BatchWriter:
    """``INSERT`` (or, given ``conflict``, an upsert: StagedUpsert, one batch at a time) of batch after batch
    of rows, each a tuple in the order of ``fields`` of values the database driver takes (dates, aware
    datetimes as ``connection.ops.adapt_datetimefield_value`` gives them, bools).

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
        """``conflict``: the one unique field (the first of ``fields``) that makes a row an update of the
        registered row; ``update``: the fields such an update sets; ``compare``: update the row only when one
        of these fields differs (a row left as it was is not rewritten, nor its indexes)."""
        connection = connections[using]
        self.using = using
        self.model = model
        self.columns = _columns(model, fields, connection)
        every = [*self.columns.given, *self.columns.extra]
        self.insert = _insert_statement(connection, model, every)
        self.copy_target = _copy_statement(connection, model._meta.db_table, every)
        self.upsert: StagedUpsert | None = None
        if conflict:
            if len(conflict) != 1:
                raise ValueError("BatchWriter: an upsert's conflict is one unique field")
            self.upsert = StagedUpsert(model, fields, key=conflict[0], update=update, compare=compare, using=using)

    def write(self, rows: list[tuple[Any, ...]]) -> None:
        """Write ``rows``: inserted, or with ``conflict`` upserted (staged, then written at once)."""
        if not rows:
            return
        if self.upsert is not None:
            self.upsert.add_rows(rows)
            self.upsert.write()
            return
        connection = connections[self.using]
        defaults = self.columns.defaults
        # raw COPY bypasses Django's cursor wrapper: its errors as Django's (IntegrityError, OperationalError)
        with connection.wrap_database_errors, connection.cursor() as cursor:
            if connection.vendor != "postgresql":  # SQLite: one prepared statement for every row
                cursor.executemany(self.insert, [row + defaults for row in rows])
                return
            with cursor.cursor.copy(self.copy_target) as copy:
                for row in rows:
                    copy.write_row(row + defaults)


class StagedUpsert:
    """An upsert of many batches of rows done once, as a whole, at the end: each batch is copied into a
    temporary table (no index; on PostgreSQL binary COPY, no WAL), and :meth:`finish` updates the rows whose
    key is registered (one join, only the rows that differ from the table's), inserts the others and returns
    every row's key and primary key (one join).

    Against an upsert per row (``INSERT ... ON CONFLICT DO UPDATE`` per batch; FIDE list import, 1.93 M rows):
    no row lock is taken on a row left as it was (PostgreSQL's ``ON CONFLICT DO UPDATE ... WHERE`` locks the
    row it leaves), no look-up per row, and the number of new rows is known before they are written. When they
    are at least ``rebuild_at`` and at least as many as the rows the table has (a first load), the table's
    secondary indexes are dropped, the rows inserted, and the indexes built again from the whole table (a
    sorted build) instead of being maintained row by row. On PostgreSQL the table's unique and foreign-key
    constraints go the same way (one validating join per foreign key instead of a check per row at commit);
    that takes an ACCESS EXCLUSIVE lock on the table (and on the tables its foreign keys refer to) until the
    caller's transaction ends: readers of those tables wait meanwhile (docs/operations.md, FIDE list import).
    On SQLite (where readers see the database as it was, or wait for the one writer, whatever the writer does)
    the unique constraints written in the table's definition stay, and so do the foreign keys.

    ``fields`` starts with ``key``, a unique column; ``update``: the fields an update sets; ``compare``: a
    registered row is updated only when one of these fields differs (none: every registered row is updated).
    """

    def __init__(
        self,
        model: type[models.Model],
        fields: Sequence[str],
        *,
        key: str,
        update: Sequence[str],
        compare: Sequence[str] = (),
        rebuild_at: int | None = None,
        using: str = "default",
    ) -> None:
        if not fields or fields[0] != key:
            raise ValueError("StagedUpsert: fields start with the key")
        connection = connections[using]
        self.using = using
        self.model = model
        self.key = key
        self.update = tuple(update)
        self.compare = tuple(compare)
        self.rebuild_at = rebuild_at
        self.table = model._meta.db_table
        self.columns = _columns(model, fields, connection)
        self.staging = f"stage_{self.table}"
        self.staged = 0
        self.rebuilt = False  # finish() dropped and rebuilt the table's indexes

    def add_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Stage one batch of rows given as tuples of values the database driver takes (as BatchWriter.write
        takes them). A key must not come twice before the rows are written."""
        if not rows:
            return
        connection = connections[self.using]
        defaults = self.columns.defaults
        with connection.wrap_database_errors, connection.cursor() as cursor:
            self._stage(connection, cursor)
            if connection.vendor == "postgresql":
                with cursor.cursor.copy(self._copy_target(connection)) as copy:
                    for row in rows:
                        copy.write_row(row + defaults)
            else:
                cursor.executemany(self._insert_target(connection), [row + defaults for row in rows])
        self.staged += len(rows)

    def add_columns(self, columns: Sequence[np.ndarray[Any, Any]]) -> None:
        """Stage one batch of rows given as columns (equal-length arrays in the order of ``fields``, with
        copy_columns' conventions: NaN / None are NULL, text as str or UTF-8 bytes (``S`` arrays), timestamps
        as datetime64 in UTC). A key must not come twice over all the batches."""
        if not len(columns) or not len(columns[0]):
            return
        connection = connections[self.using]
        given, extra, defaults = self.columns.given, self.columns.extra, self.columns.defaults
        with connection.wrap_database_errors, connection.cursor() as cursor:
            self._stage(connection, cursor)
            if connection.vendor == "postgresql":  # NumPy writes COPY's binary format (encode_rows)
                count = len(columns[0])
                fields = [*given, *extra]
                with cursor.cursor.copy(self._copy_target(connection) + " (FORMAT BINARY)") as copy:
                    write_binary(
                        copy,
                        [*columns, *(_constant(value, count) for value in defaults)],
                        [_pg_type(field, connection) for field in fields],
                        [f"{self.model.__name__}.{field.name}" for field in fields],
                    )
            else:
                python = [_python_values(field, column) for field, column in zip(given, columns, strict=True)]
                cursor.executemany(
                    self._insert_target(connection), [row + defaults for row in zip(*python, strict=True)]
                )
        self.staged += len(columns[0])

    def _stage(self, connection: BaseDatabaseWrapper, cursor: CursorWrapper) -> None:
        """Before the first batch: the temporary table, shaped like the written columns, made or emptied (one
        left by an import that failed inside a caller's transaction, or by the previous write)."""
        if self.staged:
            return
        quote = connection.ops.quote_name
        staging, names, table = quote(self.staging), self.columns.names, quote(self.table)
        if connection.vendor == "postgresql":
            cursor.execute(
                f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} ON COMMIT DROP AS "
                f"SELECT {names} FROM {table} WITH NO DATA"
            )
            cursor.execute(f"TRUNCATE {staging}")
        else:
            cursor.execute(f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} AS SELECT {names} FROM {table} WHERE 0")
            cursor.execute(f"DELETE FROM {staging}")

    def _copy_target(self, connection: BaseDatabaseWrapper) -> str:
        return f"COPY {connection.ops.quote_name(self.staging)} ({self.columns.names}) FROM STDIN"

    def _insert_target(self, connection: BaseDatabaseWrapper) -> str:
        every = [*self.columns.given, *self.columns.extra]
        return _insert_statement(connection, self.model, every, self.staging)

    def write(self) -> int:
        """Write the rows staged so far now (BatchWriter's upsert of each batch) and start a new stage;
        returns the number of rows inserted."""
        if not self.staged:
            return 0
        created = self._write_staged()
        self.staged = 0  # (the next batch empties the temporary table)
        return created

    def finish(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], int]:
        """Write the staged rows; returns (key, primary key) of every staged row, in no particular order, and
        the number of rows inserted (``staged`` still counts the rows staged: the callers' rows updated)."""
        if not self.staged:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
        created = self._write_staged()
        keys, ids = self._staged_keys()
        connection = connections[self.using]
        with connection.wrap_database_errors, connection.cursor() as cursor:
            # (its space, at once; a second upsert makes its own)
            cursor.execute(f"DROP TABLE {connection.ops.quote_name(self.staging)}")
        return keys, ids, created

    def _write_staged(self) -> int:
        """Update the registered rows that differ, insert the others (dropping and rebuilding the table's
        indexes around it for a first load); the number of rows inserted."""
        connection = connections[self.using]
        postgresql = connection.vendor == "postgresql"
        quote = connection.ops.quote_name
        table, staging = quote(self.table), quote(self.staging)
        key = self._column(connection, self.key)
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
            differs = "IS DISTINCT FROM" if postgresql else "IS NOT"  # NULL-safe
            compared = [self._column(connection, name) for name in self.compare]
            changed = " OR ".join(f"t.{column} {differs} s.{column}" for column in compared) or "1 = 1"
            updated = [self._column(connection, name) for name in self.update]
            update = (
                f"UPDATE {table} AS t SET {', '.join(f'{column} = s.{column}' for column in updated)} "
                f"FROM {staging} AS s WHERE t.{key} = s.{key} AND ({changed})"
            )
            columns = self.columns.names
            insert = f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {staging} AS s WHERE {missing}"
            dropped = _secondary_indexes_dropped if postgresql else _sqlite_indexes_dropped
            # (dropped before the update: a table with foreign-key checks pending cannot be altered)
            with dropped(cursor, self.table) if rebuild else nullcontext():
                if new < self.staged:
                    cursor.execute(update)
                if new:
                    # (a row another session registered meanwhile is updated; PostgreSQL's rebuild holds the
                    # table locked, without the unique index ON CONFLICT needs)
                    cursor.execute(insert if rebuild and postgresql else insert + self._on_conflict(connection))
                created = max(cursor.rowcount, 0) if new else 0
            self.rebuilt = rebuild
        return int(created)

    def _column(self, connection: BaseDatabaseWrapper, name: str) -> str:
        return _column_names(connection, [_field(self.model, name)])

    def _on_conflict(self, connection: BaseDatabaseWrapper) -> str:
        """``ON CONFLICT (key) DO UPDATE SET update [WHERE compare differs]``: a row registered by another
        session between the count of the new rows and their insert is updated as the join would have."""
        key = self._column(connection, self.key)
        updated = [self._column(connection, name) for name in self.update]
        tail = f" ON CONFLICT ({key}) DO UPDATE SET {', '.join(f'{column} = EXCLUDED.{column}' for column in updated)}"
        if self.compare:
            differs = "IS DISTINCT FROM" if connection.vendor == "postgresql" else "IS NOT"  # NULL-safe
            table = connection.ops.quote_name(self.table)
            compared = [self._column(connection, name) for name in self.compare]
            tail += " WHERE " + " OR ".join(f"{table}.{column} {differs} EXCLUDED.{column}" for column in compared)
        return tail

    def _staged_keys(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """(key, primary key) of every staged row, read by one join with the table."""
        connection = connections[self.using]
        quote = connection.ops.quote_name
        table, staging = quote(self.table), quote(self.staging)
        key = self._column(connection, self.key)
        pk = _column_names(connection, [self.model._meta.pk])
        if connection.vendor == "postgresql":
            keys, ids = _copy_out_binary(
                connection,
                f"SELECT s.{key}::int8, t.{pk}::int8 FROM {staging} AS s JOIN {table} AS t ON t.{key} = s.{key}",
                None,
                ["int64", "int64"],
            )
            return keys, ids
        with connection.wrap_database_errors, connection.cursor() as cursor:
            cursor.execute(f"SELECT s.{key}, t.{pk} FROM {staging} AS s JOIN {table} AS t ON t.{key} = s.{key}")
            parts = [np.zeros((0, 2), dtype=np.int64)]
            while rows := cursor.fetchmany(ENCODE_ROWS):  # (a tuple per row: a chunk at a time)
                parts.append(np.array(rows, dtype=np.int64).reshape(-1, 2))
        pairs = np.concatenate(parts)
        return pairs[:, 0].copy(), pairs[:, 1].copy()
