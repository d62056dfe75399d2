"""Public player pages: search, profile, calculation detail. Thin: fetch through selectors, render."""

import datetime

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.clickjacking import xframe_options_sameorigin

from events.models import RatingType
from players.models import Player
from public.selectors.ratings import (
    chart_points,
    player_calculation,
    player_history_rows,
    player_lines,
    player_live_ratings,
    player_ratings,
    player_recent_lines,
)
from public.views.base import public_page
from public.views.record import TABS, player_record, record_tab
from ratings.selectors import rating_list_current


def _player_or_redirect(id_number: int) -> Player:
    return get_object_or_404(Player.objects.select_related("federation", "merged_into", "club"), id_number=id_number)


@public_page
def player_profile(request, id_number: int):
    player = _player_or_redirect(id_number)
    if player.merged_into is not None:  # joined by _player_or_redirect: no query
        return redirect("players:profile", id_number=player.merged_into.id_number, permanent=True)
    tab = record_tab(request)
    if tab != "overview":  # the record's tabs (public/views/record.py)
        return player_record(request, player, tab)
    ratings = player_ratings(player)
    # The rows and events of the newest lists only (the history tab has the others), read from those lists'
    # partitions only: the page's cost must not grow with the lists kept (issue 17). The chart of every list is
    # a resource of its own (player_chart), as ratings.fide.com loads its chart apart from the profile.
    lines, more_history = player_recent_lines(player)
    return render(
        request,
        "players/profile.html",
        {
            "player": player,
            "ratings": [ratings.get(t, {"rating_type": t, "rating": None, "missing": True}) for t in RatingType.values],
            "history": player_history_rows(player, lines),
            "more_history": more_history,
            "live_ratings": player_live_ratings(player, ratings),
            "tab": tab,
            "tabs": list(TABS.items()),
        },
    )


@public_page
@xframe_options_sameorigin  # the profile embeds it (<object>: its points keep their tooltips); DENY would blank it
def player_chart(request, id_number: int):
    """The profile's rating history chart as an SVG document: one point a published rating, every list (one
    query across the player's lines: the part of the profile that grows with the history, apart from the page)."""
    player = _player_or_redirect(id_number)
    if player.merged_into is not None:
        return redirect("players:chart", id_number=player.merged_into.id_number, permanent=True)
    return render(
        request,
        "players/chart.svg",
        {"player": player, "chart_points": chart_points(player_lines(player))},
        content_type="image/svg+xml; charset=utf-8",
    )


@public_page
def player_calculations(request, id_number: int, list_date: datetime.date, rating_type: str):
    player = _player_or_redirect(id_number)
    if player.merged_into is not None:  # joined by _player_or_redirect: no query
        return redirect(
            "players:calculations",
            id_number=player.merged_into.id_number,
            list_date=list_date,
            rating_type=rating_type,
            permanent=True,
        )
    rating_list = rating_list_current(rating_type, list_date)
    if rating_list is None:
        raise Http404("no published list of that date and rating type")
    calculation = player_calculation(player, rating_list)
    if calculation["entry"] is None and not calculation["events"]:
        raise Http404("the player is not on that list")
    return render(
        request,
        "players/calculations.html",
        {
            "player": player,
            "rating_list": rating_list,
            **calculation,
        },
    )
