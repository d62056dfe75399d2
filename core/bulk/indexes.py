"""A table's secondary indexes (and on PostgreSQL its unique and foreign-key constraints) dropped for a
bulk insert and built again from the whole table after it (StagedUpsert's first load)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db.backends.utils import CursorWrapper


@contextmanager
def _sqlite_indexes_dropped(cursor: CursorWrapper, table: str) -> Iterator[None]:
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
def _secondary_indexes_dropped(cursor: CursorWrapper, table: str) -> Iterator[None]:
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
