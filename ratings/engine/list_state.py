"""The state a rating list carries to the next one, and the list's own columns, from the period's result.

A list holds one line per player with rating state: the players of the previous list (copied forward when they
played nothing) and the players with games in the period. Every function here takes the state columns of those
players as NumPy arrays (one row per player, the same order everywhere) and dates as parameters; nothing reads
the clock or a database. ratings.services.publication loads the columns, calls :func:`list_state_after` (or
:func:`glicko2_list_state_after` under a Glicko-2 preset) and stores what it returns.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping

import numpy as np

from ratings.engine.glicko2 import Glicko2Spec, rate_glicko2
from ratings.engine.inactivity import inactive_flags
from ratings.engine.initial import InitialRatingSpec, pool_window_start
from ratings.engine.k_factor import next_k_factor
from ratings.engine.period import PeriodGames, PeriodResult
from ratings.engine.presets import RulesPreset
from ratings.engine.rounding import round_half_away_from_zero

# The per-player state one list carries to the next, in the order of its columns.
STATE_FIELDS = (
    "rating",  # NaN: unrated
    "k_factor",  # K published with the list (NaN: unrated)
    "rated_games_total",  # B.02 8.3.3: the 30-game rule
    "ever_2400",  # B.02 8.3.3: published rating reached 2400 once -> K 10 for good
    "ever_2300",  # B.02 8.3.3: a junior who reached 2300 leaves K 40
    "pool_games",  # B.02 7.1.4 / 8.2: an unrated player's pooled games against rated opponents
    "pool_opponent_sum",
    "pool_score",
    "pool_events",
    "pool_since",  # datetime64[D]: start of the period in which the pool began (NaT: no pool)
    "last_game_date",  # datetime64[D]: end date of the last event with a counted game (NaT: none)
    "inactive",  # B.02 7.2
)
# What a player new to the list starts with, per STATE_FIELDS name: (value, dtype). Unrated, no K, no rated games,
# never 2400 / 2300, no pool, no game date, active.
NEW_PLAYER_STATE: dict[str, tuple[object, str]] = {
    "rating": (np.nan, "float64"),
    "k_factor": (np.nan, "float64"),
    "rated_games_total": (0, "int64"),
    "ever_2400": (False, "bool"),
    "ever_2300": (False, "bool"),
    "pool_games": (0, "int64"),
    "pool_opponent_sum": (0.0, "float64"),
    "pool_score": (0.0, "float64"),
    "pool_events": (0, "int64"),
    "pool_since": (np.datetime64("NaT"), "datetime64[D]"),
    "last_game_date": (np.datetime64("NaT"), "datetime64[D]"),
    "inactive": (False, "bool"),
}
assert tuple(NEW_PLAYER_STATE) == STATE_FIELDS
# The pool of an unrated player (B.02 7.1.4), dropped as a whole when it leaves the 26-month window.
POOL_FIELDS = ("pool_games", "pool_opponent_sum", "pool_score", "pool_events", "pool_since")
# The K inputs the engine updates for the players of the period (the others keep theirs).
PERIOD_FIELDS = (
    "rated_games_total",
    "ever_2400",
    "ever_2300",
    "pool_games",
    "pool_opponent_sum",
    "pool_score",
    "pool_events",
)

Arrays = dict[str, np.ndarray]


def expired_pools(pool_since: np.ndarray, list_date: datetime.date, spec: InitialRatingSpec) -> np.ndarray:
    """Bool per player: the pool began before the window of ``list_date`` (B.02 7.1.4: games pooled for an
    initial rating come from rating periods totalling at most 26 months). A pool beginning on the window's
    first day stays; players without a pool (NaT) never expire; rules without a window keep every pool."""
    since = np.asarray(pool_since, dtype="datetime64[D]")
    window_start = pool_window_start(list_date, spec)
    if window_start is None:
        return np.zeros(since.shape, dtype=bool)
    expired: np.ndarray = ~np.isnat(since) & (since < np.datetime64(window_start, "D"))
    return expired


def drop_expired_pools(state: Mapping[str, np.ndarray], list_date: datetime.date, spec: InitialRatingSpec) -> Arrays:
    """The POOL_FIELDS of ``state`` with every pool outside the window of ``list_date`` emptied (counts and sums
    0, pool_since NaT). ``state`` is not changed: new arrays when a pool expired, the same ones otherwise."""
    expired = expired_pools(state["pool_since"], list_date, spec)
    if not expired.any():
        return {name: state[name] for name in POOL_FIELDS}
    pools = {name: np.array(state[name], copy=True) for name in POOL_FIELDS}
    for name in ("pool_games", "pool_events", "pool_opponent_sum", "pool_score"):
        pools[name][expired] = 0
    pools["pool_since"][expired] = np.datetime64("NaT")
    return pools


def pool_start_dates(
    before_since: np.ndarray,
    had_pool: np.ndarray,
    has_pool: np.ndarray,
    period_start: datetime.date,
) -> np.ndarray:
    """pool_since after a list: a pool that goes on keeps its start, a pool begun in this period starts at the
    period's start (the 26-month window counts whole periods), no pool is NaT."""
    since = np.where(had_pool & has_pool & ~np.isnat(before_since), before_since, np.datetime64(period_start, "D"))
    return np.where(has_pool, since, np.datetime64("NaT")).astype("datetime64[D]")


def last_game_dates(
    before_last: np.ndarray,
    rows: np.ndarray,
    pe_player: np.ndarray,
    pe_event_end: np.ndarray,
) -> np.ndarray:
    """Date of each player's last rated game after the period: the end date of their last event with a counted
    game (``pe_player`` indexes ``rows``, the players' rows in ``before_last``), else the date they had."""
    last_days = np.asarray(before_last, dtype="datetime64[D]").astype(np.int64)  # NaT: the smallest int64
    if pe_player.size:
        period_last = np.full(rows.size, np.iinfo(np.int64).min, dtype=np.int64)
        np.maximum.at(period_last, pe_player, np.asarray(pe_event_end, dtype="datetime64[D]").astype(np.int64))
        last_days[rows] = np.maximum(last_days[rows], period_last)
    return last_days.astype("datetime64[D]")


def inactive_after(
    last_game: np.ndarray, before_inactive: np.ndarray, list_date: datetime.date, months: int | None
) -> np.ndarray:
    """B.02 7.2: inactive after ``months`` without a rated game (the rating itself does not change); a player
    whose last game is unknown keeps the flag they had."""
    flags = inactive_flags(last_game, list_date, months)
    return np.where(np.isnat(last_game), before_inactive, flags).astype(bool)


def list_ratings(before_rating: np.ndarray, rows: np.ndarray, list_rating: np.ndarray, rounding: str) -> np.ndarray:
    """The ratings printed on the list: the period's ratings (floor applied by the engine, B.02 7.2) for its
    players, the previous ones for the others. Lists print integers (B.02 8.3.4): schemes that do not round the
    change ("none") are rounded here, .5 away from zero."""
    rating = np.array(before_rating, dtype=np.float64, copy=True)
    rating[rows] = list_rating
    if rounding == "none":
        rating = np.where(np.isnan(rating), np.nan, round_half_away_from_zero(rating))
    return rating


def list_changes(before_rating: np.ndarray, rows: np.ndarray, rounded_change: np.ndarray) -> np.ndarray:
    """The change printed on the list: the rounded period change of a player rated before, 0 for a rated
    player without games, NaN for a player unrated before (a new rating is not a change)."""
    was_rated = ~np.isnan(before_rating)
    change = np.where(was_rated, 0.0, np.nan)
    change[rows] = np.where(was_rated[rows], rounded_change, np.nan)
    return change


def list_k_factors(
    rating: np.ndarray,
    state: Mapping[str, np.ndarray],
    birth_year: np.ndarray,
    rows: np.ndarray,
    period_next_k: np.ndarray,
    list_date: datetime.date,
    rules: RulesPreset,
) -> np.ndarray:
    """K published with the list (rules 1.5: status changes take effect on the next list): the engine's next K
    for the period's players, the preset's K from the carried K inputs for the others, NaN for unrated."""
    k_next = next_k_factor(
        rating,
        state["rated_games_total"],
        state["ever_2400"],
        birth_year,
        list_date,
        rules,
        ever_2300=state["ever_2300"],
    )
    k_next[rows] = period_next_k
    return np.where(np.isnan(rating), np.nan, k_next)


def list_state_after(
    before: Mapping[str, np.ndarray],
    rows: np.ndarray,
    result: PeriodResult,
    event_end: np.ndarray,
    birth_year: np.ndarray,
    rules: RulesPreset,
    list_date: datetime.date,
    period_start: datetime.date,
) -> Arrays:
    """Every player's line on the new list and the state it carries (STATE_FIELDS), plus ``games``, ``change``,
    ``is_new_rating`` and ``dropped_below_floor``.

    ``before``: STATE_FIELDS of every player with state (pools already outside the window dropped),
    ``rows``: the row in ``before`` of each of the engine's players (``result`` is indexed by them),
    ``event_end``: the end date of each of the period's events (``result.player_events.event`` indexes it),
    ``birth_year`` per row (0: unknown), ``period_start``: where a pool begun in this period starts.
    """
    n = before["rating"].size
    rating = list_ratings(before["rating"], rows, result.players.list_rating, rules.rounding)
    state = {name: np.array(before[name], copy=True) for name in PERIOD_FIELDS}
    for name in PERIOD_FIELDS:
        state[name][rows] = getattr(result.players, name)
    has_pool = (state["pool_games"] > 0) | (state["pool_events"] > 0)
    had_pool = (before["pool_games"] > 0) | (before["pool_events"] > 0)
    last_game = last_game_dates(
        before["last_game_date"], rows, result.player_events.player, event_end[result.player_events.event]
    )
    games = np.zeros(n, dtype=np.int64)
    games[rows] = result.players.games
    dropped = np.zeros(n, dtype=bool)
    dropped[rows] = result.players.dropped_below_floor
    return {
        "rating": rating,
        "k_factor": list_k_factors(rating, state, birth_year, rows, result.players.next_k_factor, list_date, rules),
        **state,
        "pool_since": pool_start_dates(before["pool_since"], had_pool, has_pool, period_start),
        "last_game_date": last_game,
        "inactive": inactive_after(last_game, before["inactive"], list_date, rules.inactivity_months),
        "games": games,
        "change": list_changes(before["rating"], rows, result.players.rounded_change),
        "is_new_rating": ~np.isnan(rating) & np.isnan(before["rating"]),
        "dropped_below_floor": dropped,
    }


def list_order(
    player_id: np.ndarray, rating: np.ndarray, inactive: np.ndarray, federation: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position, world rank and federation rank of every entry (NaN where none).

    Position: the line on the published list, 1 to the number of rated entries, by rating (highest first) then
    player id. Rank: active rated players rated higher + 1 (ties share a rank; inactive and unrated players have
    none, B.02 7.2); federation rank the same among the players of one federation ("" : none).
    """
    n = rating.size
    position = np.full(n, np.nan)
    rank = np.full(n, np.nan)
    federation_rank = np.full(n, np.nan)
    rated = np.flatnonzero(~np.isnan(rating))
    position[rated[np.lexsort((player_id[rated], -rating[rated]))]] = np.arange(1, rated.size + 1)
    ranked = np.flatnonzero(~np.isnan(rating) & ~inactive)
    if not ranked.size:
        return position, rank, federation_rank
    r = rating[ranked]
    world = np.sort(r)
    rank[ranked] = world.size - np.searchsorted(world, r, side="right") + 1
    member = federation[ranked] != ""
    codes, code = np.unique(federation[ranked][member], return_inverse=True)
    if codes.size:
        # one sorted key per (federation, rating): players above = end of the federation's run - position
        span = float(np.max(r) + 1)
        key = code * span + r[member]
        keys = np.sort(key)
        run_end = np.searchsorted(keys, (code + 1) * span, side="left")
        federation_rank[ranked[member]] = run_end - np.searchsorted(keys, key, side="right") + 1
    return position, rank, federation_rank


def glicko2_list_state_after(
    before: Mapping[str, np.ndarray],
    rows: np.ndarray,
    games: PeriodGames,
    event_end: np.ndarray,
    deviation: np.ndarray,
    volatility: np.ndarray,
    spec: Glicko2Spec,
) -> tuple[Arrays, np.ndarray, np.ndarray]:
    """A list under a Glicko-2 preset, the list's period being one rating period (ratings.engine.glicko2): the
    line and state of every player (as :func:`list_state_after` returns them) and each entry's deviation and
    volatility (NaN where the player stays unrated).

    ``before``/``rows``/``event_end`` as for :func:`list_state_after`; ``deviation``/``volatility`` per row of
    ``before`` (:func:`ratings.engine.glicko2.glicko2_uncertainty`). Every player rated on the previous list and
    every player of the period's games is rated: unrated players start at the preset's unrated state (Glickman
    2013 step 1), every game against the opponent's pre-period rating and deviation (step 1: simultaneous
    games), a player without games only gains deviation (step 6). The list prints whole ratings (.5 away from
    zero, as every list); the deviation is capped at the unrated one. Glicko-2 has no K, newcomer pool, floor
    or inactivity rule: those columns are empty or zero.
    """
    n = before["rating"].size
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
    entry_deviation = np.where(rated, np.minimum(result.new_deviation, spec.initial_deviation), np.nan)
    return after, entry_deviation, np.where(rated, result.new_volatility, np.nan)
