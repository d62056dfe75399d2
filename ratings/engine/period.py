"""One rating period for a whole list at once, vectorised (no Python loop over games or players).

Data flow (B.02 8.3, rating-rules.md 1.4-1.6):

1. Every game gives two sides. A side *changes its player's rating* ("rated side") when the player has a
   rating on the previous list and the opponent is rated in the game (list in force at the event's start).
   Games against unrated opponents never change a rated player's rating (B.02 8.3: "rated opponents"), and
   games between two unrated players change nothing. A side *feeds the newcomer pool* ("pooled side") when
   the player is unrated and the opponent rated.
2. Rated sides: D = own rating - opponent rating, the 400-point rule (with the 2650 exemption where the
   preset says so), PD from the preset's curve, dR = score - PD.
3. Per (player, event): K (published on the previous list, or per event for the 2009 / US Chess schemes),
   reduced so that K x n <= 700 with n the player's rated games in the period; change = K x sum dR.
4. Per player: change = sum over events; rounded once per period, .5 away from zero (or per event).
   With table 8.1.2 every dR is an exact number of hundredths and K an integer, so these sums are carried as
   integers in hundredths and the tie -2.50 goes to -3 exactly.
5. Unrated players: pooled sums (games, opponents' ratings, points) are added to the carried pool, a first
   event with zero score is disregarded, and the initial rating is computed (initial.py).

Players who got a published rating after an event started are rated in it with their new rating (the
previous-list rating stands in for the missing game rating) but count as unrated for their opponents
(rules 1.6). Which list each game's ratings come from is the caller's choice: the list in force at the
event's start (rules 1.3; case P3).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings.engine.difference_cap import apply_difference_cap
from ratings.engine.expected_score import expected_score_scaled
from ratings.engine.initial import initial_ratings
from ratings.engine.k_factor import cap_k_by_games, k_factor_for, next_k_factor
from ratings.engine.presets import RulesPreset
from ratings.engine.rating_types import RATING_TYPES
from ratings.engine.rounding import round_half_away_from_zero
from ratings.engine.uscf import bonus as uscf_bonus

__all__ = ["PeriodGames", "PeriodPlayers", "PeriodResult", "rate_period", "next_k_factor"]


def _array(values: Any, dtype: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, dtype=dtype))


@dataclass
class PeriodGames:
    """One row per rated game (played, result 1-0 / 1/2 / 0-1) in the period."""

    event: np.ndarray  # int64 event index (0..E-1), events ordered by end date, then id
    white: np.ndarray  # int64 player index
    black: np.ndarray  # int64 player index
    white_score: np.ndarray  # float64: 1.0, 0.5, 0.0
    white_rating: np.ndarray  # float64 rating of white on the list in force at the event's start (NaN = unrated)
    black_rating: np.ndarray  # float64, same for black

    @classmethod
    def from_sequences(
        cls,
        event: Sequence[int] | np.ndarray,
        white: Sequence[int] | np.ndarray,
        black: Sequence[int] | np.ndarray,
        white_score: Sequence[float] | np.ndarray,
        white_rating: Sequence[float | None] | np.ndarray,
        black_rating: Sequence[float | None] | np.ndarray,
    ) -> PeriodGames:
        """Build from any sequences (None in a rating = unrated)."""

        def ratings(values: Sequence[float | None] | np.ndarray) -> np.ndarray:
            return _array([np.nan if v is None else v for v in values], np.float64)

        return cls(
            event=_array(event, np.int64),
            white=_array(white, np.int64),
            black=_array(black, np.int64),
            white_score=_array(white_score, np.float64),
            white_rating=ratings(white_rating),
            black_rating=ratings(black_rating),
        )

    def __len__(self) -> int:
        return int(np.shape(self.event)[0])


@dataclass
class PeriodPlayers:
    """One row per player who has games in the period (or is in a newcomer pool)."""

    rating: np.ndarray  # float64 rating on the previous list (NaN = unrated)
    k_factor: np.ndarray  # float64 K published on the previous list (NaN for unrated / unknown)
    pool_games: np.ndarray  # int64 rated-opponent games already pooled (newcomer pool, earlier periods)
    pool_opponent_sum: np.ndarray  # float64 sum of those opponents' ratings
    pool_score: np.ndarray  # float64 points scored in them
    birth_year: np.ndarray  # int64 (0 = unknown)
    rated_games_total: np.ndarray  # int64 rated games before this period (30-game rule)
    ever_2400: np.ndarray  # bool: a published rating ever reached 2400
    ever_2300: np.ndarray | None = None  # bool: a published rating ever reached 2300 (junior rule); None:
    #                                       judged from the previous-list rating
    pool_events: np.ndarray | None = None  # int64 events already in the pool, incl. a disregarded first
    #                                        event; None: pool_games > 0 means the first event is behind

    @classmethod
    def create(
        cls,
        rating: Any,
        k_factor: Any = None,
        *,
        pool_games: Any = None,
        pool_opponent_sum: Any = None,
        pool_score: Any = None,
        birth_year: Any = None,
        rated_games_total: Any = None,
        ever_2400: Any = None,
        ever_2300: Any = None,
        pool_events: Any = None,
    ) -> PeriodPlayers:
        """Build with defaults: no pool, unknown birth year, 30 games played, never 2400."""

        def converted(values: Any, default: Any, dtype: Any) -> np.ndarray:
            if isinstance(values, np.ndarray) and values.dtype != object:
                return _array(values, dtype)  # fast path for arrays (None cannot occur)
            return _array([default if v is None else v for v in np.ravel(np.asarray(values, dtype=object))], dtype)

        r = converted(rating, np.nan, np.float64)
        n = r.shape[0]

        def filled(values: Any, default: Any, dtype: Any) -> np.ndarray:
            if values is None:
                return np.full(n, default, dtype=dtype)
            return converted(values, default, dtype)

        return cls(
            rating=r,
            k_factor=filled(k_factor, np.nan, np.float64),
            pool_games=filled(pool_games, 0, np.int64),
            pool_opponent_sum=filled(pool_opponent_sum, 0.0, np.float64),
            pool_score=filled(pool_score, 0.0, np.float64),
            birth_year=filled(birth_year, 0, np.int64),
            rated_games_total=filled(rated_games_total, 30, np.int64),
            ever_2400=filled(ever_2400, False, bool),
            ever_2300=None if ever_2300 is None else filled(ever_2300, False, bool),
            pool_events=None if pool_events is None else filled(pool_events, 0, np.int64),
        )

    def __len__(self) -> int:
        return int(np.shape(self.rating)[0])


@dataclass
class PeriodResult:
    # per game, for each side (length G)
    white_opponent_rating_used: np.ndarray  # after the difference cap (what FIDE prints); NaN: opponent unrated
    black_opponent_rating_used: np.ndarray
    white_capped: np.ndarray  # bool
    black_capped: np.ndarray
    white_difference: np.ndarray  # D used (after the cap); NaN where the side is not rated
    black_difference: np.ndarray
    white_expected_score: np.ndarray  # PD; NaN where the side is not rated
    black_expected_score: np.ndarray
    white_rated: np.ndarray  # bool: this side's rating changes from this game
    black_rated: np.ndarray
    white_change: np.ndarray  # K_used * (score - PD) for that side; 0 where not rated
    black_change: np.ndarray
    # per player (length P)
    games: np.ndarray  # int64 games counted in the period (rated players: n of K x n; unrated: pooled games)
    k_factor_used: np.ndarray  # float64 K after K x n <= 700 (last event's K for per-event schemes); NaN unrated
    expected: np.ndarray  # sum PD
    score: np.ndarray  # sum of points in the counted games
    change: np.ndarray  # unrounded K * sum(score - PD)
    rounded_change: np.ndarray  # rounded once per period (or per event, per rules.rounding)
    new_rating: np.ndarray  # previous rating + rounded change; for unrated players the published initial
    #                         rating if one is established (NaN otherwise)
    initial_rating: np.ndarray  # computed initial rating (NaN if fewer than min games; rated players NaN)
    initial_published: np.ndarray  # bool (>= min games and >= publish threshold)
    pool_games: np.ndarray  # updated newcomer pool for players still unrated (zero once rated)
    pool_opponent_sum: np.ndarray
    pool_score: np.ndarray
    # per (player, event), parallel arrays sorted by player then event
    pe_player: np.ndarray
    pe_event: np.ndarray
    pe_games: np.ndarray
    pe_score: np.ndarray
    pe_expected: np.ndarray
    pe_change: np.ndarray  # K_used * sum dR for that event (0 for unrated players)
    # additions beyond the contract
    white_k_factor: np.ndarray  # K used for the side (NaN where the side counts for nothing)
    black_k_factor: np.ndarray
    white_pooled: np.ndarray  # bool: the game counts towards the unrated player's initial rating
    black_pooled: np.ndarray
    excluded: np.ndarray  # bool per game: not rated (rapid/blitz 600-point rule)
    pe_k_factor: np.ndarray  # K used in that event (NaN for unrated players)
    pe_rounded_change: np.ndarray  # per-event rounded change when rules.rounding == 'per-event', else NaN
    pe_pooled: np.ndarray  # bool: an unrated player's event counted in the pool
    pe_disregarded: np.ndarray  # bool: an unrated player's event disregarded (zero in the first event, ...)
    pool_events: np.ndarray  # int64 events entered into the pool so far (incl. disregarded)
    list_rating: np.ndarray  # new_rating with the rating floor applied (NaN: shown as unrated)
    dropped_below_floor: np.ndarray  # bool: rated player whose new rating fell below the floor
    rated_games_total: np.ndarray  # int64 including this period's counted games (rules 9 Q8: pooled count)
    ever_2400: np.ndarray  # bool, including the new list rating
    ever_2300: np.ndarray
    next_k_factor: np.ndarray  # K to publish with the new list


def _group(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct keys ascending, one member index per key, group id of every element).

    Like np.unique(return_index, return_inverse) but with an unstable sort (any member will do as the
    representative): about twice as fast on millions of game sides."""
    n = key.shape[0]
    perm = np.argsort(key)
    sorted_key = key[perm]
    start = np.empty(n, dtype=bool)
    start[:1] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=start[1:])
    inverse = np.empty(n, dtype=np.int64)
    inverse[perm] = np.cumsum(start) - 1
    return sorted_key[start], perm[start], inverse


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _validate(players: PeriodPlayers, games: PeriodGames, rating_type: str) -> None:
    if rating_type not in RATING_TYPES:
        raise ValueError(f"rating_type {rating_type!r} is unknown; use one of {RATING_TYPES}")
    p = len(players)
    for name in (
        "k_factor",
        "pool_games",
        "pool_opponent_sum",
        "pool_score",
        "birth_year",
        "rated_games_total",
        "ever_2400",
        "ever_2300",
        "pool_events",
    ):
        values = getattr(players, name)
        if values is not None and np.shape(values) != (p,):
            raise ValueError(f"players.{name} has shape {np.shape(values)}, expected ({p},) like players.rating")
    if np.isinf(players.rating).any():
        raise ValueError(f"players row {_first_bad(np.isinf(players.rating))}: rating is infinite")
    g = len(games)
    for name in ("white", "black", "white_score", "white_rating", "black_rating"):
        if np.shape(getattr(games, name)) != (g,):
            raise ValueError(f"games.{name} has shape {np.shape(getattr(games, name))}, expected ({g},)")
    if g == 0:
        return
    checks: list[tuple[np.ndarray, Callable[[int], str]]] = [
        (games.event < 0, lambda i: f"event index {games.event[i]} is negative"),
        (
            (games.white < 0) | (games.white >= p),
            lambda i: f"white player index {games.white[i]} is not 0..{p - 1}",
        ),
        (
            (games.black < 0) | (games.black >= p),
            lambda i: f"black player index {games.black[i]} is not 0..{p - 1}",
        ),
        (games.white == games.black, lambda i: f"player {games.white[i]} plays himself"),
        (
            ~np.isin(games.white_score, (0.0, 0.5, 1.0)),
            lambda i: f"white_score {float(games.white_score[i])!r} is not 1, 0.5 or 0",
        ),
        (np.isinf(games.white_rating), lambda i: "white_rating is infinite"),
        (np.isinf(games.black_rating), lambda i: "black_rating is infinite"),
    ]
    for bad, message in checks:
        if bad.any():
            i = _first_bad(bad)
            raise ValueError(f"games row {i} (event {games.event[i]}): {message(i)}")


def rate_period(
    players: PeriodPlayers,
    games: PeriodGames,
    rules: RulesPreset,
    list_date: datetime.date,
    *,
    rating_type: str = "standard",
    use_published_k: bool | None = None,
) -> PeriodResult:
    """Rate one period for every player at once.

    ``rating_type`` selects the per-type rules (2650 exemption, rapid/blitz 600-point exclusion).
    ``use_published_k`` overrides the scheme's choice between the K published on the previous list
    (players.k_factor) and a K derived per event (2009 / US Chess schemes); the calculator uses it to honour
    an explicit K.
    """
    if rules.glicko2 is not None:
        raise ValueError(f"preset {rules.slug} is a Glicko-2 system: rate it with ratings.engine.glicko2")
    _validate(players, games, rating_type)
    num_players = len(players)
    num_games = len(games)
    num_events = int(games.event.max()) + 1 if num_games else 1
    prev = np.asarray(players.rating, dtype=np.float64)
    player_rated = ~np.isnan(prev)

    # --- game sides: 0..G-1 white, G..2G-1 black
    side_player = np.concatenate((games.white, games.black))
    side_event = np.concatenate((games.event, games.event))
    seen_rating = np.concatenate((games.white_rating, games.black_rating))  # as the opponent sees this side
    opp_rating = np.concatenate((games.black_rating, games.white_rating))
    white_score = np.asarray(games.white_score, dtype=np.float64)
    side_score = np.concatenate((white_score, 1.0 - white_score))

    excluded = np.zeros(num_games, dtype=bool)
    if rules.rapid_blitz_gap_exclusion is not None and rating_type in ("rapid", "blitz"):
        # Rapid/blitz from 1 Dec 2024: >= 600 apart and either rated above 2600 -> not rated (rules 1.2)
        gap, above = rules.rapid_blitz_gap_exclusion
        with np.errstate(invalid="ignore"):
            excluded = (np.abs(games.white_rating - games.black_rating) >= gap) & (
                np.fmax(games.white_rating, games.black_rating) > above
            )
    opp_known = ~np.isnan(opp_rating) & ~np.concatenate((excluded, excluded))
    self_rated = player_rated[side_player]
    rated_side = self_rated & opp_known
    pooled_candidate = ~self_rated & opp_known
    # rules 1.6: a player published since the event started plays it with the new rating
    own_rating = np.where(np.isnan(seen_rating), prev[side_player], seen_rating)

    # --- counted sides, grouped by (player, event)
    counted = np.flatnonzero(rated_side | pooled_candidate)
    c_player = side_player[counted]
    c_event = side_event[counted]
    c_rated = rated_side[counted]
    c_score = side_score[counted]
    c_opp = opp_rating[counted]
    c_own = own_rating[counted]
    del side_player, side_event, seen_rating, opp_rating, side_score, own_rating, opp_known, self_rated
    del pooled_candidate  # the side arrays are not needed again: keep peak memory down

    scale = rules.expected_score.result_scale
    r_pos = np.flatnonzero(c_rated)
    d_used, opp_used, capped = apply_difference_cap(c_own[r_pos], c_opp[r_pos], rules.difference_cap, rating_type)
    pd_scaled = expected_score_scaled(d_used, rules.expected_score)
    c_pd = np.zeros(counted.shape[0])
    c_pd[r_pos] = pd_scaled
    c_dr = np.zeros(counted.shape[0])
    c_dr[r_pos] = c_score[r_pos] * scale - pd_scaled  # exact hundredths with the table

    key = c_player * np.int64(num_events) + c_event
    pe_key, pe_first, pe_inv = _group(key)
    pe_player = pe_key // num_events
    pe_event = pe_key % num_events
    num_pe = pe_key.shape[0]
    pe_games = np.bincount(pe_inv, minlength=num_pe).astype(np.int64)
    pe_score = np.bincount(pe_inv, weights=c_score, minlength=num_pe)
    pe_dr = np.bincount(pe_inv, weights=c_dr, minlength=num_pe)
    pe_pd = np.bincount(pe_inv, weights=c_pd, minlength=num_pe)
    pe_rated = player_rated[pe_player]

    # --- K, then B.02 8.3.3: K x n <= 700 over the period
    rated_games = np.bincount(pe_player[pe_rated], weights=pe_games[pe_rated], minlength=num_players).astype(np.int64)
    spec = rules.k_factor
    published_k = spec.uses_published_k if use_published_k is None else use_published_k
    ever_2300 = players.ever_2300
    if published_k:
        k_player = np.array(players.k_factor, dtype=np.float64, copy=True)
        missing = player_rated & np.isnan(k_player)
        if missing.any():
            k_player[missing] = k_factor_for(
                spec,
                prev[missing],
                players.rated_games_total[missing],
                players.ever_2400[missing],
                players.birth_year[missing],
                list_date,
                ever_2300=None if ever_2300 is None else ever_2300[missing],
                games_in_event=np.zeros(int(missing.sum()), dtype=np.int64),
            )
        pe_k = k_player[pe_player]
    else:
        # K from the rating at the start of the tournament (2009) / the games of the event (US Chess)
        pe_k = k_factor_for(
            spec,
            c_own[pe_first],
            players.rated_games_total[pe_player],
            players.ever_2400[pe_player],
            players.birth_year[pe_player],
            list_date,
            ever_2300=None if ever_2300 is None else ever_2300[pe_player],
            games_in_event=pe_games,
        )
    pe_k = np.where(pe_rated, pe_k, np.nan)
    if np.isnan(pe_k[pe_rated]).any():
        bad = int(pe_player[pe_rated][np.isnan(pe_k[pe_rated])][0])
        raise ValueError(f"players row {bad}: no K factor (set players.k_factor or use a scheme that derives K)")
    pe_k_used = cap_k_by_games(pe_k, rated_games[pe_player], rules.k_times_n_cap)
    pe_change_scaled = np.where(pe_rated, pe_k_used * pe_dr, 0.0)
    if spec.bonus_threshold is not None:
        extra = uscf_bonus(pe_change_scaled / scale, pe_games, spec.bonus_threshold) * scale
        pe_change_scaled = pe_change_scaled + np.where(pe_rated, extra, 0.0)

    change_scaled = np.bincount(pe_player, weights=pe_change_scaled, minlength=num_players)
    pe_rounded_change = np.full(num_pe, np.nan)
    if rules.rounding == "per-period":
        # B.02 8.3.4: the rating change for a rating period is rounded, .5 away from zero
        rounded_change = round_half_away_from_zero(change_scaled, scale)
    elif rules.rounding == "per-event":
        pe_rounded_change = np.where(pe_rated, round_half_away_from_zero(pe_change_scaled, scale), np.nan)
        rounded_change = np.bincount(pe_player, weights=np.nan_to_num(pe_rounded_change), minlength=num_players)
    else:
        rounded_change = change_scaled / scale
    change = change_scaled / scale
    new_rating = np.where(player_rated, prev + rounded_change, np.nan)

    # --- newcomer pool and initial ratings
    ispec = rules.initial_rating
    pe_candidate = ~pe_rated
    first_row = np.ones(num_pe, dtype=bool)
    first_row[1:] = pe_player[1:] != pe_player[:-1]
    if players.pool_events is not None:
        events_before = np.asarray(players.pool_events, dtype=np.int64)
    else:
        events_before = (np.asarray(players.pool_games) > 0).astype(np.int64)
    below = pe_score < ispec.min_event_score
    few = pe_games < ispec.min_rated_opponents_per_event
    if ispec.disregard_scope == "first-event":
        # B.02 8.2: an unrated player scoring zero in their first event: that event is disregarded
        disregard = (first_row & (events_before[pe_player] == 0) & below) | few
    else:
        disregard = below | few
    pe_pooled = pe_candidate & ~disregard
    pe_disregarded = pe_candidate & disregard
    pe_opp_sum = np.bincount(pe_inv, weights=c_opp, minlength=num_pe)
    add_games = np.bincount(pe_player[pe_pooled], weights=pe_games[pe_pooled], minlength=num_players).astype(np.int64)
    add_sum = np.bincount(pe_player[pe_pooled], weights=pe_opp_sum[pe_pooled], minlength=num_players)
    add_score = np.bincount(pe_player[pe_pooled], weights=pe_score[pe_pooled], minlength=num_players)
    pool_events = events_before + np.bincount(pe_player[pe_candidate], minlength=num_players)
    unrated = ~player_rated
    pool_games = np.where(unrated, np.asarray(players.pool_games, dtype=np.int64) + add_games, 0)
    pool_sum = np.where(unrated, np.asarray(players.pool_opponent_sum, dtype=np.float64) + add_sum, 0.0)
    pool_score = np.where(unrated, np.asarray(players.pool_score, dtype=np.float64) + add_score, 0.0)
    initial = initial_ratings(pool_games, pool_sum, pool_score, ispec)
    initial_rating = np.where(unrated, initial.rating, np.nan)
    initial_published = unrated & initial.published
    new_rating = np.where(initial_published, initial_rating, new_rating)
    pool_games = np.where(initial_published, 0, pool_games)
    pool_sum = np.where(initial_published, 0.0, pool_sum)
    pool_score = np.where(initial_published, 0.0, pool_score)
    pool_events = np.where(player_rated | initial_published, 0, pool_events)

    # --- per-player totals
    games_counted = np.where(player_rated, rated_games, add_games)
    counted_pe = pe_rated | pe_pooled
    score = np.bincount(pe_player[counted_pe], weights=pe_score[counted_pe], minlength=num_players)
    expected = np.bincount(pe_player, weights=pe_pd, minlength=num_players) / scale
    last_row = np.ones(num_pe, dtype=bool)
    last_row[:-1] = pe_player[:-1] != pe_player[1:]
    k_used = np.full(num_players, np.nan)
    if published_k:
        k_used[player_rated] = k_player[player_rated]
    else:
        k_used[player_rated] = k_factor_for(
            spec,
            prev[player_rated],
            players.rated_games_total[player_rated],
            players.ever_2400[player_rated],
            players.birth_year[player_rated],
            list_date,
            ever_2300=None if ever_2300 is None else ever_2300[player_rated],
            games_in_event=np.zeros(int(player_rated.sum()), dtype=np.int64),
        )
    k_used[pe_player[last_row & pe_rated]] = pe_k_used[last_row & pe_rated]

    # --- the next list: floor, K status
    list_rating = new_rating.copy()
    dropped = np.zeros(num_players, dtype=bool)
    if rules.rating_floor is not None:
        # B.02 7.2: a rating below 1400 is shown as unrated on the next list
        with np.errstate(invalid="ignore"):
            dropped = player_rated & (new_rating < rules.rating_floor)
        list_rating[dropped] = np.nan
    rated_games_total = np.asarray(players.rated_games_total, dtype=np.int64) + games_counted
    with np.errstate(invalid="ignore"):
        ever_2400_out = np.asarray(players.ever_2400, dtype=bool) | (list_rating >= 2400)
        base_2300 = np.asarray(ever_2300, dtype=bool) if ever_2300 is not None else np.asarray(prev >= 2300)
        ever_2300_out = base_2300 | (list_rating >= 2300)
    k_next = next_k_factor(
        list_rating,
        rated_games_total,
        ever_2400_out,
        players.birth_year,
        list_date,
        rules,
        ever_2300=ever_2300_out,
    )

    # --- per-game detail
    num_sides = 2 * num_games
    side_opp_used = np.full(num_sides, np.nan)
    side_capped = np.zeros(num_sides, dtype=bool)
    side_difference = np.full(num_sides, np.nan)
    side_expected = np.full(num_sides, np.nan)
    side_k = np.full(num_sides, np.nan)
    side_change = np.zeros(num_sides)
    side_pooled = np.zeros(num_sides, dtype=bool)
    rated_sides = counted[r_pos]
    side_opp_used[counted] = c_opp
    side_opp_used[rated_sides] = opp_used
    side_capped[rated_sides] = capped
    side_difference[rated_sides] = d_used
    side_expected[rated_sides] = pd_scaled / scale
    c_k = pe_k_used[pe_inv]
    side_k[counted] = c_k
    side_change[rated_sides] = c_k[r_pos] * c_dr[r_pos] / scale
    side_pooled[counted] = pe_pooled[pe_inv]
    g = num_games

    return PeriodResult(
        white_opponent_rating_used=side_opp_used[:g],
        black_opponent_rating_used=side_opp_used[g:],
        white_capped=side_capped[:g],
        black_capped=side_capped[g:],
        white_difference=side_difference[:g],
        black_difference=side_difference[g:],
        white_expected_score=side_expected[:g],
        black_expected_score=side_expected[g:],
        white_rated=rated_side[:g],
        black_rated=rated_side[g:],
        white_change=side_change[:g],
        black_change=side_change[g:],
        games=games_counted,
        k_factor_used=k_used,
        expected=expected,
        score=score,
        change=change,
        rounded_change=rounded_change,
        new_rating=new_rating,
        initial_rating=initial_rating,
        initial_published=initial_published,
        pool_games=pool_games,
        pool_opponent_sum=pool_sum,
        pool_score=pool_score,
        pe_player=pe_player,
        pe_event=pe_event,
        pe_games=pe_games,
        pe_score=pe_score,
        pe_expected=pe_pd / scale,
        pe_change=pe_change_scaled / scale,
        white_k_factor=side_k[:g],
        black_k_factor=side_k[g:],
        white_pooled=side_pooled[:g],
        black_pooled=side_pooled[g:],
        excluded=excluded,
        pe_k_factor=pe_k_used,
        pe_rounded_change=pe_rounded_change,
        pe_pooled=pe_pooled,
        pe_disregarded=pe_disregarded,
        pool_events=pool_events,
        list_rating=list_rating,
        dropped_below_floor=dropped,
        rated_games_total=rated_games_total,
        ever_2400=ever_2400_out,
        ever_2300=ever_2300_out,
        next_k_factor=k_next,
    )
