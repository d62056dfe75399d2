"""Federations and clubs on the public site: rated and active players per rating type, the average of the
top 10 (FIDE's ranking of countries), the federation's top list, recent events, clubs and their members.

Every figure comes from the newest current list of each type (``latest_current_lists``) with the federation
as published on it. A federation's rows are a range of the (rating_list, federation, position)
index; the ranking of all federations groups a whole list, so it is kept in the cache per set of lists (a
published list never changes: a correction is a new list).
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from django.db.models import Avg, Count, IntegerField, OuterRef, Q

from events.models import Event
from players.models import Club, Federation, Player
from public.selectors.ratings import latest_current_lists
from public.selectors.record import PUBLISHED_EVENTS, count_of, scalar_of
from ratings.models import PlayerRating, RatingList, RatingListEntry

TOP_AVERAGE = 10  # FIDE ranks countries by the average of their ten best active players
FEDERATION_TOP = 20
RANKING_CACHE_SECONDS = 24 * 3600


def federation_ranking(lists: list[RatingList]) -> list[dict[str, Any]]:
    """Every federation with players on ``lists``: rated and active players and the top-10 average per
    type, best standard average first. Two grouped queries per set of lists, then cached."""
    key = "public:federations:" + ",".join(str(rating_list.pk) for rating_list in lists)
    ranking = cache.get(key)
    if ranking is not None:
        return ranking
    types = {rating_list.pk: rating_list.rating_type for rating_list in lists}
    rows: dict[str, dict[str, Any]] = {}
    entries = RatingListEntry.objects.filter(rating_list__in=list(types), rating__isnull=False).exclude(federation="")
    counts = entries.values("rating_list_id", "federation").annotate(
        rated=Count("*"), active=Count("player_id", filter=Q(inactive=False))
    )
    for row in counts.order_by():
        by_type = rows.setdefault(row["federation"], {"code": row["federation"], "types": {}})["types"]
        by_type[types[row["rating_list_id"]]] = {"rated": row["rated"], "active": row["active"], "top_average": None}
    # federation_rank is stored on active rated entries at publication (B.02 list order): ranks 1..10
    tops = (
        entries.filter(inactive=False, federation_rank__lte=TOP_AVERAGE)
        .values("rating_list_id", "federation")
        .annotate(average=Avg("rating"), players=Count("*"))
        .order_by()
    )
    for top in tops:
        if top["players"] >= TOP_AVERAGE:  # FIDE's ranking counts federations with ten active players
            rows[top["federation"]]["types"][types[top["rating_list_id"]]]["top_average"] = round(top["average"])
    ranking = sorted(
        rows.values(),
        key=lambda row: (-(row["types"].get("standard", {}).get("top_average") or 0), row["code"]),
    )
    cache.set(key, ranking, RANKING_CACHE_SECONDS)
    return ranking


def federation_summary(federation: Federation) -> dict[str, Any]:
    """Per rating type (newest list): rated and active players, top-10 average and the top list; the
    federation's recent published events and its clubs. 1 query per type + 3, the counts from the ranking of
    federations (cached: counting a large federation's lines costs tens of milliseconds a visit)."""
    lists = latest_current_lists()
    ranked: dict[str, Any] = next(
        (row for row in federation_ranking(lists) if row["code"] == federation.code), {"types": {}}
    )
    types = []
    for rating_list in lists:
        mine = RatingListEntry.objects.filter(rating_list=rating_list, federation=federation.code)
        counts = ranked["types"].get(rating_list.rating_type) or {"rated": 0, "active": 0}
        top = list(
            mine.filter(inactive=False, rating__isnull=False)
            .select_related("player")
            .order_by("position")[:FEDERATION_TOP]
        )
        for rank, entry in enumerate(top, start=1):
            entry.selection_rank = rank  # type: ignore[attr-defined]
        best = [entry.rating for entry in top[:TOP_AVERAGE] if entry.rating is not None]
        types.append(
            {
                "rating_list": rating_list,
                "rating_type": rating_list.rating_type,
                "rated": counts["rated"],
                "active": counts["active"],
                "top_average": round(sum(best) / len(best)) if len(best) == TOP_AVERAGE else None,
                "top": top,
            }
        )
    events = list(
        Event.objects.filter(federation=federation, status__in=PUBLISHED_EVENTS).order_by("-end_date", "-id")[:10]
    )
    # each club's members counted in the players' club index alone (a subquery a club, COUNT of the indexed
    # column: no row read), where a join grouped by club read every registered player: 405 ms against 11 ms for
    # a federation of 1,000 clubs at FIDE scale (2,000,000 players)
    members = scalar_of(Player.objects.filter(club=OuterRef("pk")), count_of("club_id"), IntegerField())
    clubs = list(federation.clubs.annotate(member_count=members).order_by("name"))
    return {"lists": lists, "types": types, "events": events, "clubs": clubs}


def club_members(club: Club) -> list[dict[str, Any]]:
    """The club's players (merged duplicates left out) with their current rating per type, best standard
    first: two queries."""
    members = list(club.members.filter(merged_into__isnull=True).select_related("federation"))
    ratings: dict[int, dict[str, PlayerRating]] = {}
    for row in PlayerRating.objects.filter(player__in=members) if members else []:
        ratings.setdefault(row.player_id, {})[row.rating_type] = row
    rows: list[dict[str, Any]] = [{"player": player, "ratings": ratings.get(player.pk, {})} for player in members]

    def standard(row: dict[str, Any]) -> int:
        rating = row["ratings"].get("standard")
        return -(rating.rating or 0) if rating else 0

    rows.sort(key=lambda row: (standard(row), str(row["player"].search_name)))
    return rows
