"""US Chess (Glickman & Doan) pieces: effective games, K = 800 / (N' + m), the bonus, the approximating
formula, and the classic pre-2001 K bands (rating-rules.md section 4).

Not modelled: the special (provisional) formula for N <= 8 or all-wins/all-losses, dual-rated K above 2200,
conversions for Step 1, match rules (rules 4.4, 4.5, 4.7).
"""

from __future__ import annotations

import math

import numpy as np

from ratings.engine.expected_score import logistic_expected_score

EFFECTIVE_GAMES_FORMULAS = ("2013", "2001")


def effective_games(rating: np.ndarray | float, games: np.ndarray | float, formula: str = "2013") -> np.ndarray:
    """N' = min(N, N*) (rules 4.3).

    2013 (from 18 May 2013): N* = 50 / sqrt(0.662 + 0.00000739 * (2569 - R)^2) if R <= 2355, else 50.
    2001-2013: N* = 50 / sqrt(1 + (2200 - R)^2 / 100000) if R <= 2200, else 50.
    """
    r = np.asarray(rating, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    if formula == "2013":
        n_star = np.where(r <= 2355, 50.0 / np.sqrt(0.662 + 0.00000739 * (2569.0 - r) ** 2), 50.0)
    elif formula == "2001":
        n_star = np.where(r <= 2200, 50.0 / np.sqrt(1.0 + (2200.0 - r) ** 2 / 100000.0), 50.0)
    else:
        raise ValueError(f"effective games formula {formula!r} is unknown; use one of {EFFECTIVE_GAMES_FORMULAS}")
    return np.minimum(n, n_star)


def effective_games_k_factor(
    rating: np.ndarray | float,
    games: np.ndarray | float,
    games_in_event: np.ndarray | float,
    formula: str = "2013",
) -> np.ndarray:
    """US Chess standard formula: K = 800 / (N' + m), m = games in this event (rules 4.5; seed 002)."""
    return 800.0 / (effective_games(rating, games, formula) + np.asarray(games_in_event, dtype=np.float64))


def classic_k_factor(rating: np.ndarray | float) -> np.ndarray:
    """Pre-2001 US Chess K: 32 below 2100, 24 for 2100-2399, 16 from 2400 (rules 4.5; seed 002)."""
    r = np.asarray(rating, dtype=np.float64)
    return np.select([r < 2100, r < 2400], [32.0, 24.0], 16.0)


def bonus(change: np.ndarray | float, games_in_event: np.ndarray | int, threshold: float) -> np.ndarray:
    """US Chess bonus max(0, K(S - E) - B * sqrt(max(m, 4))), only for events of m >= 3 games (rules 4.5).

    The condition "no opponent met more than twice" is the caller's to check.
    """
    c = np.asarray(change, dtype=np.float64)
    m = np.asarray(games_in_event, dtype=np.float64)
    extra = np.maximum(0.0, c - threshold * np.sqrt(np.maximum(m, 4.0)))
    return np.where(m >= 3, extra, 0.0)


def standard_rating(
    rating: float,
    games: float,
    opponents: list[float],
    scores: list[float],
    bonus_threshold: float | None = 10.0,
    formula: str = "2013",
    bonus_allowed: bool = True,
) -> float:
    """Post-event rating by the US Chess standard formula (N > 8 and not all wins / all losses).

    R_new = R0 + K (S - E) + max(0, K (S - E) - B sqrt(max(m, 4))) with We logistic (scale 400).
    B history: 10 (2004), 14 (events ending >= 1 May 2017), 12 (>= 1 Feb 2023), 10 (2025) - rules 4.5.
    """
    m = len(opponents)
    if m == 0:
        return float(rating)
    k = float(effective_games_k_factor(rating, games, m, formula))
    expected = float(np.sum(logistic_expected_score(np.asarray(rating) - np.asarray(opponents, dtype=float))))
    change = k * (float(sum(scores)) - expected)
    extra = 0.0
    if bonus_allowed and bonus_threshold is not None:
        extra = float(bonus(change, m, bonus_threshold))
    return float(rating) + change + extra


def approximate_rating(rating: float, games: float, opponents: list[float], wins: float, losses: float) -> float:
    """US Chess approximating formula: (N R_pre + m R_avg + 400 (W - L)) / (N + m) (rules 4.4; example U1).

    For an unrated player N = 0 and R_pre = 0, which is the "algorithm of 400" performance.
    """
    m = len(opponents)
    if m == 0 and games == 0:
        raise ValueError("approximate_rating: no games")
    average = sum(opponents) / m if m else 0.0
    return (games * rating + m * average + 400.0 * (wins - losses)) / (games + m)


def is_established(games: int) -> bool:
    """Established rating: based on more than 25 games (rules 4.1)."""
    return games > 25


def rounded_rating(rating: float) -> int:
    """Published US Chess ratings are the floats rounded half up."""
    return math.floor(rating + 0.5)
