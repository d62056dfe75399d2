"""Where a list's entries are stored: on PostgreSQL, one partition of the entries table per list.

PostgreSQL (migration ratings 0014): ``ratings_ratinglistentry`` is partitioned by ``rating_list_id``, one
partition per list, and has no default partition (attaching a partition would lock a default one against readers
until commit). Every list therefore gets its partition when it is created:

- a list written in bulk (a publication, a FIDE import, a simulated starting list) is created inside
  :func:`entry_storage_bulk`; its writer then (1) calls :func:`entry_storage_prepare`, which creates the list's
  own table ``ratings_ratinglistentry_<list id>`` shaped as the entries table but not part of it yet and without
  indexes (nobody else sees it; rows go in without index maintenance), (2) copies the rows into
  :func:`entry_table` (core.bulk.copy_columns / copy_rows ``table=``), (3) calls :func:`entry_storage_attach`,
  which builds the indexes on the finished rows (sorted builds: compact), adds the check that spares PostgreSQL a
  scan, and attaches the table as the list's partition;
- any other list (created by the ORM: the admin, tests) gets an empty partition at once (:func:`on_list_created`,
  connected in ratings.apps), so rows the ORM writes one by one have somewhere to go.

ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE on the entries table: readers (ACCESS SHARE) and writers do not
wait for it; only another attach (a second publication of another type) waits until this one commits.
A publication therefore writes into indexes the size of one list, whatever the number of lists kept, and a page
about one list reads one partition (the planner prunes the others).

Anything else (SQLite, the embedded default): one plain table; :func:`entry_table` is its name and the other
functions do nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import connection

from ratings.models import RatingListEntry

# The partitioned indexes of the entries table (ratings 0014, 0016, 0017), built on a list's table before it is attached
# so that ATTACH PARTITION adopts them instead of building them under its lock.
_PARTITION_INDEXES = (
    ('"position"', ""),
    ('federation, "position"', ""),
    ("change", " WHERE change > 0 OR change < 0"),
)


_bulk: ContextVar[bool] = ContextVar("entry_storage_bulk", default=False)


@contextmanager
def entry_storage_bulk() -> Iterator[None]:
    """Lists created inside are written in bulk: prepared, filled and attached by their writer."""
    token = _bulk.set(True)
    try:
        yield
    finally:
        _bulk.reset(token)


def on_list_created(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    """post_save of RatingList: a list created outside entry_storage_bulk gets its (empty) partition now (also
    when loaded from a fixture: its entries follow)."""
    if created and not _bulk.get():
        entry_storage_prepare([instance.pk])
        entry_storage_attach([instance.pk])


def _partitioned() -> bool:
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = %s::regclass", [RatingListEntry._meta.db_table])
        row = cursor.fetchone()
    return row is not None and row[0] == "p"


def _list_table(rating_list_id: int) -> str:
    """The name of a list's own table on PostgreSQL (unquoted)."""
    return f"{RatingListEntry._meta.db_table}_{int(rating_list_id)}"


def entry_table(rating_list_id: int) -> str:
    """The table a bulk writer copies a list's entries into (unquoted name)."""
    return _list_table(rating_list_id) if _partitioned() else RatingListEntry._meta.db_table


def _exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
        row = cursor.fetchone()
    return bool(row and row[0])


def entry_storage_prepare(rating_list_ids: Iterable[int]) -> None:
    """Create each list's own table (PostgreSQL): call in the writing transaction, before writing its entries.

    A list whose table exists already (its partition, attached when it was created) keeps it: rows copied into
    it go straight into the attached partition."""
    if not _partitioned():
        return
    quote = connection.ops.quote_name
    parent = quote(RatingListEntry._meta.db_table)
    with connection.cursor() as cursor:
        for list_id in rating_list_ids:
            name = _list_table(list_id)  # (partitioned: checked above, once)
            if _exists(name):
                continue
            cursor.execute(f"CREATE TABLE {quote(name)} (LIKE {parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")


def entry_storage_attach(rating_list_ids: Iterable[int]) -> None:
    """Index each list's table and attach it as the list's partition (PostgreSQL), then refresh the planner's
    statistics of that partition alone (ANALYZE of the whole table would read every list kept). Call once the
    list's rows are written, in the same transaction."""
    if not _partitioned():
        return
    quote = connection.ops.quote_name
    parent = quote(RatingListEntry._meta.db_table)
    with connection.cursor() as cursor:
        for list_id in rating_list_ids:
            list_id = int(list_id)
            name = _list_table(list_id)  # (partitioned: checked above, once)
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
                # the list's share of the entries' primary key (player, list): ratings 0017
                cursor.execute(
                    f"ALTER TABLE {table} ADD CONSTRAINT {quote(name + '_pkey')} "
                    "PRIMARY KEY (player_id, rating_list_id) WITH (fillfactor = 100)"
                )
                cursor.execute(
                    f"ALTER TABLE {table} ADD CONSTRAINT {quote(name + '_list')} CHECK (rating_list_id = {list_id})"
                )
                cursor.execute(f"ALTER TABLE {parent} ATTACH PARTITION {table} FOR VALUES IN ({list_id})")
            cursor.execute(f"ANALYZE {table}")


def entry_storage_prune() -> list[str]:
    """Detach and drop the partitions of lists that no longer exist (a draft replaced by the list published in
    its place: its rows went with it, its empty table stayed attached). Returns the tables dropped.

    DETACH PARTITION ... CONCURRENTLY takes no lock that readers or writers wait for, but cannot run inside a
    transaction (nor would a plain drop inside a publication do: it locks the entries table until commit), so
    beat runs this on its own (``ratings.prune_entry_partitions``), in autocommit."""
    if not _partitioned():
        return []
    if connection.in_atomic_block:
        raise RuntimeError("entry_storage_prune detaches concurrently: call it outside any transaction")
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
        for name in orphans:
            cursor.execute(f"ALTER TABLE {quote(parent)} DETACH PARTITION {quote(name)} CONCURRENTLY")
            cursor.execute(f"DROP TABLE {quote(name)}")
    return orphans
