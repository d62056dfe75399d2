"""BatchWriter (inserts batch after batch) and StagedUpsert, the one staged upsert: rows copied into a
temporary table, then one join updates the rows that differ and one statement inserts the others."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

import numpy as np
from django.db import connections, models

from core.bulk.columns import _SIGNATURE, _TRAILER, ENCODE_ROWS, _constant, encode_rows
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
