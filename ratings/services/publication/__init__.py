"""Rating-list publication: the only bridge between the database and the rating engine for lists.

One list = one rating type and list date. Its period runs from the previous list date (exclusive) to the list
date; it rates every submitted event of the type that ended on or before the closing date and was not rated
yet (an event that ended after the previous closing date is therefore picked up by the next list). Each event
is rated with the ratings of the list in force at its start date (rules 1.3), the new ratings continue the
previous list (B.02 8.3).

Compute, then write: each step in a module of its own (the package exports the public names):

- ``plan``: :class:`ListPlan` (which list, from what) and the checks and planning of a regular list;
- ``load``: the bulk reads (previous list state, events, rated games, ratings in force, registry data);
- ``compute``: :func:`rating_list_compute`, :class:`ComputedList`, the rating changes' details;
- ``write``: :func:`rating_list_write` and its ``_write_*`` steps;
- ``publish``: the public services below and the per-rating-type lock.

1. :func:`rating_list_compute` reads everything IN BULK (into NumPy, a fixed number of queries whatever the
   size on PostgreSQL; on SQLite one more per 10,000 players new to the list), runs the engine once
   (``rate_period``, then ``ratings.engine.list_state`` for every rule of the state a list carries: pool window,
   rounding, last game, inactivity, next K, list order; ``ratings.engine.adjustments`` for a one-off
   adjustment; ``ratings.engine.change_lines`` for each change's games and rating as used, B.02 1.6) and
   stores nothing, giving a :class:`ComputedList`: one entry for every player with rating state (players
   without games are copied forward with their inactivity updated), one rating change per player and event
   with per-game detail, and a digest of the inputs. A publication then computes its shadow list
   (ratings.services.publication.shadow.shadow_list_compute), still before anything is written.
2. :func:`rating_list_write` is THE write step, computing nothing: the list row, entries, rating changes (COPY
   on PostgreSQL, bulk_create elsewhere), the shadow list computed in 1 and events (status rated, rated_on).
   Current ratings (PlayerRating) are a view over the newest current list's entries: they follow the list as
   soon as it is published, with nothing to write.
3. The public services wrap 1 and 2 in ONE transaction under a per-rating-type lock, so a publication is
   single-flight and never half-done: PostgreSQL takes ``pg_advisory_xact_lock`` (released with the
   transaction, also when the process dies); SQLite's IMMEDIATE transactions (settings) serialise writers.
   After the lock, the current state is read again: a second trigger returns the existing list and writes
   nothing.

Published lists are immutable. A correction publishes version n+1 of the list and of every later current list
of the same type (:func:`rating_list_republish_from`), marking the old ones superseded.
"""

from ratings.services.publication.compute import ChangeDetails, ComputedList, rating_list_compute
from ratings.services.publication.load import POOL_SUMS, STATE_COLUMNS, rating_list_games
from ratings.services.publication.plan import Arrays, ListPlan
from ratings.services.publication.publish import (
    LOCK_IDS,
    LOCK_NAMESPACE,
    PublishOutcome,
    rating_list_compute_preview,
    rating_list_publication_running,
    rating_list_publish,
    rating_list_publish_preview,
    rating_list_publish_scheduled,
    rating_list_republish_from,
)
from ratings.services.publication.write import rating_list_write

__all__ = [
    "LOCK_IDS",
    "LOCK_NAMESPACE",
    "POOL_SUMS",
    "STATE_COLUMNS",
    "Arrays",
    "ChangeDetails",
    "ComputedList",
    "ListPlan",
    "PublishOutcome",
    "rating_list_compute",
    "rating_list_compute_preview",
    "rating_list_games",
    "rating_list_publication_running",
    "rating_list_publish",
    "rating_list_publish_preview",
    "rating_list_publish_scheduled",
    "rating_list_republish_from",
    "rating_list_write",
]
