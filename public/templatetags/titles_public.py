"""Titles on the public pages (issue 33): a player's titles with their dates and progress toward the next one
(templates/players/_titles.html), a list's new titles (templates/ratings/_list_new_titles.html)."""

from typing import Any

from django import template

from players.models import Player
from ratings.models import RatingList
from ratings.selectors_titles import (
    NORM_GAMES_NEEDED,
    best_standard_rating,
    list_new_titles,
    player_norm_records,
    player_title_progress,
    player_titles,
)

register = template.Library()


@register.inclusion_tag("players/_titles.html", takes_context=True)
def player_titles_block(
    context: Any, player: Player, ratings: list[dict[str, Any]], live_ratings: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "player": player,
        "awards": player_titles(player),
        "progress": player_title_progress(player, ratings, live_ratings or []),
        "norms": player_norm_records(player, best_standard_rating(ratings, live_ratings or [])),
        "norm_games_needed": NORM_GAMES_NEEDED,
        "LANGUAGE_CODE": context.get("LANGUAGE_CODE"),
    }


@register.inclusion_tag("ratings/_list_new_titles.html")
def list_new_titles_block(rating_list: RatingList) -> dict[str, Any]:
    return {"rating_list": rating_list, "new_titles": list_new_titles(rating_list)}
