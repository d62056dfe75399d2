"""Top lists (a category of one published list, ranked within the selection) and a list's rating
distribution. A fixed number of queries whatever the size of the list (tests/public/test_top.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Count, F

from public.selectors.ratings import EntryFilters, list_entries
from ratings.models import RatingList, RatingListEntry

TOP_PAGE_SIZE = 100
HISTOGRAM_BUCKET = 100  # rating points per bar
# A published list never changes (a correction is a new list, a new primary key): its distribution can be
# kept as long as the cache keeps it.
HISTOGRAM_CACHE_SECONDS = 24 * 3600


@dataclass
class TopPage:
    rows: list[RatingListEntry]  # each with ``selection_rank``: the rank within the selection
    number: int
    has_next: bool

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def top_list(rating_list: RatingList, filters: EntryFilters, number: int = 1, size: int = TOP_PAGE_SIZE) -> TopPage:
    """Page ``number`` of the best players of the selection, best first: one query (no COUNT: the page reads
    one row more than it shows to know whether another page follows). Walks the list's (rating_list,
    position) index, or (rating_list, federation, position) for a federation."""
    filters.sort = "-rating"
    entries = list_entries(rating_list, filters)
    offset = (number - 1) * size
    rows = list(entries[offset : offset + size + 1])
    for rank, row in enumerate(rows[:size], start=offset + 1):
        row.selection_rank = rank  # type: ignore[attr-defined]
    return TopPage(rows=rows[:size], number=number, has_next=len(rows) > size)


def rating_histogram(rating_list: RatingList) -> list[dict[str, int]]:
    """Rated players of the list per band of HISTOGRAM_BUCKET points, lowest band first: one grouped query,
    then kept in the cache (the list is immutable)."""
    key = f"public:histogram:{rating_list.pk}:{HISTOGRAM_BUCKET}"
    bands = cache.get(key)
    if bands is None:
        rows = (
            RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False)
            .annotate(band=F("rating") / HISTOGRAM_BUCKET * HISTOGRAM_BUCKET)
            .values("band")
            .annotate(players=Count("*"))
            .order_by("band")
        )
        bands = [{"low": int(row["band"]), "players": int(row["players"])} for row in rows]
        cache.set(key, bands, HISTOGRAM_CACHE_SECONDS)
    return bands
