"""The order of a list stored with it, for lists written without the publication engine (FIDE imports).

A published list stores, on each rated entry, its position (its line: 1 to the number of rated entries, by
rating, highest first, then player id), its world rank and its federation rank (active rated players rated
higher + 1; ties share a rank; none for inactive players). The publication computes them in NumPy
(ratings.engine.list_state.list_order); a list imported from a FIDE download gets them here, from the
database itself, with window functions (PostgreSQL and SQLite >= 3.33 alike): one UPDATE per list, nothing
travels to Python. List pages read positions (a page is a range of them, not an OFFSET over a million rows)
and profiles read ranks.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

from ratings.services.entry_storage import entry_table


def list_order_store(rating_list_ids: Iterable[int]) -> None:
    """Store position, rank and federation rank on every entry of the lists (current ratings, the PlayerRating
    view, read them from there). Call inside the writing transaction."""
    with connection.cursor() as cursor:
        for rating_list_id in rating_list_ids:
            # the list's own table on PostgreSQL (written, perhaps not attached yet): the other lists are not
            # even looked at (ratings.services.entry_storage); the entries table elsewhere
            entries = connection.ops.quote_name(entry_table(rating_list_id))
            cursor.execute(
                f"""
                UPDATE {entries} SET position = ordered.position, rank = ordered.world_rank,
                    federation_rank = ordered.federation_rank
                FROM (
                    SELECT player_id,
                        row_number() OVER (ORDER BY rating DESC, player_id) AS position,
                        CASE WHEN inactive THEN NULL
                            ELSE rank() OVER (PARTITION BY inactive ORDER BY rating DESC) END AS world_rank,
                        CASE WHEN inactive OR federation = '' THEN NULL
                            ELSE rank() OVER (PARTITION BY inactive, federation ORDER BY rating DESC)
                            END AS federation_rank
                    FROM {entries} WHERE rating_list_id = %s AND rating IS NOT NULL
                ) AS ordered
                WHERE {entries}.rating_list_id = %s AND {entries}.player_id = ordered.player_id
                """,
                [rating_list_id, rating_list_id],
            )
