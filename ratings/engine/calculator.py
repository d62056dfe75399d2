"""Scalar calculator for one player (used by ``rating_calc`` and POST /api/v1/calculator/).

It runs the same vectorised :func:`rate_period` as list publication (the player against one phantom opponent
per game, all in one event unless ``events`` is given), so the calculator can never disagree with a list.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ratings.engine.game_line import CALCULATION_FIELDS
from ratings.engine.initial import InitialRatingSpec, initial_ratings
from ratings.engine.k_factor import k_factor_for
from ratings.engine.messages import gettext_noop
from ratings.engine.period import PeriodGames, PeriodPlayers, PeriodResult, rate_period
from ratings.engine.presets import RulesPreset

VALID_SCORES = (0.0, 0.5, 1.0)


def _number(value: float) -> float | None:
    """JSON-friendly float: NaN -> None; hundredths without binary noise (0.61, not 0.6100000001)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return round(float(value), 10)


@dataclass
class GameLine:
    """One game of a calculation; its keys are ratings.engine.game_line.CALCULATION_FIELDS (plus ``event``)."""

    opponent_rating: float | None  # as given (None: unrated)
    opponent_rating_used: float | None  # after the difference cap
    capped: bool
    difference: float | None  # D used
    expected_score: float | None  # PD
    score: float
    rated: bool  # the game changes the player's rating
    rating_change: float | None  # dR = score - PD
    weighted_change: float  # K_used * dR
    event: int = 0
    counted: bool = True  # unrated player: the game counts towards the initial rating

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        return {
            key: (_number(value) if isinstance(value, float) else value)
            for key in (*CALCULATION_FIELDS, "event")
            for value in (data[key],)
        }


@dataclass
class Calculation:
    rules: str
    rating: float
    k_factor: float
    k_factor_used: float
    games: int
    lines: list[GameLine]
    expected: float
    score: float
    change: float  # unrounded K * sum dR
    rounded_change: float
    new_rating: float
    rating_type: str = "standard"

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "rating_type": self.rating_type,
            "rating": _number(self.rating),
            "k_factor": _number(self.k_factor),
            "k_factor_used": _number(self.k_factor_used),
            "games": self.games,
            "expected": _number(self.expected),
            "score": _number(self.score),
            "change": _number(self.change),
            "rounded_change": _number(self.rounded_change),
            "new_rating": _number(self.new_rating),
            "lines": [line.to_dict() for line in self.lines],
        }


@dataclass
class InitialRating:
    rules: str
    games: int  # games against rated opponents that count
    score: float  # points in them
    hypothetical_opponents: int
    average: float | None  # Ra (including hypothetical opponents)
    percent: int | None  # p in whole percent as looked up
    dp: float | None
    unrounded: float | None  # Ra + dp
    initial_rating: float | None  # rounded and capped; None if too few games
    capped: bool
    published: bool
    reason: str  # why it is not published ('' if published)
    lines: list[GameLine] = field(default_factory=list)
    # ``reason`` as (template, parameters) pieces, for a page to translate (issue 32); not part of to_dict()
    reason_parts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["reason_parts"]
        data["lines"] = [line.to_dict() for line in self.lines]
        for key in ("score", "average", "dp", "unrounded", "initial_rating"):
            data[key] = _number(data[key])
        return data


def _rating_change(score: float, expected: float, exact: bool) -> float:
    """dR = score - PD; with the table exact in hundredths ((100 - 96) / 100 = 0.04, not 0.0400000000036)."""
    if exact:
        return (round(score * 100) - round(expected * 100)) / 100
    return float(score - expected)


def _check_inputs(opponents: Sequence[float | None], scores: Sequence[float], events: Sequence[int] | None) -> None:
    if len(opponents) != len(scores):
        raise ValueError(f"{len(opponents)} opponents but {len(scores)} scores")
    for i, (opponent, score) in enumerate(zip(opponents, scores, strict=True), start=1):
        if score not in VALID_SCORES:
            raise ValueError(f"game {i}: score {score!r} is not 1, 0.5 or 0")
        if opponent is not None and not (isinstance(opponent, int | float) and math.isfinite(opponent)):
            raise ValueError(f"game {i}: opponent rating {opponent!r} is not a number")
    if events is not None:
        if len(events) != len(opponents):
            raise ValueError(f"{len(events)} event numbers for {len(opponents)} games")
        if any(e < 0 for e in events):
            raise ValueError("event numbers must be 0 or more")


def _run(
    rating: float | None,
    k_factor: float | None,
    opponents: Sequence[float | None],
    scores: Sequence[float],
    rules: RulesPreset,
    *,
    events: Sequence[int] | None,
    rating_type: str,
    rated_games_total: int,
    ever_2400: bool,
    birth_year: int | None,
    list_date: datetime.date,
    use_published_k: bool | None,
    pool: tuple[int, float, float] = (0, 0.0, 0.0),
) -> tuple[PeriodResult, list[GameLine]]:
    m = len(opponents)
    opp = [np.nan if o is None else float(o) for o in opponents]
    players = PeriodPlayers.create(
        [rating, *opp],
        [k_factor] + [20.0] * m,
        pool_games=[pool[0]] + [0] * m,
        pool_opponent_sum=[pool[1]] + [0.0] * m,
        pool_score=[pool[2]] + [0.0] * m,
        birth_year=[birth_year or 0] + [0] * m,
        rated_games_total=[rated_games_total] + [30] * m,
        ever_2400=[ever_2400] + [False] * m,
    )
    games = PeriodGames.from_sequences(
        event=list(events) if events is not None else [0] * m,
        white=[0] * m,
        black=list(range(1, m + 1)),
        white_score=list(scores),
        white_rating=[rating] * m,
        black_rating=opp,
    )
    result = rate_period(players, games, rules, list_date, rating_type=rating_type, use_published_k=use_published_k)
    exact = rules.expected_score.is_exact

    def maybe(value: float) -> float | None:
        return None if math.isnan(value) else float(value)

    lines = []
    for i in range(m):
        rated = bool(result.white.rated[i])
        expected = float(result.white.expected_score[i])
        lines.append(
            GameLine(
                opponent_rating=maybe(opp[i]),
                opponent_rating_used=maybe(result.white.opponent_rating_used[i]),
                capped=bool(result.white.capped[i]),
                difference=maybe(result.white.difference[i]),
                expected_score=maybe(expected),
                score=float(scores[i]),
                rated=rated,
                rating_change=_rating_change(scores[i], expected, exact) if rated else None,
                weighted_change=float(result.white.change[i]),
                event=int(games.event[i]),
                counted=bool(rated or result.white.pooled[i]),
            )
        )
    return result, lines


def calculate_change(
    rating: float,
    k_factor: float | None,
    opponents: Sequence[float | None],
    scores: Sequence[float],
    rules: RulesPreset,
    *,
    rating_type: str = "standard",
    events: Sequence[int] | None = None,
    rated_games_total: int = 30,
    ever_2400: bool | None = None,
    birth_year: int | None = None,
    list_date: datetime.date,
) -> Calculation:
    """Rating change of a rated player over one period (one event unless ``events`` numbers the games), for
    the list of ``list_date`` (the junior K rule and the rules in force depend on it; the caller passes it).

    ``k_factor`` None: derived by the preset's scheme from the rating and the status arguments (default: an
    adult with 30+ games, ever_2400 = rating >= 2400). An explicit K is used as the published K (then
    reduced by K x n <= 700 where the preset has that rule). Opponents None are unrated: such games are
    listed but change nothing.
    """
    if rules.glicko2 is not None:
        raise ValueError(f"preset {rules.slug} is a Glicko-2 system: use ratings.engine.glicko2.calculate_glicko2")
    if rating is None or not math.isfinite(rating):
        raise ValueError("rating must be a number (use calculate_initial_rating for an unrated player)")
    _check_inputs(opponents, scores, events)
    ever = bool(rating >= 2400) if ever_2400 is None else ever_2400
    if k_factor is None:
        k_value = float(
            k_factor_for(
                rules.k_factor,
                np.array([rating]),
                rated_games_total,
                ever,
                birth_year or 0,
                list_date,
                games_in_event=len(opponents),
            )[0]
        )
        use_published = None
    else:
        if not k_factor > 0:
            raise ValueError(f"K factor must be positive, got {k_factor}")
        k_value = float(k_factor)
        use_published = True
    result, lines = _run(
        rating,
        k_factor if k_factor is not None else np.nan,
        opponents,
        scores,
        rules,
        events=events,
        rating_type=rating_type,
        rated_games_total=rated_games_total,
        ever_2400=ever,
        birth_year=birth_year,
        list_date=list_date,
        use_published_k=use_published,
    )
    return Calculation(
        rules=rules.slug,
        rating=float(rating),
        k_factor=k_value,
        k_factor_used=float(result.players.k_factor_used[0]),
        games=int(result.players.games[0]),
        lines=lines,
        expected=float(result.players.expected_score[0]),
        score=float(result.players.score[0]),
        change=float(result.players.change[0]),
        rounded_change=float(result.players.rounded_change[0]),
        new_rating=float(result.players.new_rating[0]),
        rating_type=rating_type,
    )


def calculate_initial_rating(
    opponents: Sequence[float | None],
    scores: Sequence[float],
    rules: RulesPreset,
    *,
    events: Sequence[int] | None = None,
    pool_games: int = 0,
    pool_opponent_sum: float = 0.0,
    pool_score: float = 0.0,
    list_date: datetime.date,
) -> InitialRating:
    """Initial rating of an unrated player from these games (plus an optional carried pool).

    Games against unrated opponents (None) do not count. With ``events`` the games are split into events
    (0 = the first) so that a zero score in the first event is disregarded as B.02 8.2 says.
    """
    if rules.glicko2 is not None:
        raise ValueError(f"preset {rules.slug} is a Glicko-2 system: use ratings.engine.glicko2.calculate_glicko2")
    _check_inputs(opponents, scores, events)
    result, lines = _run(
        None,
        np.nan,
        opponents,
        scores,
        rules,
        events=events,
        rating_type="standard",
        rated_games_total=0,
        ever_2400=False,
        birth_year=None,
        list_date=list_date,
        use_published_k=None,
        pool=(pool_games, pool_opponent_sum, pool_score),
    )
    spec = rules.initial_rating
    games = pool_games + int(result.players.games[0])
    total_score = pool_score + float(result.players.score[0])
    total_sum = pool_opponent_sum + float(
        np.sum([o for o, line in zip(opponents, lines, strict=True) if line.counted and o is not None])
    )
    arrays = initial_ratings(np.array([games]), np.array([total_sum]), np.array([total_score]), spec)
    enough = bool(arrays.enough_games[0])
    published = bool(result.players.initial_published[0])
    why = _initial_reason(rules.slug, spec, games, enough, published, float(arrays.rating[0]), result)
    h = spec.hypothetical_opponents if spec.kind == "fide-2024" else 0
    percent = int(arrays.percent[0])
    return InitialRating(
        rules=rules.slug,
        games=games,
        score=total_score,
        hypothetical_opponents=h,
        average=None if games + h == 0 else float(arrays.average[0]),
        percent=None if percent < 0 else percent,
        dp=float(arrays.dp[0]) if games else None,
        unrounded=float(arrays.unrounded[0]) if games else None,
        initial_rating=float(arrays.rating[0]) if enough else None,
        capped=bool(arrays.capped[0]),
        published=published,
        reason="".join(template % _shown(params) for template, params in why),
        reason_parts=why,
        lines=lines,
    )


def _shown(params: dict[str, Any]) -> dict[str, Any]:
    """Numbers as the English reason writes them: 0.5, 1 (not 1.0)."""
    return {key: f"{value:g}" if isinstance(value, float) else value for key, value in params.items()}


def _initial_reason(
    slug: str, spec: InitialRatingSpec, games: int, enough: bool, published: bool, rating: float, result: PeriodResult
) -> list[tuple[str, dict[str, Any]]]:
    """Why an initial rating is not published (B.02 7.1): empty when it is."""
    if spec.kind == "none":
        return [(gettext_noop("the %(rules)s rules give no initial ratings"), {"rules": slug})]
    if not enough:
        parts: list[tuple[str, dict[str, Any]]] = [
            (
                gettext_noop("%(games)s game(s) against rated opponents counted; %(needed)s needed"),
                {"games": games, "needed": spec.min_games},
            )
        ]
        disregarded = int(result.player_events.disregarded.sum())
        if disregarded:
            score = {"events": disregarded, "score": spec.min_event_score}
            if spec.disregard_scope == "first-event":
                template = gettext_noop(" (%(events)s event(s) disregarded: score below %(score)s in the first event")
            else:
                template = gettext_noop(" (%(events)s event(s) disregarded: score below %(score)s in the event")
            parts.append((template, score))
            if spec.min_rated_opponents_per_event > 1:
                parts.append(
                    (
                        gettext_noop(" or fewer than %(opponents)s rated opponents"),
                        {"opponents": spec.min_rated_opponents_per_event},
                    )
                )
            parts.append((")", {}))
        return parts
    if not published:
        return [
            (
                gettext_noop("initial rating %(rating)s is below the publication threshold %(threshold)s"),
                {"rating": int(rating), "threshold": spec.publish_threshold},
            )
        ]
    return []
