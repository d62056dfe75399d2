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

Each step is a function that can be read and tested alone, called by :func:`rate_period` in this order:
excluded_games (rules 1.2), counted_sides (1), side_expectations (2), event_sums, published_k_factors /
event_k_factors / rated_games_in_period / event_changes (3), rounded_changes (4), disregarded_events /
newcomer_pool (5), player_k_factors, next_list_status (floor and K for the next list), game_sides and
player_event_results (what a calculation page prints). The result groups its arrays by what they describe:
:class:`GameSide` (``white``, ``black``), ``excluded`` per game, :class:`PlayerResults` (``players``) and
:class:`PlayerEventResults` (``player_events``).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings.engine.change_lines import own_ratings
from ratings.engine.difference_cap import apply_difference_cap
from ratings.engine.expected_score import expected_score_scaled
from ratings.engine.initial import InitialRatingSpec, initial_ratings
from ratings.engine.k_factor import cap_k_by_games, k_factor_for, next_k_factor
from ratings.engine.presets import RulesPreset
from ratings.engine.rating_types import RATING_TYPES
from ratings.engine.rounding import round_half_away_from_zero
from ratings.engine.uscf import bonus as uscf_bonus

__all__ = [
    "GameSide",
    "PeriodGames",
    "PeriodPlayers",
    "PeriodResult",
    "PlayerEventResults",
    "PlayerResults",
    "next_k_factor",
    "rate_period",
]


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


@dataclass(frozen=True)
class GameSide:
    """One colour's side of every game of the period (length G, parallel to PeriodGames): what FIDE prints
    on a player's calculation page for that game."""

    opponent_rating_used: np.ndarray  # after the difference cap (what FIDE prints); NaN: opponent unrated
    capped: np.ndarray  # bool: the 400-point rule changed the opponent's rating
    difference: np.ndarray  # D used (after the cap); NaN where the side is not rated
    expected_score: np.ndarray  # PD; NaN where the side is not rated
    rated: np.ndarray  # bool: this side's rating changes from this game
    change: np.ndarray  # K_used * (score - PD) for that side; 0 where not rated
    k_factor: np.ndarray  # K used for the side (NaN where the side counts for nothing)
    pooled: np.ndarray  # bool: the game counts towards the unrated player's initial rating


@dataclass(frozen=True)
class PlayerResults:
    """One row per player of PeriodPlayers (length P): the period's totals and the state for the next list."""

    games: np.ndarray  # int64 games counted in the period (rated players: n of K x n; unrated: pooled games)
    k_factor_used: np.ndarray  # float64 K after K x n <= 700 (last event's K for per-event schemes); NaN unrated
    expected_score: np.ndarray  # sum PD
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
    pool_events: np.ndarray  # int64 events entered into the pool so far (incl. disregarded)
    list_rating: np.ndarray  # new_rating with the rating floor applied (NaN: shown as unrated)
    dropped_below_floor: np.ndarray  # bool: rated player whose new rating fell below the floor
    rated_games_total: np.ndarray  # int64 including this period's counted games (rules 9 Q8: pooled count)
    ever_2400: np.ndarray  # bool, including the new list rating
    ever_2300: np.ndarray
    next_k_factor: np.ndarray  # K to publish with the new list


@dataclass(frozen=True)
class PlayerEventResults:
    """One row per (player, event) with a counted game, parallel arrays sorted by player then event: the
    rating change of one player in one event (a RatingChange row)."""

    player: np.ndarray  # int64 player index
    event: np.ndarray  # int64 event index
    games: np.ndarray  # int64 counted games
    score: np.ndarray
    expected_score: np.ndarray  # sum PD
    change: np.ndarray  # K_used * sum dR for that event (0 for unrated players)
    k_factor: np.ndarray  # K used in that event (NaN for unrated players)
    rounded_change: np.ndarray  # per-event rounded change when rules.rounding == 'per-event', else NaN
    pooled: np.ndarray  # bool: an unrated player's event counted in the pool
    disregarded: np.ndarray  # bool: an unrated player's event disregarded (zero in the first event, ...)


@dataclass(frozen=True)
class PeriodResult:
    """What :func:`rate_period` returns: per game side, per game, per player and per (player, event)."""

    white: GameSide
    black: GameSide
    excluded: np.ndarray  # bool per game: not rated (rapid/blitz 600-point rule)
    players: PlayerResults
    player_events: PlayerEventResults


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
    """Refuse input the rules cannot rate, naming the first bad row: shapes, indexes, scores, ratings."""
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


# --- the steps of a period, in the order rate_period takes them --------------------------------------------


@dataclass(frozen=True)
class CountedSides:
    """The game sides that count for something (rated or pooled); sides are numbered 0..G-1 white,
    G..2G-1 black, and every array but ``rated_side`` has one row per counted side."""

    rated_side: np.ndarray  # bool per side (length 2G): the side's rating changes from this game
    index: np.ndarray  # int64 side number of each counted side
    player: np.ndarray
    event: np.ndarray
    rated: np.ndarray  # bool: rated (else pooled: an unrated player against a rated opponent)
    score: np.ndarray
    opponent_rating: np.ndarray  # as the opponent was rated in the game
    own_rating: np.ndarray  # rules 1.6: the previous-list rating where the game has none


@dataclass(frozen=True)
class SideExpectations:
    """The rated counted sides after the difference cap, and every counted side's PD and dR (scaled by the
    curve's result_scale; zero for pooled sides)."""

    rated: np.ndarray  # positions (in CountedSides) of the rated sides
    difference: np.ndarray  # D used, per rated side
    opponent_rating_used: np.ndarray  # per rated side
    capped: np.ndarray  # bool per rated side
    expected_scaled: np.ndarray  # PD x scale per rated side
    counted_expected: np.ndarray  # PD x scale per counted side
    counted_change: np.ndarray  # (score - PD) x scale per counted side


@dataclass(frozen=True)
class EventSums:
    """The counted sides grouped by (player, event), ascending: one row per group."""

    first: np.ndarray  # one counted side of each group
    inverse: np.ndarray  # group of every counted side
    player: np.ndarray
    event: np.ndarray
    rated: np.ndarray  # bool: the player is rated on the previous list
    games: np.ndarray  # int64
    score: np.ndarray
    expected_scaled: np.ndarray  # sum PD x scale
    change_scaled: np.ndarray  # sum dR x scale
    opponent_sum: np.ndarray  # sum of the opponents' ratings (the newcomer pool's Ra)


@dataclass(frozen=True)
class NewcomerPool:
    """B.02 7.1.4 / 8.2: the newcomer pool of every player after the period, and the initial ratings."""

    pooled: np.ndarray  # bool per (player, event): an unrated player's event counted in the pool
    disregarded: np.ndarray  # bool per (player, event)
    games_added: np.ndarray  # int64 per player: games pooled in this period
    pool_games: np.ndarray
    pool_opponent_sum: np.ndarray
    pool_score: np.ndarray
    pool_events: np.ndarray
    initial_rating: np.ndarray
    initial_published: np.ndarray


@dataclass(frozen=True)
class NextListStatus:
    """The player's line and K inputs on the next list."""

    list_rating: np.ndarray
    dropped_below_floor: np.ndarray
    rated_games_total: np.ndarray
    ever_2400: np.ndarray
    ever_2300: np.ndarray
    next_k_factor: np.ndarray


def excluded_games(games: PeriodGames, rules: RulesPreset, rating_type: str) -> np.ndarray:
    """Games that are not rated at all (bool per game): rules 1.2, rapid and blitz from 1 Dec 2024."""
    excluded = np.zeros(len(games), dtype=bool)
    if rules.rapid_blitz_gap_exclusion is not None and rating_type in ("rapid", "blitz"):
        # Rapid/blitz from 1 Dec 2024: >= 600 apart and either rated above 2600 -> not rated (rules 1.2)
        gap, above = rules.rapid_blitz_gap_exclusion
        with np.errstate(invalid="ignore"):
            excluded = (np.abs(games.white_rating - games.black_rating) >= gap) & (
                np.fmax(games.white_rating, games.black_rating) > above
            )
    return excluded


def counted_sides(previous_rating: np.ndarray, games: PeriodGames, excluded: np.ndarray) -> CountedSides:
    """Every game gives two sides; keep those that count (B.02 8.3 and 8.2).

    A side is rated when its player is on the previous list and the opponent is rated in the game (B.02 8.3:
    "rated opponents"); pooled when the player is unrated and the opponent rated; otherwise it changes
    nothing. Rules 1.6: a player published since the event started plays it with the new rating, but stays
    unrated for the opponents."""
    player_rated = ~np.isnan(previous_rating)
    side_player = np.concatenate((games.white, games.black))
    side_event = np.concatenate((games.event, games.event))
    seen_rating = np.concatenate((games.white_rating, games.black_rating))  # as the opponent sees this side
    opp_rating = np.concatenate((games.black_rating, games.white_rating))
    white_score = np.asarray(games.white_score, dtype=np.float64)
    side_score = np.concatenate((white_score, 1.0 - white_score))
    opp_known = ~np.isnan(opp_rating) & ~np.concatenate((excluded, excluded))
    self_rated = player_rated[side_player]
    rated_side = self_rated & opp_known
    pooled_candidate = ~self_rated & opp_known
    own_rating = own_ratings(seen_rating, previous_rating, side_player)  # B.02 rule 1.6, said once
    counted = np.flatnonzero(rated_side | pooled_candidate)
    return CountedSides(
        rated_side=rated_side,
        index=counted,
        player=side_player[counted],
        event=side_event[counted],
        rated=rated_side[counted],
        score=side_score[counted],
        opponent_rating=opp_rating[counted],
        own_rating=own_rating[counted],
    )


def side_expectations(sides: CountedSides, rules: RulesPreset, rating_type: str) -> SideExpectations:
    """D with the 400-point rule (B.02 8.3.1, the 2650 exemption where the preset says so), PD from the
    preset's curve (table 8.1.2 by default) and dR = score - PD for every rated side (B.02 8.3.2)."""
    scale = rules.expected_score.result_scale
    r_pos = np.flatnonzero(sides.rated)
    d_used, opp_used, capped = apply_difference_cap(
        sides.own_rating[r_pos], sides.opponent_rating[r_pos], rules.difference_cap, rating_type
    )
    pd_scaled = expected_score_scaled(d_used, rules.expected_score)
    c_pd = np.zeros(sides.index.shape[0])
    c_pd[r_pos] = pd_scaled
    c_dr = np.zeros(sides.index.shape[0])
    c_dr[r_pos] = sides.score[r_pos] * scale - pd_scaled  # exact hundredths with the table
    return SideExpectations(
        rated=r_pos,
        difference=d_used,
        opponent_rating_used=opp_used,
        capped=capped,
        expected_scaled=pd_scaled,
        counted_expected=c_pd,
        counted_change=c_dr,
    )


def event_sums(
    sides: CountedSides, expectations: SideExpectations, player_rated: np.ndarray, num_events: int
) -> EventSums:
    """Sum the counted sides per (player, event): the unit K applies to (B.02 8.3.2) and the newcomer pool
    counts (B.02 8.2)."""
    key = sides.player * np.int64(num_events) + sides.event
    pe_key, pe_first, pe_inv = _group(key)
    pe_player = pe_key // num_events
    num_pe = pe_key.shape[0]
    return EventSums(
        first=pe_first,
        inverse=pe_inv,
        player=pe_player,
        event=pe_key % num_events,
        rated=player_rated[pe_player],
        games=np.bincount(pe_inv, minlength=num_pe).astype(np.int64),
        score=np.bincount(pe_inv, weights=sides.score, minlength=num_pe),
        expected_scaled=np.bincount(pe_inv, weights=expectations.counted_expected, minlength=num_pe),
        change_scaled=np.bincount(pe_inv, weights=expectations.counted_change, minlength=num_pe),
        opponent_sum=np.bincount(pe_inv, weights=sides.opponent_rating, minlength=num_pe),
    )


def _status_k_factors(
    players: PeriodPlayers, rules: RulesPreset, list_date: datetime.date, rows: np.ndarray, rating: np.ndarray
) -> np.ndarray:
    """K from the preset's scheme for ``rows`` (a mask or indexes of players) with ``rating`` as their rating
    (B.02 8.3.3: new, junior, 2400 status), no games in the event."""
    ever_2300 = players.ever_2300
    num_rows = int(rows.sum()) if rows.dtype == bool else rows.shape[0]
    return k_factor_for(
        rules.k_factor,
        rating,
        players.rated_games_total[rows],
        players.ever_2400[rows],
        players.birth_year[rows],
        list_date,
        ever_2300=None if ever_2300 is None else ever_2300[rows],
        games_in_event=np.zeros(num_rows, dtype=np.int64),
    )


def published_k_factors(players: PeriodPlayers, rules: RulesPreset, list_date: datetime.date) -> np.ndarray:
    """B.02 8.3.3: K as published on the previous list; derived from the player's status where the previous
    list has none (NaN for unrated players)."""
    prev = np.asarray(players.rating, dtype=np.float64)
    k_player = np.array(players.k_factor, dtype=np.float64, copy=True)
    missing = ~np.isnan(prev) & np.isnan(k_player)
    if missing.any():
        k_player[missing] = _status_k_factors(players, rules, list_date, missing, prev[missing])
    return k_player


def event_k_factors(
    players: PeriodPlayers,
    rules: RulesPreset,
    list_date: datetime.date,
    sums: EventSums,
    sides: CountedSides,
    k_player: np.ndarray | None,
) -> np.ndarray:
    """K of every (player, event) before K x n <= 700 (NaN for unrated players): the published K
    (``k_player``), or with ``k_player`` None the K derived from the rating at the start of the tournament
    (FIDE 2009) or from the games of the event (US Chess). Refuses a rated player without a K."""
    if k_player is not None:
        pe_k = k_player[sums.player]
    else:
        ever_2300 = players.ever_2300
        # K from the rating at the start of the tournament (2009) / the games of the event (US Chess)
        pe_k = k_factor_for(
            rules.k_factor,
            sides.own_rating[sums.first],
            players.rated_games_total[sums.player],
            players.ever_2400[sums.player],
            players.birth_year[sums.player],
            list_date,
            ever_2300=None if ever_2300 is None else ever_2300[sums.player],
            games_in_event=sums.games,
        )
    pe_k = np.where(sums.rated, pe_k, np.nan)
    if np.isnan(pe_k[sums.rated]).any():
        bad = int(sums.player[sums.rated][np.isnan(pe_k[sums.rated])][0])
        raise ValueError(f"players row {bad}: no K factor (set players.k_factor or use a scheme that derives K)")
    return pe_k


def rated_games_in_period(sums: EventSums, num_players: int) -> np.ndarray:
    """Rated games of every player in the period: the n of B.02 8.3.3's K x n <= 700 (int64 per player)."""
    rated = sums.rated
    return np.bincount(sums.player[rated], weights=sums.games[rated], minlength=num_players).astype(np.int64)


def event_changes(
    sums: EventSums, pe_k: np.ndarray, rated_games: np.ndarray, rules: RulesPreset
) -> tuple[np.ndarray, np.ndarray]:
    """(K used, change x scale) per (player, event): B.02 8.3.3 K x n <= 700 with n the player's rated games
    in the period, then change = K x sum dR (B.02 8.3.2), plus the US Chess bonus where the scheme has one."""
    scale = rules.expected_score.result_scale
    pe_k_used = cap_k_by_games(pe_k, rated_games[sums.player], rules.k_times_n_cap)
    pe_change_scaled = np.where(sums.rated, pe_k_used * sums.change_scaled, 0.0)
    if rules.k_factor.bonus_threshold is not None:
        extra = uscf_bonus(pe_change_scaled / scale, sums.games, rules.k_factor.bonus_threshold) * scale
        pe_change_scaled = pe_change_scaled + np.where(sums.rated, extra, 0.0)
    return pe_k_used, pe_change_scaled


def rounded_changes(
    sums: EventSums, pe_change_scaled: np.ndarray, rules: RulesPreset, num_players: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(change, rounded change) per player and the rounded change per (player, event) (NaN unless rounded per
    event): B.02 8.3.4 rounds the period's change once, .5 away from zero; some presets round per event or
    not at all."""
    scale = rules.expected_score.result_scale
    change_scaled = np.bincount(sums.player, weights=pe_change_scaled, minlength=num_players)
    pe_rounded_change = np.full(sums.player.shape[0], np.nan)
    if rules.rounding == "per-period":
        # B.02 8.3.4: the rating change for a rating period is rounded, .5 away from zero
        rounded_change = round_half_away_from_zero(change_scaled, scale)
    elif rules.rounding == "per-event":
        pe_rounded_change = np.where(sums.rated, round_half_away_from_zero(pe_change_scaled, scale), np.nan)
        rounded_change = np.bincount(sums.player, weights=np.nan_to_num(pe_rounded_change), minlength=num_players)
    else:
        rounded_change = change_scaled / scale
    return change_scaled / scale, rounded_change, pe_rounded_change


def disregarded_events(players: PeriodPlayers, sums: EventSums, spec: InitialRatingSpec) -> np.ndarray:
    """Bool per (player, event) row of an unrated player that the pool leaves out (B.02 8.2): a zero in the
    first event (or, per the preset, a score too low in any event) or too few rated opponents."""
    first_row = np.ones(sums.player.shape[0], dtype=bool)
    first_row[1:] = sums.player[1:] != sums.player[:-1]
    below = sums.score < spec.min_event_score
    few = sums.games < spec.min_rated_opponents_per_event
    if spec.disregard_scope == "first-event":
        # B.02 8.2: an unrated player scoring zero in their first event: that event is disregarded
        disregard = (first_row & (_pool_events_before(players)[sums.player] == 0) & below) | few
    else:
        disregard = below | few
    disregarded: np.ndarray = ~sums.rated & disregard
    return disregarded


def _pool_events_before(players: PeriodPlayers) -> np.ndarray:
    """Events already in the pool; without the count, a pool with games has its first event behind it."""
    if players.pool_events is not None:
        return np.asarray(players.pool_events, dtype=np.int64)
    return (np.asarray(players.pool_games) > 0).astype(np.int64)


def newcomer_pool(players: PeriodPlayers, sums: EventSums, spec: InitialRatingSpec) -> NewcomerPool:
    """B.02 7.1.4 / 8.2: add the period's counted events of every unrated player to the carried pool and
    compute the initial rating (initial.py); a published initial rating empties the pool."""
    num_players = len(players)
    player_rated = ~np.isnan(np.asarray(players.rating, dtype=np.float64))
    pe_candidate = ~sums.rated
    pe_disregarded = disregarded_events(players, sums, spec)
    pe_pooled = pe_candidate & ~pe_disregarded
    pooled_player = sums.player[pe_pooled]
    add_games = np.bincount(pooled_player, weights=sums.games[pe_pooled], minlength=num_players).astype(np.int64)
    add_sum = np.bincount(pooled_player, weights=sums.opponent_sum[pe_pooled], minlength=num_players)
    add_score = np.bincount(pooled_player, weights=sums.score[pe_pooled], minlength=num_players)
    pool_events = _pool_events_before(players) + np.bincount(sums.player[pe_candidate], minlength=num_players)
    unrated = ~player_rated
    pool_games = np.where(unrated, np.asarray(players.pool_games, dtype=np.int64) + add_games, 0)
    pool_sum = np.where(unrated, np.asarray(players.pool_opponent_sum, dtype=np.float64) + add_sum, 0.0)
    pool_score = np.where(unrated, np.asarray(players.pool_score, dtype=np.float64) + add_score, 0.0)
    initial = initial_ratings(pool_games, pool_sum, pool_score, spec)
    initial_published = unrated & initial.published
    return NewcomerPool(
        pooled=pe_pooled,
        disregarded=pe_disregarded,
        games_added=add_games,
        pool_games=np.where(initial_published, 0, pool_games),
        pool_opponent_sum=np.where(initial_published, 0.0, pool_sum),
        pool_score=np.where(initial_published, 0.0, pool_score),
        pool_events=np.where(player_rated | initial_published, 0, pool_events),
        initial_rating=np.where(unrated, initial.rating, np.nan),
        initial_published=initial_published,
    )


def player_k_factors(
    players: PeriodPlayers,
    rules: RulesPreset,
    list_date: datetime.date,
    sums: EventSums,
    pe_k_used: np.ndarray,
    k_player: np.ndarray | None,
) -> np.ndarray:
    """The K shown for every rated player (NaN unrated): the K of their last event of the period after
    K x n <= 700 (B.02 8.3.3); for a player without rated games the published K, or the status K of the
    schemes that derive K per event."""
    prev = np.asarray(players.rating, dtype=np.float64)
    player_rated = ~np.isnan(prev)
    k_used = np.full(len(players), np.nan)
    if k_player is not None:
        k_used[player_rated] = k_player[player_rated]
    else:
        k_used[player_rated] = _status_k_factors(players, rules, list_date, player_rated, prev[player_rated])
    last_row = np.ones(sums.player.shape[0], dtype=bool)
    last_row[:-1] = sums.player[:-1] != sums.player[1:]
    k_used[sums.player[last_row & sums.rated]] = pe_k_used[last_row & sums.rated]
    return k_used


def next_list_status(
    players: PeriodPlayers,
    rules: RulesPreset,
    list_date: datetime.date,
    new_rating: np.ndarray,
    games_counted: np.ndarray,
) -> NextListStatus:
    """The line on the next list and its K inputs: the rating floor (B.02 7.2), rated games, the 2400 / 2300
    marks and the K to publish (B.02 8.3.3; rules 1.5: status changes take effect on the next list)."""
    prev = np.asarray(players.rating, dtype=np.float64)
    list_rating = new_rating.copy()
    dropped = np.zeros(len(players), dtype=bool)
    if rules.rating_floor is not None:
        # B.02 7.2: a rating below 1400 is shown as unrated on the next list
        with np.errstate(invalid="ignore"):
            dropped = ~np.isnan(prev) & (new_rating < rules.rating_floor)
        list_rating[dropped] = np.nan
    rated_games_total = np.asarray(players.rated_games_total, dtype=np.int64) + games_counted
    ever_2300 = players.ever_2300
    with np.errstate(invalid="ignore"):
        ever_2400_out = np.asarray(players.ever_2400, dtype=bool) | (list_rating >= 2400)
        base_2300 = np.asarray(ever_2300, dtype=bool) if ever_2300 is not None else np.asarray(prev >= 2300)
        ever_2300_out = base_2300 | (list_rating >= 2300)
    k_next = next_k_factor(
        list_rating, rated_games_total, ever_2400_out, players.birth_year, list_date, rules, ever_2300=ever_2300_out
    )
    return NextListStatus(
        list_rating=list_rating,
        dropped_below_floor=dropped,
        rated_games_total=rated_games_total,
        ever_2400=ever_2400_out,
        ever_2300=ever_2300_out,
        next_k_factor=k_next,
    )


def game_sides(
    num_games: int,
    sides: CountedSides,
    expectations: SideExpectations,
    sums: EventSums,
    pe_k_used: np.ndarray,
    pe_pooled: np.ndarray,
    scale: float,
) -> tuple[GameSide, GameSide]:
    """The per-game detail of a calculation page (white, black): opponent's rating as used (capped values
    marked), D, PD, K and K x dR of each side (B.02 8.3), and whether it fed the newcomer pool."""
    num_sides = 2 * num_games
    side_opp_used = np.full(num_sides, np.nan)
    side_capped = np.zeros(num_sides, dtype=bool)
    side_difference = np.full(num_sides, np.nan)
    side_expected = np.full(num_sides, np.nan)
    side_k = np.full(num_sides, np.nan)
    side_change = np.zeros(num_sides)
    side_pooled = np.zeros(num_sides, dtype=bool)
    r_pos = expectations.rated
    rated_sides = sides.index[r_pos]
    side_opp_used[sides.index] = sides.opponent_rating
    side_opp_used[rated_sides] = expectations.opponent_rating_used
    side_capped[rated_sides] = expectations.capped
    side_difference[rated_sides] = expectations.difference
    side_expected[rated_sides] = expectations.expected_scaled / scale
    c_k = pe_k_used[sums.inverse]
    side_k[sides.index] = c_k
    side_change[rated_sides] = c_k[r_pos] * expectations.counted_change[r_pos] / scale
    side_pooled[sides.index] = pe_pooled[sums.inverse]

    def side(part: slice) -> GameSide:
        return GameSide(
            opponent_rating_used=side_opp_used[part],
            capped=side_capped[part],
            difference=side_difference[part],
            expected_score=side_expected[part],
            rated=sides.rated_side[part],
            change=side_change[part],
            k_factor=side_k[part],
            pooled=side_pooled[part],
        )

    return side(slice(None, num_games)), side(slice(num_games, None))


def player_event_results(
    sums: EventSums,
    pe_k_used: np.ndarray,
    pe_change_scaled: np.ndarray,
    pe_rounded_change: np.ndarray,
    pool: NewcomerPool,
    scale: float,
) -> PlayerEventResults:
    """One RatingChange per (player, event): games, score, sum PD, K used and K x sum dR (B.02 8.3.2), back
    from the curve's scale; for an unrated player whether the event fed the pool or was disregarded (B.02 8.2)."""
    return PlayerEventResults(
        player=sums.player,
        event=sums.event,
        games=sums.games,
        score=sums.score,
        expected_score=sums.expected_scaled / scale,
        change=pe_change_scaled / scale,
        k_factor=pe_k_used,
        rounded_change=pe_rounded_change,
        pooled=pool.pooled,
        disregarded=pool.disregarded,
    )


def rate_period(
    players: PeriodPlayers,
    games: PeriodGames,
    rules: RulesPreset,
    list_date: datetime.date,
    *,
    rating_type: str = "standard",
    use_published_k: bool | None = None,
) -> PeriodResult:
    """Rate one period for every player at once (the steps above, in the order of the module's data flow).

    ``rating_type`` selects the per-type rules (2650 exemption, rapid/blitz 600-point exclusion).
    ``use_published_k`` overrides the scheme's choice between the K published on the previous list
    (players.k_factor) and a K derived per event (2009 / US Chess schemes); the calculator uses it to honour
    an explicit K.
    """
    if rules.glicko2 is not None:
        raise ValueError(f"preset {rules.slug} is a Glicko-2 system: rate it with ratings.engine.glicko2")
    _validate(players, games, rating_type)
    num_players = len(players)
    num_events = int(games.event.max()) + 1 if len(games) else 1
    prev = np.asarray(players.rating, dtype=np.float64)
    player_rated = ~np.isnan(prev)
    scale = rules.expected_score.result_scale

    excluded = excluded_games(games, rules, rating_type)
    sides = counted_sides(prev, games, excluded)
    expectations = side_expectations(sides, rules, rating_type)
    sums = event_sums(sides, expectations, player_rated, num_events)

    # B.02 8.3.3: K, then K x n <= 700 with n the rated games of the period
    rated_games = rated_games_in_period(sums, num_players)
    published_k = rules.k_factor.uses_published_k if use_published_k is None else use_published_k
    k_player = published_k_factors(players, rules, list_date) if published_k else None
    pe_k = event_k_factors(players, rules, list_date, sums, sides, k_player)
    pe_k_used, pe_change_scaled = event_changes(sums, pe_k, rated_games, rules)
    change, rounded_change, pe_rounded_change = rounded_changes(sums, pe_change_scaled, rules, num_players)  # 8.3.4

    pool = newcomer_pool(players, sums, rules.initial_rating)  # B.02 7.1.4 / 8.2
    new_rating = np.where(player_rated, prev + rounded_change, np.nan)
    new_rating = np.where(pool.initial_published, pool.initial_rating, new_rating)  # a newcomer's first rating
    games_counted = np.where(player_rated, rated_games, pool.games_added)
    counted_pe = sums.rated | pool.pooled
    status = next_list_status(players, rules, list_date, new_rating, games_counted)
    white, black = game_sides(len(games), sides, expectations, sums, pe_k_used, pool.pooled, scale)

    return PeriodResult(
        white=white,
        black=black,
        excluded=excluded,
        players=PlayerResults(
            games=games_counted,
            k_factor_used=player_k_factors(players, rules, list_date, sums, pe_k_used, k_player),
            expected_score=np.bincount(sums.player, weights=sums.expected_scaled, minlength=num_players) / scale,
            score=np.bincount(sums.player[counted_pe], weights=sums.score[counted_pe], minlength=num_players),
            change=change,
            rounded_change=rounded_change,
            new_rating=new_rating,
            initial_rating=pool.initial_rating,
            initial_published=pool.initial_published,
            pool_games=pool.pool_games,
            pool_opponent_sum=pool.pool_opponent_sum,
            pool_score=pool.pool_score,
            pool_events=pool.pool_events,
            list_rating=status.list_rating,
            dropped_below_floor=status.dropped_below_floor,
            rated_games_total=status.rated_games_total,
            ever_2400=status.ever_2400,
            ever_2300=status.ever_2300,
            next_k_factor=status.next_k_factor,
        ),
        player_events=player_event_results(sums, pe_k_used, pe_change_scaled, pe_rounded_change, pool, scale),
    )
