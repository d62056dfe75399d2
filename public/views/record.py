"""A player's full record (the profile's history, games, opponents and statistics tabs) and the head-to-head page.
Thin: selectors read (a page of games, or a summary kept in the cache: public/selectors/record.py), templates
render."""

from typing import Any

from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _

from events.models import RatingType
from players.models import Player
from public.selectors.ratings import player_history_year
from public.selectors.record import (
    OpponentRow,
    RecordGames,
    attach_opponents,
    head_to_head,
    record_peaks,
    record_summary,
    record_version,
)
from public.views.base import public_page

RECORD_PAGE_SIZE = 50
STATISTICS_EVENTS_PAGE_SIZE = 12
# The profile's tabs: "overview" is the profile itself (public/views/players.py).
TABS = {
    "overview": _("Overview"),
    "history": _("History"),
    "games": _("Games"),
    "opponents": _("Opponents"),
    "statistics": _("Statistics"),
}


def record_tab(request) -> str:
    tab = request.GET.get("tab", "overview")
    return tab if tab in TABS else "overview"


def _rating_type(request) -> str:
    value = request.GET.get("rating_type", "")
    return value if value in RatingType.values else ""


def player_record(request, player: Player, tab: str):
    """The history, games, opponents or statistics tab of ``player``'s profile (the player is already read)."""
    rating_type = _rating_type(request)
    context: dict[str, Any] = {
        "player": player,
        "tab": tab,
        "tabs": list(TABS.items()),
        "rating_type": rating_type,
        "rating_types": RatingType.values,
    }
    if tab == "history":  # a year of lists a page (public.selectors.ratings.player_history_year)
        context.update(player_history_year(player, rating_type or None, request.GET.get("year", "")))
        return render(request, "players/record.html", context)
    if tab == "games":
        games = RecordGames(player, rating_type or None, record_version(player))
        context["game_count"] = games.count()
        rows: RecordGames | list[OpponentRow] = games
    else:
        version = record_version(player)
        summary = record_summary(player, rating_type or None, version)
        rows = summary.opponents
        if tab == "statistics":
            # the performance per event a page of the newest events at a time, as the history is (issue 17)
            events = Paginator(summary.events, STATISTICS_EVENTS_PAGE_SIZE).get_page(request.GET.get("page"))
            context.update(
                colours=summary.colours, peaks=record_peaks(player, version), events=events.object_list, page=events
            )
    if tab in ("games", "opponents"):
        page = Paginator(rows, RECORD_PAGE_SIZE).get_page(request.GET.get("page"))
        attach_opponents(list(page.object_list))
        context["page"] = page
    return render(request, "players/record.html", context)


def _player(id_number: int) -> Player:
    return get_object_or_404(Player.objects.select_related("federation", "merged_into"), id_number=id_number)


@public_page
def player_vs(request, id_number: int, other_id_number: int):
    first, second = _player(id_number), _player(other_id_number)
    if first.merged_into is not None or second.merged_into is not None:
        return redirect(
            "players:vs",
            id_number=(first.merged_into or first).id_number,
            other_id_number=(second.merged_into or second).id_number,
            permanent=True,
        )
    record = head_to_head(first, second)
    # the score counts every game (kept in the cache); the table shows a page of them
    page = Paginator(record["games"], RECORD_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "players/vs.html", {"first": first, "second": second, **record, "page": page})
