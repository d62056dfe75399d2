"""Reads behind the public pages and the read-only API: published rating lists, entries, profiles.

Only *current* published lists are public (``RatingList.objects.current()``): a correction publishes a new
version of a list and the old one disappears from every page and download. Every function issues a fixed
number of queries whatever the number of rows (pinned in tests/public/test_query_counts.py).
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.core.paginator import Page
from django.db.models import F, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone
from django.utils.functional import cached_property

from core.pagination import KnownCountPaginator, whole_number, with_known_count
from core.schema import PATTERN_SPACE
from events.models import RATED_RESULTS, RESULT_POINTS, Event, EventStatus, Game, RatingType
from players.models import Player, Title, WomenTitle
from ratings.engine.calculator import calculate_change
from ratings.engine.classes import rating_class
from ratings.engine.game_line import (
    COUNTED,
    EXPECTED_SCORE,
    OPPONENT,
    OPPONENT_RATING,
    OPPONENT_RATING_USED,
    RATED,
    RATING_CHANGE,
    SCORE,
    STORED_LINE_FIELDS,
    WEIGHTED_CHANGE,
)
from ratings.engine.initial import initial_ratings
from ratings.engine.presets import RulesPreset, get_preset
from ratings.engine.rounding import round_half_up
from ratings.models import (
    ListsNamed,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingListEntry,
    RatingPolicy,
    current_list_condition,
)

# Age groups as FIDE's youth and senior events count them: the age reached in the calendar year of the list.
# U8 = born in (year - 8) or later; 50+ = born in (year - 50) or earlier.
JUNIOR_AGE_GROUPS = {f"U{age}": age for age in (8, 10, 12, 14, 16, 18, 20)}
SENIOR_AGE_GROUPS = {"50+": 50, "65+": 65}
AGE_GROUPS = [*JUNIOR_AGE_GROUPS, *SENIOR_AGE_GROUPS]
NOBODY = "-"  # a sex no entry has: contradictory filters select nobody

# The categories of the top lists, as shortcuts for the filters below (sex, and the age reached in the list's
# calendar year as above): juniors are under 20 (U20, born in year - 20 or later), seniors 50+ and 65+.
CATEGORIES: dict[str, dict[str, Any]] = {
    "open": {},
    "women": {"sex": "F"},
    "juniors": {"max_age": 20},
    "girls": {"sex": "F", "max_age": 20},
    "seniors50": {"min_age": 50},
    "seniors65": {"min_age": 65},
}
MAX_AGE = 120
TITLES = [t.value for t in Title]

# Sort keys offered to users (the page's ?sort= and the API's ?sort=), mapped to ORM orderings.
# By rating is by stored position (rating, highest first, then player id: ratings.services.list_order), one
# total order walked on the (rating_list, position) index; "rating" is its exact reverse. player_id last
# keeps the other sorts' pages stable when values tie.
POSITION_SORTS = {"-rating": "position", "rating": "-position"}
ENTRY_SORTS: dict[str, tuple[str, ...]] = {
    **{sort: (order,) for sort, order in POSITION_SORTS.items()},
    "name": ("player__search_name", "player_id"),
    "-name": ("-player__search_name", "-player_id"),
    "-change": ("-change", "player_id"),
    "change": ("change", "player_id"),
    "-games": ("-games", "position"),
    "birth_year": ("birth_year", "position"),
    "-birth_year": ("-birth_year", "position"),
}
DEFAULT_SORT = "-rating"
SELECTION_COUNT_SECONDS = 24 * 3600


# The values the API's choice parameters take (its schema's enums, besides the empty value), made once.
API_CHOICES: dict[str, list[str]] = {
    "category": list(CATEGORIES),
    "sex": ["M", "F"],
    "age_group": list(AGE_GROUPS),
    "title": list(TITLES),
    "sort": list(ENTRY_SORTS),
}


def latest_current_lists() -> list[RatingList]:
    """The newest current list of each rating type (home page), in the order of RatingType."""
    # One query returning one header a type: the newest date of its type, a subquery walking the current lists'
    # (rating_type, list_date) unique index. Reading every current header and keeping the newest built a model
    # and parsed the rules of each list kept: on every home, list, top-list and federation page, a cost that grew
    # with the lists kept (issue 17: the federation page 1.2x from list 13 to list 60 of bench/history.py).
    newest = RatingList.objects.current().filter(rating_type=OuterRef("rating_type")).order_by("-list_date")
    lists = RatingList.objects.current().filter(list_date=Subquery(newest.values("list_date")[:1]))
    by_type = {rating_list.rating_type: rating_list for rating_list in lists}
    return [by_type[t] for t in RatingType.values if t in by_type]


def list_dates_by_type() -> list[dict]:
    """Every current list, grouped by list date (newest first), for the /lists/ index."""
    by_date: dict[datetime.date, dict] = {}
    for rating_list in RatingList.objects.current().order_by("-list_date", "rating_type"):
        row = by_date.setdefault(rating_list.list_date, {"list_date": rating_list.list_date, "lists": {}})
        row["lists"][rating_list.rating_type] = rating_list
    return [
        {"list_date": row["list_date"], "lists": [row["lists"].get(t) for t in RatingType.values]}
        for row in by_date.values()
    ]


def top_entries(rating_lists: list[RatingList], limit: int = 10) -> dict[int, list[RatingListEntry]]:
    """The best ``limit`` active rated players of each list: one index-range query per list (<= 3)."""
    return {
        rating_list.pk: list(
            RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False, inactive=False)
            .select_related("player")
            .order_by("position")[:limit]
        )
        for rating_list in rating_lists
    }


@dataclass
class EntryFilters:
    """Filters of a list page / the entries endpoint, validated from query parameters."""

    federation: str = ""
    sex: str = ""
    age_group: str = ""
    title: str = ""
    active: bool = False
    sort: str = DEFAULT_SORT
    category: str = ""
    min_age: int | None = None
    max_age: int | None = None
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_params(cls, params, active_default: bool | None = None) -> EntryFilters:
        """``active_default``: whether a missing ``active`` leaves inactive players out (top lists: True);
        None: only when a category is given (the API's category shortcuts are top lists).

        Values lose surrounding white space as the API schema's patterns mean it (core.schema.PATTERN_SPACE):
        str.strip() also removes \x1c-\x1f, so a value the schema refuses became no filter at all (found by
        bench/trust.py's schema fuzzing)."""
        filters = cls()
        filters._read_selection(params, active_default)
        federation = (params.get("federation") or "").strip(PATTERN_SPACE).upper()
        if federation:
            if len(federation) == 3 and federation.isascii() and federation.isalpha():  # the API schema's pattern
                filters.federation = federation
            else:
                filters.errors["federation"] = f"expected a three-letter federation code, got {federation!r}"
        sex = (params.get("sex") or "").strip(PATTERN_SPACE).upper()
        if sex:
            if sex in ("M", "F"):
                filters.sex = sex
            else:
                filters.errors["sex"] = f"expected M or F, got {sex!r}"
        age_group = (params.get("age_group") or "").strip(PATTERN_SPACE).upper()
        if age_group:
            if age_group in AGE_GROUPS:
                filters.age_group = age_group
            else:
                filters.errors["age_group"] = f"expected one of {', '.join(AGE_GROUPS)}, got {age_group!r}"
        title = (params.get("title") or "").strip(PATTERN_SPACE).upper()
        if title:
            if title in TITLES:
                filters.title = title
            else:
                filters.errors["title"] = f"expected one of {', '.join(TITLES)}, got {title!r}"
        active = (params.get("active") or "").strip(PATTERN_SPACE).lower()
        if active:
            if active in ("1", "true", "yes", "on"):
                filters.active = True
            elif active not in ("0", "false", "no", "off"):
                filters.errors["active"] = f"expected 1 or 0, got {active!r}"
        sort = (params.get("sort") or "").strip(PATTERN_SPACE)
        if sort:
            if sort in ENTRY_SORTS:
                filters.sort = sort
            else:
                filters.errors["sort"] = f"expected one of {', '.join(ENTRY_SORTS)}, got {sort!r}"
        filters._apply_category_sex()
        return filters

    def refuse_outside_choices(self, params, names: tuple[str, ...]) -> None:
        """The API's refusals of the choice parameters ``names`` (of API_CHOICES), added to ``errors``: a value
        given that is not exactly one of the schema's enum values (which include the empty value: no filter).
        The list pages' forms read values leniently (white space, any case; from_params); the API answers what
        its schema says, so a value the schema refuses is refused, not read as no filter (found by the schema
        fuzzing: ``category=%0A`` on the movers)."""
        for name in names:
            raw = params.get(name)
            if raw and raw not in API_CHOICES[name]:  # empty: no filter, as the schema's enum says
                self.errors.setdefault(name, f"expected one of {', '.join(API_CHOICES[name])}, got {raw[:40]!r}")

    def _read_selection(self, params, active_default: bool | None) -> None:
        """``category`` (a shortcut for sex and ages), ``min_age`` and ``max_age``; a category or
        ``active_default`` makes a missing ``active`` mean active players only."""
        for name in ("min_age", "max_age"):
            value = (params.get(name) or "").strip(PATTERN_SPACE)
            if not value:
                continue
            age = whole_number(value)  # never int(value): thousands of digits raise (issue 32)
            if age is not None and age <= MAX_AGE:
                setattr(self, name, age)
            else:
                self.errors[name] = f"expected a whole number of years 0..{MAX_AGE}, got {value!r}"
        category = (params.get("category") or "").strip(PATTERN_SPACE).lower()
        if category and category not in CATEGORIES:
            self.errors["category"] = f"expected one of {', '.join(CATEGORIES)}, got {category!r}"
        elif category:
            self.category = category
            shortcut = CATEGORIES[category]
            if "min_age" in shortcut:
                self.min_age = max(self.min_age or 0, shortcut["min_age"])
            if "max_age" in shortcut:
                self.max_age = shortcut["max_age"] if self.max_age is None else min(self.max_age, shortcut["max_age"])
        # min_age above max_age selects nobody (the birth-year range is empty), like any other empty selection.
        if not (params.get("active") or "").strip() and (active_default or (active_default is None and self.category)):
            self.active = True

    def _apply_category_sex(self) -> None:
        """A category's sex after the ``sex`` parameter was read: women and girls are F; with sex=M they
        select nobody (no entry has the sex NOBODY), an empty selection as the schema allows, not a refusal."""
        wanted = CATEGORIES.get(self.category, {}).get("sex")
        if wanted and self.sex and self.sex != wanted:
            self.sex = NOBODY
        elif wanted:
            self.sex = wanted

    @property
    def is_filtered(self) -> bool:
        return bool(
            self.federation
            or self.sex
            or self.age_group
            or self.title
            or self.active
            or self.min_age is not None
            or self.max_age is not None
        )

    def as_params(self) -> dict[str, str]:
        """The non-default values, for links that keep the filters (pagination, sort headers)."""
        params = {
            "category": self.category,
            "min_age": "" if self.min_age is None else str(self.min_age),
            "max_age": "" if self.max_age is None else str(self.max_age),
            "federation": self.federation,
            "sex": self.sex,
            "age_group": self.age_group,
            "title": self.title,
            "active": "1" if self.active else "",
        }
        if self.sort != DEFAULT_SORT:
            params["sort"] = self.sort
        return {key: value for key, value in params.items() if value}


def list_entries(rating_list: RatingList, filters: EntryFilters) -> QuerySet[RatingListEntry]:
    """Rated entries of a list, filtered and sorted, with the player joined (one query per page).

    Entries without a rating only carry a newcomer's state to the next list; a published list shows rated
    players (B.02 7.1.2), the entries with a position. Page it with ListEntryPaginator: the queryset carries
    ``stored_count`` (an unfiltered list's count, stored at publication: no COUNT) and ``by_position`` (an
    unfiltered list sorted by rating: a page is a range of positions, not an OFFSET over a million rows).
    """
    entries = RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False).select_related("player")
    if filters.federation:
        entries = entries.filter(federation=filters.federation)
    if filters.sex:
        entries = entries.filter(sex=filters.sex)
    year = rating_list.list_date.year
    if filters.age_group in JUNIOR_AGE_GROUPS:
        entries = entries.filter(birth_year__gte=year - JUNIOR_AGE_GROUPS[filters.age_group])
    elif filters.age_group in SENIOR_AGE_GROUPS:
        entries = entries.filter(birth_year__gt=0, birth_year__lte=year - SENIOR_AGE_GROUPS[filters.age_group])
    if filters.min_age is not None:
        entries = entries.filter(birth_year__gt=0, birth_year__lte=year - filters.min_age)
    if filters.max_age is not None:
        entries = entries.filter(birth_year__gte=year - filters.max_age)
    if filters.title:
        title_q = Q(title=filters.title)
        if filters.title in WomenTitle.values:
            title_q |= Q(women_title=filters.title)
        entries = entries.filter(title_q)
    if filters.active:
        entries = entries.filter(inactive=False)
    entries = entries.order_by(*ENTRY_SORTS[filters.sort])
    count = stored_entry_count(rating_list, filters)
    entries = with_known_count(entries, count)
    entries.count_key = None if count is not None else selection_count_key(rating_list, filters)  # type: ignore[attr-defined]
    # The paginator reads a page of an unfiltered list sorted by rating as a range of stored positions.
    by_position = POSITION_SORTS.get(filters.sort) if not filters.is_filtered and count is not None else None
    entries.by_position = by_position  # type: ignore[attr-defined]
    return entries


def stored_entry_count(rating_list: RatingList, filters: EntryFilters) -> int | None:
    """The number of rows of an unfiltered list, stored on it at publication; of a selection, as counted
    before and kept in the cache (a published list never changes); None: count them."""
    if not filters.is_filtered and rating_list.rated_count:
        return rating_list.rated_count
    return cache.get(selection_count_key(rating_list, filters))


def selection_count_key(rating_list: RatingList, filters: EntryFilters) -> str:
    params = sorted((key, value) for key, value in filters.as_params().items() if key != "sort")
    return f"public:count:{rating_list.pk}:" + hashlib.sha256(repr(params).encode()).hexdigest()[:24]


class ListEntryPaginator(KnownCountPaginator):
    """Pages of list_entries(): the count stored with an unfiltered list instead of a COUNT, and a page of
    an unfiltered list sorted by rating read as the range of positions it shows (1..count, stored at
    publication), so page 12,000 of a two-million-line list costs what page 1 costs. A selection's COUNT,
    once taken, is kept in the cache for the next pages and visitors."""

    @cached_property
    def count(self) -> int:
        count = super().count
        key = getattr(self.object_list, "count_key", None)
        if key is not None:
            cache.set(key, count, SELECTION_COUNT_SECONDS)
        return count

    def page(self, number) -> Page:
        by_position = getattr(self.object_list, "by_position", None)
        if by_position is None:
            return super().page(number)
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = min(bottom + self.per_page, self.count)
        if by_position == "-position":  # ascending rating: the same lines counted from the end
            bottom, top = self.count - top, self.count - bottom
        rows = cast(QuerySet[RatingListEntry], self.object_list)
        return Page(rows.filter(position__gt=bottom, position__lte=top), number, self)


def list_movers(rating_list: RatingList, limit: int = 5) -> tuple[list[RatingListEntry], list[RatingListEntry]]:
    """Biggest gains and losses since the previous list (entry.change), ties by player: three queries.

    First the ``limit``-th biggest gain and loss (one query: two walks of the list's (change) index, no sort),
    then the entries at least as far out (a few rows, sorted with the ties). Asked at once, "ORDER BY change,
    player_id LIMIT 5" over a list where a million players moved is planned as a parallel scan and sort: the
    workers' start-up cost 3 ms a query at FIDE scale (issue 17)."""
    moved = RatingListEntry.objects.filter(rating_list=rating_list)
    outermost = RatingList.objects.filter(pk=rating_list.pk).values(
        gain=Subquery(moved.filter(change__gt=0).order_by("-change").values("change")[limit - 1 : limit]),
        loss=Subquery(moved.filter(change__lt=0).order_by("change").values("change")[limit - 1 : limit]),
    )[0]
    base = moved.select_related("player")
    gains = base.filter(change__gte=outermost["gain"]) if outermost["gain"] is not None else base.filter(change__gt=0)
    losses = base.filter(change__lte=outermost["loss"]) if outermost["loss"] is not None else base.filter(change__lt=0)
    return (
        list(gains.order_by("-change", "player_id")[:limit]),
        list(losses.order_by("change", "player_id")[:limit]),
    )


# --- players ----------


def player_ratings(player: Player) -> dict[str, dict]:
    """Current rating per type with world and federation rank (active rated players above + 1), as stored
    with the list the rating comes from (publication, or ratings.services.list_order for FIDE imports): one
    query."""
    ratings = {row.rating_type: row for row in PlayerRating.objects.filter(player=player).select_related("rating_list")}
    result = {}
    for rating_type in RatingType.values:
        row = ratings.get(rating_type)
        if row is None:
            continue
        result[rating_type] = {
            "rating_type": rating_type,
            "rating": row.rating,
            "k_factor": row.k_factor,
            "games": row.games,
            "inactive": row.inactive,
            "rated_games_total": row.rated_games_total,
            "list_date": row.rating_list.list_date,
            "rating_class": rating_class(row.rating),
            "world_rank": row.rank,
            "federation_rank": row.federation_rank,
        }
    return result


# The profile's overview shows the newest lists' rows (the whole history is the history tab's, a year a page,
# and the API's, a page at a time): what a page renders must not grow with the lists the player is on (issue 17),
# as ratings.fide.com's profile shows the recent periods and the full history on a page of its own.
RECENT_LISTS = 12
# What the history shows of the player's line on a list, and of the list.
HISTORY_LINE_FIELDS = ("rating_list_id", "rating", "change", "games", "k_factor", "inactive")


def player_lines(
    player: Player, rating_type: str | None = None, rating_list_ids: list[int] | None = None
) -> list[dict[str, Any]]:
    """The player's line on every current list (of one rating type if given; of the lists ``rating_list_ids``
    only if given), newest first: the few small columns the history shows and the chart draws, with the list's
    date and type, as dicts (no model built).

    One query, the one a page of the player's history reads across every list: the entries are stored a
    partition a list, so any read of a player's entries visits each list's (player) index; this reads it once
    for the chart, the years and the count, and the rows a page shows are cut from it, where reading the page's
    entries again (sorted by the list's date, through a join) would visit every list a second time. Given
    ``rating_list_ids`` (constants the planner prunes with), it visits those lists' partitions only."""
    entries = RatingListEntry.objects.filter(current_list_condition("rating_list"), player=player)
    if rating_list_ids is not None:
        entries = entries.filter(ListsNamed(rating_list_ids))  # written in: pruned when planned
    if rating_type:
        entries = entries.filter(rating_list__rating_type=rating_type)
    return list(
        entries.order_by("-rating_list__list_date", "rating_list__rating_type").values(
            *HISTORY_LINE_FIELDS, list_date=F("rating_list__list_date"), rating_type=F("rating_list__rating_type")
        )
    )


def recent_lists() -> tuple[list[int], bool]:
    """The ids of the newest RECENT_LISTS current lists of each rating type (the lists the profile's overview
    reads the player's lines on), and whether any older current list exists (then the overview links the history
    tab). One query on the lists (a few rows a year), none on the entries."""
    window: list[int] = []
    taken: dict[str, int] = {}
    older = False
    for pk, rating_type in (
        RatingList.objects.current().order_by("-list_date", "rating_type").values_list("pk", "rating_type")
    ):
        if taken.get(rating_type, 0) < RECENT_LISTS:
            taken[rating_type] = taken.get(rating_type, 0) + 1
            window.append(pk)
        else:
            older = True
    return window, older


def player_recent_lines(player: Player) -> tuple[list[dict[str, Any]], bool]:
    """The profile overview's rows: the player's lines on the newest lists (player_lines of recent_lists, the
    newest RECENT_LISTS of them), and whether the history tab has older lists to show. Two queries, the entries'
    visiting the newest lists' partitions only: the overview's cost does not grow with the lists kept (issue 17);
    the chart of every list is a resource of its own (public.views.players.player_chart)."""
    window, older = recent_lists()
    lines = player_lines(player, rating_list_ids=window) if window else []
    return lines[:RECENT_LISTS], bool(lines) and (older or len(lines) > RECENT_LISTS)


def chart_points(lines: list[dict[str, Any]]) -> list[tuple[datetime.date, str, int]]:
    """(list date, rating type, rating) of the rated lines of player_lines, oldest first: the chart's one point a
    list. No query."""
    return [(line["list_date"], line["rating_type"], line["rating"]) for line in reversed(lines) if line["rating"]]


def player_changes(player: Player, rating_list_ids: list[int]) -> list[RatingChange]:
    """The player's rating changes on the given lists (with the event), oldest event first: the totals and the
    event's name and end, as the history shows them (page and API); not the per-game details (the calculation
    page's) or the event's own documents. One query through the changes' (player, rating_list) index (none
    without a list)."""
    if not rating_list_ids:
        return []
    return list(
        RatingChange.objects.filter(player=player, rating_list_id__in=rating_list_ids)
        .select_related("event")
        .only(
            "rating_list_id",
            "event_id",
            "rating_before",
            "k_factor",
            "games",
            "score",
            "expected_score",
            "change",
            "event__name",
            "event__end_date",
        )
        .order_by("event__end_date", "event_id")
    )


def player_history_rows(player: Player, lines: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """List-by-list rows of ``lines`` (a part of player_lines, in its order): the line (``entry``, and as
    ``rating_list`` its date and type) plus the events rated on that list. One query for the events (none
    without a line)."""
    lines = list(lines)
    changes_by_list: dict[int, list[RatingChange]] = {}
    for change in player_changes(player, [line["rating_list_id"] for line in lines]):
        changes_by_list.setdefault(change.rating_list_id, []).append(change)
    return [
        {"entry": line, "rating_list": line, "changes": changes_by_list.get(line["rating_list_id"], [])}
        for line in lines
    ]


def player_history_year(player: Player, rating_type: str | None, asked: str) -> dict[str, Any]:
    """The history tab's page: the lists of one year, newest first, with their events (as ECF and US Chess page
    a rating history by year), and the years to go to. ``asked``: the ``year`` parameter; a year the player is
    on no list of (or no year) is the newest. Two queries: the player's lines (player_lines), the year's
    events."""
    lines = player_lines(player, rating_type)
    years = sorted({line["list_date"].year for line in lines}, reverse=True)
    year = int(asked) if asked.isascii() and asked.isdigit() and len(asked) == 4 else None
    if year not in years:
        year = years[0] if years else None
    if year is None:
        return {"years": [], "year": None, "newer": None, "older": None, "history": []}
    position = years.index(year)
    return {
        "years": years,
        "year": year,
        "newer": years[position - 1] if position > 0 else None,
        "older": years[position + 1] if position + 1 < len(years) else None,
        "history": player_history_rows(player, [line for line in lines if line["list_date"].year == year]),
    }


# --- calculation page ----------


def calculation_line(detail: dict[str, Any]) -> dict[str, Any]:
    """One per-game line of RatingChange.details, every STORED_LINE_FIELDS name present (None where the line
    has no value). Lines that leave out what follows from the others get it: the rating used is the opponent's
    rating when nothing replaced it, and dR = score - PD."""
    line: dict[str, Any] = {name: detail.get(name) for name in STORED_LINE_FIELDS}
    if line[OPPONENT_RATING_USED] is None:
        line[OPPONENT_RATING_USED] = line[OPPONENT_RATING]
    if line[RATING_CHANGE] is None and line[SCORE] is not None and line[EXPECTED_SCORE] is not None:
        line[RATING_CHANGE] = round(float(line[SCORE]) - float(line[EXPECTED_SCORE]), 4)
    return line


def player_calculation(player: Player, rating_list: RatingList) -> dict:
    """Everything FIDE's calculation page shows for one player and list: per event, per game; for a first rating
    how the initial rating was computed, and for a rating that fell below the floor why it is gone. 4 queries."""
    entries = {
        entry.rating_list_id: entry
        for entry in RatingListEntry.objects.filter(
            player=player, rating_list_id__in=[pk for pk in (rating_list.pk, rating_list.previous_id) if pk]
        )
    }
    entry = entries.get(rating_list.pk)
    previous = entries.get(rating_list.previous_id) if rating_list.previous_id else None
    changes = list(
        RatingChange.objects.filter(rating_list=rating_list, player=player)
        .select_related("event")
        .order_by("event__end_date", "event_id")
    )
    events: list[dict[str, Any]] = []
    opponent_ids: set[int] = set()
    for change in changes:
        lines = [calculation_line(detail) for detail in change.details or []]
        for line in lines:
            if line[OPPONENT] is not None:
                opponent_ids.add(int(line[OPPONENT]))
            if line[WEIGHTED_CHANGE] is None and line[RATING_CHANGE] is not None and change.k_factor is not None:
                line[WEIGHTED_CHANGE] = round(float(line[RATING_CHANGE]) * change.k_factor, 2)  # K x dR
            if line[RATED] is False:  # an unrated player's game changes no rating: no change to show (not 0.00)
                line[WEIGHTED_CHANGE] = None
        events.append(
            {"change": change, "event": change.event, "lines": lines, "rated": change.rating_before is not None}
        )
    opponents = (
        {p.id_number: p for p in Player.objects.filter(id_number__in=opponent_ids).select_related("federation")}
        if opponent_ids
        else {}
    )
    for event in events:
        for line in event["lines"]:
            line["opponent_player"] = opponents.get(int(line[OPPONENT])) if line[OPPONENT] is not None else None
    rules = list_rules(rating_list)
    was_rated = previous is not None and previous.rating is not None
    rated_changes = [change for change in changes if change.rating_before is not None]
    return {
        "entry": entry,
        "previous_entry": previous,
        "events": events,
        "total_change": sum(change.change for change in rated_changes),
        "games": sum(change.games for change in changes),
        "score": sum(change.score for change in changes),
        "expected_score": sum(change.expected_score for change in rated_changes),
        "rated_before": bool(rated_changes) or was_rated,
        "initial": None if was_rated or rated_changes else first_rating(rules, previous, events),
        "floor": floor_drop(rules, entry, previous),
    }


def list_rules(rating_list: RatingList) -> RulesPreset:
    """The rules a list was computed with: its frozen copy (the preset's current definition for a list without
    one, as imported lists are)."""
    try:
        return RulesPreset.from_json(rating_list.rules) if rating_list.rules else get_preset(rating_list.rules_preset)
    except (KeyError, ValueError, TypeError):
        return get_preset(settings.RATING_RULES_PRESET)


def first_rating(rules: RulesPreset, previous: RatingListEntry | None, events: list[dict[str, Any]]) -> dict | None:
    """How an unrated player's initial rating stands after this list, from the engine's own definition
    (ratings.engine.initial, B.02 7.1.4 and 8.2): the games pooled on earlier lists (the previous entry's pool)
    plus this list's counted games against rated opponents, with the rules' hypothetical opponents, Ra, p, dp,
    the rounding, the cap and the publication threshold. No query."""
    spec = rules.initial_rating
    if spec.kind == "none":
        return None
    lines = [line for event in events for line in event["lines"] if line[COUNTED] and line[OPPONENT_RATING] is not None]
    pool_games = previous.pool_games if previous is not None else 0
    pool_sum = (previous.pool_opponent_sum or 0.0) if previous is not None else 0.0
    pool_score = (previous.pool_score or 0.0) if previous is not None else 0.0
    games = pool_games + len(lines)
    opponent_sum = pool_sum + sum(float(line[OPPONENT_RATING]) for line in lines)
    points = pool_score + sum(float(line[SCORE]) for line in lines)
    result = initial_ratings(np.array([games]), np.array([opponent_sum]), np.array([points]), spec)
    hypothetical = spec.hypothetical_opponents if spec.kind == "fide-2024" else 0
    enough = bool(result.enough_games[0])
    return {
        "kind": spec.kind,
        "pool_games": pool_games,
        "list_games": len(lines),
        "games": games,
        "score": points,
        "opponent_sum": opponent_sum,
        "hypothetical": hypothetical,
        "hypothetical_rating": int(spec.hypothetical_rating),
        "hypothetical_sum": int(hypothetical * spec.hypothetical_rating),
        "all_games": games + hypothetical,
        "all_score": points + 0.5 * hypothetical,
        "all_sum": opponent_sum + hypothetical * spec.hypothetical_rating,
        "average": None if games + hypothetical == 0 else float(result.average[0]),
        "percent": int(result.percent[0]) if result.percent[0] >= 0 else None,
        "dp": float(result.dp[0]) if games else None,
        "unrounded": float(result.unrounded[0]) if games else None,
        "rating": int(result.rating[0]) if enough else None,
        # Ru rounded (B.02 8.2), shown before the cap: the engine's rounding
        "rounded": int(round_half_up(result.unrounded)[0])
        if games and result.unrounded[0] == result.unrounded[0]
        else None,
        "capped": bool(result.capped[0]),
        "cap": spec.rating_cap,
        "min_games": spec.min_games,
        "threshold": spec.publish_threshold,
        "window_months": spec.window_months,
        "enough": enough,
        "published": bool(result.published[0]),
    }


def floor_drop(rules: RulesPreset, entry: RatingListEntry | None, previous: RatingListEntry | None) -> dict | None:
    """Why a rating is gone from this list: the list's calculation fell below the rules' floor, and the player
    is shown as unrated from this list on (B.02 7.2; ratings.engine.inactivity.apply_rating_floor). No query."""
    if entry is None or not entry.dropped_below_floor:
        return None
    before = previous.rating if previous is not None else None
    return {
        "floor": rules.rating_floor,
        "before": before,
        "change": entry.change,
        "calculated": None if before is None or entry.change is None else before + entry.change,
    }


# --- live (unofficial) rating ----------


def player_live_ratings(player: Player, ratings: dict[str, dict]) -> list[dict]:
    """An unofficial rating per type from rated games in events submitted but not yet rated on a list.

    The player's current published rating and K, and each opponent's current published rating, go through the
    engine's calculator with the federation's rules preset for that type. It is an estimate: the official
    calculation uses the list in force at each event's start. Four queries at most.
    """
    # The first event awaiting rating (of a period's worth: the ids, through the status index), then one query, a
    # UNION of the games as white and as black: each branch reads the player's participations from that event on
    # in the participants' (player, event) index — not every participation of the player's history, which at
    # FIDE scale cost 8 ms on a profile after 24 lists (issue 17) — then the (white, round) / (black, round)
    # indexes, where "white or black" over two joins would read every game of every submitted event. The first
    # event is min() here, of the ids unsorted: the database's MIN(id) over the status walked the events' primary
    # key, 20 ms at FIDE scale.
    first = min(
        Event.objects.filter(status=EventStatus.SUBMITTED).order_by().values_list("pk", flat=True), default=None
    )
    if first is None:
        return []
    pending = Game.objects.filter(event__status=EventStatus.SUBMITTED, result__in=RATED_RESULTS)
    columns = (
        "event_id",
        "event__name",
        "event__rating_type",
        "white__player_id",
        "black__player_id",
        "result",
        "event__end_date",
        "round",
        "id",
    )
    games = list(
        pending.filter(white__player=player, white__event_id__gte=first)
        .values(*columns)
        .order_by()
        .union(pending.filter(black__player=player, black__event_id__gte=first).values(*columns).order_by(), all=True)
        .order_by("event__end_date", "event_id", "round")
    )
    if not games:
        return []
    opponent_ids = {
        game["black__player_id"] if game["white__player_id"] == player.pk else game["white__player_id"]
        for game in games
    }
    types = {game["event__rating_type"] for game in games}
    opponent_ratings = {
        (row["player_id"], row["rating_type"]): row["rating"]
        for row in PlayerRating.objects.filter(player_id__in=opponent_ids, rating_type__in=types).values(
            "player_id", "rating_type", "rating"
        )
    }
    presets = dict(RatingPolicy.objects.filter(rating_type__in=types).values_list("rating_type", "rules_preset"))
    live = []
    for rating_type in RatingType.values:
        typed = [game for game in games if game["event__rating_type"] == rating_type]
        if not typed:
            continue
        events: dict[int, str] = {}
        opponents, scores, event_numbers = [], [], []
        for game in typed:
            as_white = game["white__player_id"] == player.pk
            opponent = game["black__player_id"] if as_white else game["white__player_id"]
            white_points, black_points = RESULT_POINTS[game["result"]]
            opponents.append(opponent_ratings.get((opponent, rating_type)))
            scores.append(white_points if as_white else black_points)
            event_numbers.append(list(events).index(game["event_id"]) if game["event_id"] in events else len(events))
            events.setdefault(game["event_id"], game["event__name"])
        current = ratings.get(rating_type) or {}
        row = {
            "rating_type": rating_type,
            "rating": current.get("rating"),
            "games": len(typed),
            "events": list(events.values()),
            "change": None,
            "live_rating": None,
        }
        rules = get_preset(presets.get(rating_type) or settings.RATING_RULES_PRESET)
        if current.get("rating") is not None and rules.glicko2 is None:  # (Glicko-2 rates the whole period)
            calculation = calculate_change(
                current["rating"],
                current.get("k_factor"),
                opponents,
                scores,
                rules,
                rating_type=rating_type,
                events=event_numbers,
                rated_games_total=current.get("rated_games_total") or 0,
                birth_year=player.birth_year,
                list_date=timezone.localdate(),  # the next list, as far as anyone knows today
            )
            row.update(games=calculation.games, change=calculation.rounded_change, live_rating=calculation.new_rating)
        live.append(row)
    return live
