"""Where a list's entries are stored: on PostgreSQL, one partition of the entries table per list.

PostgreSQL (migration ratings 0014): ``ratings_ratinglistentry`` is partitioned by ``rating_list_id``. A list
written in bulk (a publication, a FIDE import) goes through three steps inside the writer's transaction:

1. :func:`entry_storage_prepare` creates the list's own table, ``ratings_ratinglistentry_<list id>``, shaped as
   the entries table but not yet part of it and without indexes: nobody else can see it, and the rows go in
   without index maintenance;
2. the writer copies the rows into :func:`entry_table` (core.bulk.copy_columns / BatchWriter ``table=``);
3. :func:`entry_storage_attach` builds the partition's indexes on the finished rows (compact: built sorted, not
   grown row by row), adds the check that makes PostgreSQL trust the rows (no scan at attach), and attaches the
   table as the list's partition. ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE on the entries table, which
   readers (ACCESS SHARE) and other writers do not wait for, and ACCESS EXCLUSIVE on the default partition until
   commit: call it last, just before the transaction commits.

A publication therefore writes into indexes the size of one list, whatever the number of lists kept, and a page
about one list reads one partition (the planner prunes the others). Rows the ORM writes one at a time (tests,
fixtures) land in the default partition, which keeps the list id in its unique index.

Anything else (SQLite, the embedded default): one plain table; :func:`entry_table` is its name and the other
two steps do nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import OperationalError, connection, transaction

from ratings.models import RatingListEntry

# The partitioned indexes of the entries table (ratings 0014), built on a list's table before it is attached
# so that ATTACH PARTITION adopts them instead of building them under its lock.
_PARTITION_INDEXES = (
    ('"position"', ""),
    ('federation, inactive, "position"', ""),
    ("change", " WHERE change > 0 OR change < 0"),
)


def _partitioned() -> bool:
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = %s::regclass", [RatingListEntry._meta.db_table])
        row = cursor.fetchone()
    return row is not None and row[0] == "p"


def entry_table(rating_list_id: int) -> str:
    """The table a bulk writer copies a list's entries into (unquoted name)."""
    table = RatingListEntry._meta.db_table
    return f"{table}_{int(rating_list_id)}" if _partitioned() else table


def _exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
        row = cursor.fetchone()
    return bool(row and row[0])


def entry_storage_prepare(rating_list_ids: Iterable[int]) -> None:
    """Create each list's own table (PostgreSQL): call in the writing transaction, before writing its entries.

    A list id whose partition already exists (a test database whose sequences were reset) keeps it: rows copied
    into it go straight into the attached partition."""
    if not _partitioned():
        return
    quote = connection.ops.quote_name
    parent = quote(RatingListEntry._meta.db_table)
    with connection.cursor() as cursor:
        for list_id in rating_list_ids:
            name = entry_table(list_id)
            if _exists(name):
                continue
            cursor.execute(f"CREATE TABLE {quote(name)} (LIKE {parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")


def entry_storage_attach(rating_list_ids: Iterable[int]) -> None:
    """Index each list's table and attach it as the list's partition (PostgreSQL), then refresh the planner's
    statistics of that partition alone (ANALYZE of the whole table would read every list kept). Call last in
    the writing transaction."""
    if not _partitioned():
        return
    quote = connection.ops.quote_name
    parent = quote(RatingListEntry._meta.db_table)
    with connection.cursor() as cursor:
        for list_id in rating_list_ids:
            list_id = int(list_id)
            name = entry_table(list_id)
            table = quote(name)
            cursor.execute(
                "SELECT 1 FROM pg_inherits WHERE inhrelid = %s::regclass AND inhparent = %s::regclass",
                [name, RatingListEntry._meta.db_table],
            )
            if cursor.fetchone() is None:
                # fillfactor 100: a list is written once, so its index pages are filled, not left 10% empty
                # for rows that never come (B-tree's default of 90)
                for number, (columns, where) in enumerate(_PARTITION_INDEXES):
                    cursor.execute(
                        f"CREATE INDEX {quote(f'{name}_{number}')} ON {table} ({columns}) WITH (fillfactor = 100)"
                        f"{where}"
                    )
                cursor.execute(
                    f"ALTER TABLE {table} ADD CONSTRAINT {quote(name + '_player')} UNIQUE (player_id) "
                    "WITH (fillfactor = 100)"
                )
                cursor.execute(
                    f"ALTER TABLE {table} ADD CONSTRAINT {quote(name + '_list')} CHECK (rating_list_id = {list_id})"
                )
                cursor.execute(f"ALTER TABLE {parent} ATTACH PARTITION {table} FOR VALUES IN ({list_id})")
            cursor.execute(f"ANALYZE {table}")


def entry_storage_prune(lock_timeout_ms: int = 2000) -> list[str]:
    """Drop the partitions of lists that no longer exist (a draft replaced by the list published in its place:
    its rows went with it, its empty table stayed attached). Returns the tables dropped.

    Dropping a partition locks the entries table (ACCESS EXCLUSIVE) for the instant it takes; inside a
    publication that instant would last until the publication commits, and DETACH ... CONCURRENTLY is refused
    while a default partition exists. So beat runs this on its own (``ratings.prune_entry_partitions``), one
    short transaction per table, each giving up after ``lock_timeout_ms`` rather than queueing readers behind
    it; what it gives up on is dropped on a later run."""
    if not _partitioned():
        return []
    quote = connection.ops.quote_name
    parent = RatingListEntry._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = %s::regclass AND c.relname ~ %s "
            "AND NOT EXISTS (SELECT 1 FROM ratings_ratinglist l WHERE c.relname = %s || '_' || l.id) ORDER BY 1",
            [parent, f"^{parent}_[0-9]+$", parent],
        )
        orphans = [name for (name,) in cursor.fetchall()]
    dropped = []
    for name in orphans:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
                cursor.execute(f"DROP TABLE {quote(name)}")
        except OperationalError:  # a reader held the table: next run
            continue
        dropped.append(name)
    return dropped
