"""Performance ratings and FIDE norm performance.

- FIDE (Title Regulations 1.4.6-1.4.9): Rp = Ra + dp, Ra rounded to the nearest integer (.5 up), p rounded to
  the nearest whole percent (.5 up), dp from table 8.1.1 (= 1.4.9).
- "Algorithm of 400" (seed 002): (sum of opponents + 400 x wins - 400 x losses) / games.
- Exact inverse of the normal curve (seed 000 problem 8): the R with sum Phi((R - Ri) / sigma) = W.
- Norms: the GM / IM / WGM / WIM performance and average thresholds with the rating floor for at most one
  opponent (rules 3.1): the performance part only; ratings.engine.norms checks every requirement of B.01 1.4.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr, ndtri

from ratings.engine.expected_score import ELO_SIGMA
from ratings.engine.norms import (
    MIN_AVERAGE,
    MIN_PERFORMANCE,
    MIN_SCORE_PERCENT,
    NORM_TITLES,
    RATING_FLOOR,
    UNRATED_OPPONENT_RATING,
)
from ratings.engine.rounding import round_half_up
from ratings.engine.tables import dp_from_percent, percent_half_up


@dataclass(frozen=True)
class Performance:
    games: int
    score: float
    average: float  # Ra unrounded
    average_rounded: int
    percent: int  # p in whole percent
    dp: int
    rating: int  # Rp = Ra (rounded) + dp


def _check(opponents: Sequence[float], score: float) -> tuple[np.ndarray, int]:
    ratings = np.asarray(opponents, dtype=np.float64)
    n = ratings.shape[0]
    if n == 0:
        raise ValueError("performance: no games")
    if np.isnan(ratings).any():
        raise ValueError("performance: an opponent has no rating (give unrated opponents a rating first)")
    if not 0 <= score <= n or (2 * score) != int(2 * score):
        raise ValueError(f"performance: score {score} is not a multiple of 0.5 between 0 and {n}")
    return ratings, n


def fide_performance(opponents: Sequence[float], score: float) -> Performance:
    """FIDE performance rating Rp = round(Ra) + dp(round(p)) (Title Regulations 1.4.6-1.4.9)."""
    ratings, n = _check(opponents, score)
    average = float(ratings.mean())
    average_rounded = int(round_half_up(average))
    percent = int(percent_half_up(score, n))
    dp = int(dp_from_percent(percent))
    return Performance(n, float(score), average, average_rounded, percent, dp, average_rounded + dp)


def performance_400(opponents: Sequence[float], scores: Sequence[float]) -> float:
    """Seed 002's "algorithm of 400": opponents beaten +400, lost to -400, drawn as rated; averaged."""
    ratings = np.asarray(opponents, dtype=np.float64)
    points = np.asarray(scores, dtype=np.float64)
    if ratings.shape != points.shape or ratings.shape[0] == 0:
        raise ValueError("performance_400: give one score per opponent")
    if not np.isin(points, (0.0, 0.5, 1.0)).all():
        raise ValueError("performance_400: scores must be 1, 0.5 or 0")
    return float(np.mean(ratings + 800.0 * (points - 0.5)))


def normal_performance(opponents: Sequence[float], score: float, sigma: float = ELO_SIGMA) -> float:
    """Seed 000 problem 8: the rating R whose expected score sum Phi((R - Ri)/sigma) equals the score.

    Closed form when all opponents are equal (R = Ri + sigma Phi^-1(p)); otherwise Brent's method on the
    monotone sum. A zero or perfect score has no finite estimate (ValueError).
    """
    ratings, n = _check(opponents, score)
    if score == 0 or score == n:
        raise ValueError("normal_performance: a zero or perfect score has no finite performance")
    if np.all(ratings == ratings[0]):
        return float(ratings[0] + sigma * ndtri(score / n))

    def excess(r: float) -> float:
        return float(np.sum(ndtr((r - ratings) / sigma))) - score

    low = float(ratings.min()) - 10 * sigma
    high = float(ratings.max()) + 10 * sigma
    return float(brentq(excess, low, high, xtol=1e-9))


@dataclass(frozen=True)
class NormRequirement:
    title: str
    performance: int  # minimum Rp (2599.5 before rounding for GM, ...)
    average: int  # minimum Ra (rounded)
    opponent_floor: int  # the "rating floor" that may raise the lowest opponent


# Title Regulations 2024 1.4.7-1.4.8, defined once in ratings.engine.norms (the full check of every requirement).
NORM_REQUIREMENTS = {
    title: NormRequirement(title, MIN_PERFORMANCE[title], MIN_AVERAGE[title], RATING_FLOOR[title])
    for title in NORM_TITLES
}
NORM_UNRATED_OPPONENT = UNRATED_OPPONENT_RATING
NORM_MIN_PERCENT = MIN_SCORE_PERCENT


@dataclass(frozen=True)
class NormCheck:
    title: str
    performance: Performance
    adjusted_opponents: tuple[float, ...]  # after the floor / unrated rules
    meets_performance: bool
    meets_average: bool
    meets_min_score: bool

    @property
    def achieved(self) -> bool:
        return self.meets_performance and self.meets_average and self.meets_min_score


def norm_check(opponents: Sequence[float | None], score: float, title: str) -> NormCheck:
    """Does the result reach the norm performance for ``title``? Unrated opponents (None) count as 1400,
    and the lowest opponent is raised to the title's rating floor (only one opponent may be raised)."""
    if title not in NORM_REQUIREMENTS:
        raise ValueError(f"norm title {title!r} is unknown; use one of {sorted(NORM_REQUIREMENTS)}")
    requirement = NORM_REQUIREMENTS[title]
    ratings = [
        float(NORM_UNRATED_OPPONENT) if r is None or (isinstance(r, float) and math.isnan(r)) else float(r)
        for r in opponents
    ]
    if ratings:
        lowest = int(np.argmin(ratings))
        ratings[lowest] = max(ratings[lowest], float(requirement.opponent_floor))
    performance = fide_performance(ratings, score)
    return NormCheck(
        title=title,
        performance=performance,
        adjusted_opponents=tuple(ratings),
        meets_performance=performance.rating >= requirement.performance,
        meets_average=performance.average_rounded >= requirement.average,
        meets_min_score=performance.percent >= NORM_MIN_PERCENT,
    )
