"""A published list under a Glicko-2 preset (ratings.engine.glicko2): the list's period is one rating period.

Called by ratings.services.publication.rating_list_compute in place of rate_period, with the same loaded
inputs; returns the entries (RatingListEntry columns). Every player rated on the previous list and every player
of the period's games is rated: the previous list's rating, deviation and volatility (unrated players and
entries without them: 1500 / 350 / 0.06, Glickman 2013 step 1), every played game of the period's events
against the opponent's pre-period rating and deviation (step 1: simultaneous games), a player without games
only gains deviation (step 6). The list prints whole ratings (.5 away from zero, as every list) and the next list
continues from the printed rating; each entry keeps its deviation (capped at the unrated 350) and volatility.
Glicko-2 has no K, newcomer pool, floor or inactivity rule: those columns are empty or zero, and the list has
no per-event rating changes (its calculation pages are empty).
"""

from __future__ import annotations

import numpy as np

from core.bulk import read_columns
from ratings.engine import PeriodGames
from ratings.engine.glicko2 import rate_glicko2
from ratings.engine.list_state import last_game_dates
from ratings.engine.rounding import round_half_away_from_zero
from ratings.engine.sorted_keys import lookup_sorted
from ratings.models import RatingListEntry
from ratings.services.publication.compute import list_entries
from ratings.services.publication.plan import Arrays, ListPlan


def _uncertainty(
    plan: ListPlan, union: np.ndarray, default_deviation: float, default_volatility: float
) -> tuple[np.ndarray, np.ndarray]:
    """Deviation and volatility of every player on the previous list (one query); the unrated values where
    the previous list has none (a player new to it, an Elo list before the switch)."""
    rows = read_columns(
        RatingListEntry.objects.filter(rating_list=plan.previous, deviation__isnull=False).order_by()
        if plan.previous is not None
        else RatingListEntry.objects.none(),
        {"player_id": "int64", "deviation": "float64", "volatility": "float64"},
    )
    order = np.argsort(rows["player_id"])
    keys = rows["player_id"][order]
    deviation = lookup_sorted(keys, rows["deviation"][order], union, default_deviation)
    volatility = lookup_sorted(keys, rows["volatility"][order], union, default_volatility)
    return np.nan_to_num(deviation, nan=default_deviation), np.nan_to_num(volatility, nan=default_volatility)


def glicko2_list_entries(
    plan: ListPlan,
    union: np.ndarray,
    rows: np.ndarray,
    before: Arrays,
    meta: Arrays,
    games: PeriodGames,
    event_end: np.ndarray,
) -> Arrays:
    """The entries of a Glicko-2 list (``union``/``rows``/``before``/``meta`` as rating_list_compute has them)."""
    spec = plan.rules.glicko2
    assert spec is not None
    n = union.size
    deviation, volatility = _uncertainty(plan, union, spec.initial_deviation, spec.initial_volatility)
    had = ~np.isnan(before["rating"])
    start = np.where(had, before["rating"], spec.initial_rating)
    white, black = rows[games.white], rows[games.black]
    player = np.concatenate([white, black])
    opponent = np.concatenate([black, white])
    score = np.concatenate([games.white_score, 1.0 - np.asarray(games.white_score)])
    result = rate_glicko2(start, deviation, volatility, player, start[opponent], deviation[opponent], score, spec)
    played = result.games > 0
    rated = had | played
    rating = np.where(rated, round_half_away_from_zero(result.new_rating), np.nan)
    ends = np.asarray(event_end)[games.event]
    with np.errstate(invalid="ignore"):
        at_least_2400, at_least_2300 = rating >= 2400, rating >= 2300
    after = {
        "rating": rating,
        "k_factor": np.full(n, np.nan),
        "rated_games_total": before["rated_games_total"] + result.games,
        "ever_2400": before["ever_2400"] | at_least_2400,
        "ever_2300": before["ever_2300"] | at_least_2300,
        "pool_games": np.zeros(n, dtype=np.int64),
        "pool_opponent_sum": np.zeros(n),
        "pool_score": np.zeros(n),
        "pool_events": np.zeros(n, dtype=np.int64),
        "pool_since": np.full(n, np.datetime64("NaT"), dtype="datetime64[D]"),
        "last_game_date": last_game_dates(before["last_game_date"], np.arange(n), player, np.concatenate([ends, ends])),
        "inactive": np.where(played, False, before["inactive"]),
        "games": result.games,
        "change": np.where(had, rating - before["rating"], np.nan),
        "is_new_rating": ~had & rated,
        "dropped_below_floor": np.zeros(n, dtype=bool),
    }
    entries = list_entries(union, after, meta)
    entries["deviation"] = np.where(rated, np.minimum(result.new_deviation, spec.initial_deviation), np.nan)
    entries["volatility"] = np.where(rated, result.new_volatility, np.nan)
    entries["adjustment"] = np.full(n, np.nan)
    return entries
