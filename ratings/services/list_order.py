"""The order of a list stored with it, for lists written without the publication engine (FIDE imports).

A published list stores, on each rated entry, its position (its line: 1 to the number of rated entries, by
rating, highest first, then player id), its world rank and its federation rank (active rated players rated
higher + 1; ties share a rank; none for inactive players). The publication computes them in NumPy
(ratings.services.publication._list_order); a list imported from a FIDE download gets them here, from the
database itself, with window functions (PostgreSQL and SQLite >= 3.33 alike): nothing travels to Python.
List pages read positions (a page is a range of them, not an OFFSET over a million rows) and profiles read
ranks.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

from ratings.models import RatingListEntry

# position, world rank and federation rank of each rated entry, within its list (one definition for both below)
_ORDER = """
    row_number() OVER (PARTITION BY rating_list_id ORDER BY rating DESC, player_id) AS position,
    CASE WHEN inactive THEN NULL
        ELSE rank() OVER (PARTITION BY rating_list_id, inactive ORDER BY rating DESC) END AS world_rank,
    CASE WHEN inactive OR federation = '' THEN NULL
        ELSE rank() OVER (PARTITION BY rating_list_id, inactive, federation ORDER BY rating DESC)
        END AS federation_rank
"""


def list_order_store(rating_list_ids: Iterable[int]) -> None:
    """Store position, rank and federation rank on every entry of the lists (current ratings, the PlayerRating
    view, read them from there): one UPDATE per list. Call inside the writing transaction."""
    entries = connection.ops.quote_name(RatingListEntry._meta.db_table)
    with connection.cursor() as cursor:
        for rating_list_id in rating_list_ids:
            cursor.execute(
                f"""
                UPDATE {entries} SET position = ordered.position, rank = ordered.world_rank,
                    federation_rank = ordered.federation_rank
                FROM (
                    SELECT id, {_ORDER}
                    FROM {entries} WHERE rating_list_id = %s AND rating IS NOT NULL
                ) AS ordered
                WHERE {entries}.id = ordered.id
                """,
                [rating_list_id],
            )


def list_entries_insert_ordered(source: str, columns: str) -> None:
    """Insert the rated entries held in the table ``source`` (``columns``: its quoted column names, those of
    the entries table, without the order), each with its position, rank and federation rank within its list:
    every entry is written once, in its final form (storing the order afterwards rewrites every entry and its
    indexes). Call inside the writing transaction."""
    entries = connection.ops.quote_name(RatingListEntry._meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # the three sorts of two million entries in memory rather than in files (this transaction only)
            cursor.execute("SET LOCAL work_mem = '256MB'")
        # in list order: the (list, position) index grows at its end
        cursor.execute(
            f"INSERT INTO {entries} ({columns}, position, rank, federation_rank) "
            f"SELECT * FROM (SELECT {columns}, {_ORDER} FROM {connection.ops.quote_name(source)}) AS ordered "
            "ORDER BY rating_list_id, position"
        )
