"""Movers and improvers of a published list: the largest gains and losses since the previous list (per
category), the most improved over twelve months, and the best juniors.

Gains and losses walk the (rating_list, change) index of the players whose rating moved; the twelve-month
comparison looks up each selected player's line on the list a year earlier through the (player, rating_list)
index, once per list and selection: the result is kept in the cache (published lists never change).
"""

from __future__ import annotations

import datetime
import hashlib
from typing import Any
from urllib.parse import urlencode

from django.core.cache import cache
from django.db.models import F, OuterRef, Subquery

from public.selectors.ratings import EntryFilters, list_entries
from public.selectors.top import top_list
from ratings.models import RatingList, RatingListEntry

MOVERS = 10
IMPROVED_CACHE_SECONDS = 24 * 3600


def _selection(rating_list: RatingList, filters: EntryFilters):
    selected = EntryFilters(**{**filters.__dict__, "errors": {}})
    selected.sort = "-rating"
    return list_entries(rating_list, selected).order_by()


def list_gains_losses(
    rating_list: RatingList, filters: EntryFilters, limit: int = MOVERS
) -> tuple[list[RatingListEntry], list[RatingListEntry]]:
    """The largest rating gains and losses since the previous list within the selection: two queries."""
    selection = _selection(rating_list, filters)
    gains = list(selection.filter(change__gt=0).order_by("-change", "player_id")[:limit])
    losses = list(selection.filter(change__lt=0).order_by("change", "player_id")[:limit])
    return gains, losses


def year_earlier_list(rating_list: RatingList) -> RatingList | None:
    """The current list of the same type twelve months earlier (the newest on or before that day)."""
    day = rating_list.list_date
    try:
        year_before = day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        year_before = day.replace(year=day.year - 1, day=28)
    return (
        RatingList.objects.current(rating_list.rating_type)
        .filter(list_date__lte=year_before, list_date__gt=year_before - datetime.timedelta(days=62))
        .order_by("-list_date")
        .first()
    )


def most_improved(rating_list: RatingList, filters: EntryFilters, limit: int = MOVERS) -> dict[str, Any]:
    """The players of the selection whose rating rose most since the list twelve months earlier (rated on
    both): the earlier list, then one query (cached per list and selection)."""
    earlier = year_earlier_list(rating_list)
    if earlier is None:
        return {"earlier": None, "rows": []}
    selection = hashlib.sha256(urlencode(sorted(filters.as_params().items())).encode()).hexdigest()[:20]
    key = f"public:improved:{rating_list.pk}:{earlier.pk}:{selection}:{limit}"
    rows = cache.get(key)
    if rows is None:
        before = RatingListEntry.objects.filter(rating_list=earlier, player=OuterRef("player_id")).values("rating")[:1]
        found = (
            _selection(rating_list, filters)
            .annotate(earlier_rating=Subquery(before))
            .filter(earlier_rating__isnull=False)
            .annotate(gain=F("rating") - F("earlier_rating"))
            .filter(gain__gt=0)
            .order_by("-gain", "player_id")[:limit]
        )
        rows = [
            {
                "id_number": entry.player.id_number,
                "name": entry.player.name,
                "federation": entry.federation,
                "rating": entry.rating,
                "earlier_rating": entry.earlier_rating,  # type: ignore[attr-defined]
                "gain": entry.gain,  # type: ignore[attr-defined]
            }
            for entry in found
        ]
        cache.set(key, rows, IMPROVED_CACHE_SECONDS)
    return {"earlier": earlier, "rows": rows}


def best_juniors(rating_list: RatingList, filters: EntryFilters, limit: int = MOVERS) -> list[RatingListEntry]:
    """The best active juniors (under 20 in the list's year) within the selection: one query."""
    params = {**filters.as_params(), "category": "juniors"}
    params.pop("sort", None)
    juniors = EntryFilters.from_params(params, active_default=True)
    if juniors.errors:  # e.g. a selection of seniors: no junior is in it
        return []
    return top_list(rating_list, juniors, 1, limit).rows
