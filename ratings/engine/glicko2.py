"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 30 Nov 2013 / 22 Mar 2022; rating-rules.md 5.2, 6.7).

Pure NumPy, vectorised over the players of one rating period: every game of the period is treated as played
simultaneously against the opponents' ratings and deviations at the start of the period (Glickman 2013,
step 1). A player without games keeps rating and volatility; only the deviation grows (step 6 note).

The volatility update (step 5) is the Illinois variant of regula falsi, run for all players at once until
every bracket is narrower than :data:`CONVERGENCE_TOLERANCE`; :class:`Glicko2ConvergenceError` is raised
when :data:`MAX_ITERATIONS` are not enough (never silently returns an unconverged volatility).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ratings.engine.sorted_keys import lookup_sorted

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

GLICKO2_SCALE = 173.7178  # Glickman 2013, step 2: mu = (r - 1500) / 173.7178
GLICKO2_CENTRE = 1500.0  # Glickman 2013, step 2
CONVERGENCE_TOLERANCE = 0.000001  # Glickman 2013, step 5: epsilon, "e.g. 0.000001"
MAX_ITERATIONS = 200  # Illinois iterations (step 5.4) before Glicko2ConvergenceError
MAX_BRACKET_STEPS = 10_000  # step 5.2: k of B = a - k tau before Glicko2ConvergenceError


class Glicko2ConvergenceError(ArithmeticError):
    """The volatility iteration of step 5 did not converge within its limits."""


@dataclass(frozen=True)
class Glicko2Spec:
    """The administrator's choices of Glicko-2: tau and the state of an unrated player (Glickman 2013, step 1)."""

    tau: float = 0.5  # system constant; the worked example uses 0.5 ("reasonable choices are 0.3 to 1.2")
    initial_rating: float = 1500.0
    initial_deviation: float = 350.0
    initial_volatility: float = 0.06

    def __post_init__(self) -> None:
        if not (math.isfinite(self.tau) and self.tau > 0):
            raise ValueError(f"glicko2: tau must be a positive number, got {self.tau!r}")
        if not (math.isfinite(self.initial_deviation) and self.initial_deviation > 0):
            raise ValueError(f"glicko2: initial_deviation must be positive, got {self.initial_deviation!r}")
        if not (math.isfinite(self.initial_volatility) and self.initial_volatility > 0):
            raise ValueError(f"glicko2: initial_volatility must be positive, got {self.initial_volatility!r}")
        if not math.isfinite(self.initial_rating):
            raise ValueError(f"glicko2: initial_rating must be a number, got {self.initial_rating!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "tau": self.tau,
            "initial_rating": self.initial_rating,
            "initial_deviation": self.initial_deviation,
            "initial_volatility": self.initial_volatility,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Glicko2Spec:
        unknown = set(data) - {"tau", "initial_rating", "initial_deviation", "initial_volatility"}
        if unknown:
            raise ValueError(f"glicko2 JSON: unknown keys {sorted(unknown)}")
        return cls(**{key: float(value) for key, value in data.items()})


@dataclass
class Glicko2Result:
    """New state per player, and per game the quantities of steps 3-4 as seen by ``player``."""

    new_rating: FloatArray
    new_deviation: FloatArray
    new_volatility: FloatArray
    games: IntArray  # games per player in the period
    score: FloatArray  # points per player
    expected: FloatArray  # sum of E per player
    game_g: FloatArray  # g(phi_j) per game
    game_expected: FloatArray  # E(mu, mu_j, phi_j) per game
    iterations: int = 0
    extra: dict[str, FloatArray] = field(default_factory=dict)  # v, delta per player (NaN without games)


def g_function(phi: FloatArray) -> FloatArray:
    """g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2) (Glickman 2013, step 3)."""
    return np.asarray(1.0 / np.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi)), dtype=np.float64)


def expected_score(mu: FloatArray, mu_opponent: FloatArray, phi_opponent: FloatArray) -> FloatArray:
    """E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j)(mu - mu_j))) (Glickman 2013, step 3)."""
    return np.asarray(1.0 / (1.0 + np.exp(-g_function(phi_opponent) * (mu - mu_opponent))), dtype=np.float64)


def _f(x: FloatArray, delta2: FloatArray, phi2: FloatArray, v: FloatArray, a: FloatArray, tau: float) -> FloatArray:
    """f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2 (step 5.1)."""
    ex = np.exp(x)
    return np.asarray(ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau))


def new_volatility(
    sigma: FloatArray, phi: FloatArray, v: FloatArray, delta: FloatArray, tau: float
) -> tuple[FloatArray, int]:
    """sigma' by the Illinois algorithm of step 5, for every player at once; (sigma', iterations used)."""
    a = np.log(sigma * sigma)  # step 5.1
    delta2, phi2 = delta * delta, phi * phi
    big_a = a.copy()  # step 5.2
    big_b = np.empty_like(a)
    above = delta2 > phi2 + v
    big_b[above] = np.log(delta2[above] - phi2[above] - v[above])
    below = ~above
    if below.any():
        k = np.ones(int(below.sum()))
        a_b, d_b, p_b, v_b = a[below], delta2[below], phi2[below], v[below]
        for _ in range(MAX_BRACKET_STEPS):
            negative = _f(a_b - k * tau, d_b, p_b, v_b, a_b, tau) < 0
            if not negative.any():
                break
            k[negative] += 1
        else:
            raise Glicko2ConvergenceError(
                f"Glicko-2 step 5.2: no bracket for the volatility after {MAX_BRACKET_STEPS} steps of tau"
            )
        big_b[below] = a_b - k * tau
    f_a = _f(big_a, delta2, phi2, v, a, tau)  # step 5.3
    f_b = _f(big_b, delta2, phi2, v, a, tau)
    iterations = 0
    active = np.abs(big_b - big_a) > CONVERGENCE_TOLERANCE  # step 5.4
    while active.any():
        if iterations >= MAX_ITERATIONS:
            raise Glicko2ConvergenceError(
                f"Glicko-2 step 5.4: the volatility of {int(active.sum())} player(s) did not converge to "
                f"{CONVERGENCE_TOLERANCE} within {MAX_ITERATIONS} Illinois iterations"
            )
        iterations += 1
        idx = np.flatnonzero(active)
        ia, ib, fa, fb = big_a[idx], big_b[idx], f_a[idx], f_b[idx]
        c = ia + (ia - ib) * fa / (fb - fa)  # step 5.4 (a)
        fc = _f(c, delta2[idx], phi2[idx], v[idx], a[idx], tau)
        flip = fc * fb <= 0  # step 5.4 (b): A <- B, f_A <- f_B; otherwise f_A <- f_A / 2
        new_a = np.where(flip, ib, ia)
        new_fa = np.where(flip, fb, fa / 2.0)
        big_a[idx], f_a[idx] = new_a, new_fa
        big_b[idx], f_b[idx] = c, fc  # step 5.4 (c)
        active[idx] = np.abs(c - new_a) > CONVERGENCE_TOLERANCE
    if not np.all(np.isfinite(big_a)):
        raise Glicko2ConvergenceError("Glicko-2 step 5: the volatility iteration left a non-finite value")
    return np.asarray(np.exp(big_a / 2.0), dtype=np.float64), iterations  # step 5.5


def rate_glicko2(
    rating: FloatArray,
    deviation: FloatArray,
    volatility: FloatArray,
    player: IntArray,
    opponent_rating: FloatArray,
    opponent_deviation: FloatArray,
    score: FloatArray,
    spec: Glicko2Spec,
) -> Glicko2Result:
    """One rating period for n players (state arrays of length n) from m game sides (``player`` indexes the
    state arrays; each game side has the opponent's pre-period rating and deviation and the player's score).

    A game between two players of the list appears twice, once from each side.
    """
    rating = np.asarray(rating, dtype=np.float64)
    deviation = np.asarray(deviation, dtype=np.float64)
    volatility = np.asarray(volatility, dtype=np.float64)
    player = np.asarray(player, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    n = rating.shape[0]
    if not (deviation.shape[0] == volatility.shape[0] == n):
        raise ValueError("rating, deviation and volatility must have one value per player")
    if not (player.shape == score.shape == np.shape(opponent_rating) == np.shape(opponent_deviation)):
        raise ValueError("player, opponent_rating, opponent_deviation and score must have one value per game")
    if player.size and (player.min() < 0 or player.max() >= n):
        raise ValueError("player index out of range")
    mu = (rating - GLICKO2_CENTRE) / GLICKO2_SCALE  # step 2
    phi = deviation / GLICKO2_SCALE
    mu_j = (np.asarray(opponent_rating, dtype=np.float64) - GLICKO2_CENTRE) / GLICKO2_SCALE
    phi_j = np.asarray(opponent_deviation, dtype=np.float64) / GLICKO2_SCALE
    g = g_function(phi_j)  # step 3
    e = expected_score(mu[player], mu_j, phi_j)
    games = np.bincount(player, minlength=n).astype(np.int64)
    played = games > 0
    v_inverse = _sum_by(player, g * g * e * (1.0 - e), n)
    sum_g_s_e = _sum_by(player, g * (score - e), n)
    v = np.full(n, np.nan)
    v[played] = 1.0 / v_inverse[played]  # step 3
    delta: FloatArray = v * sum_g_s_e  # step 4
    sigma_new = volatility.copy()
    iterations = 0
    if played.any():
        sigma_new[played], iterations = new_volatility(
            volatility[played], phi[played], v[played], delta[played], spec.tau
        )
    phi_star = np.sqrt(phi * phi + sigma_new * sigma_new)  # step 6
    phi_new = phi_star.copy()  # a player without games: phi' = phi* (step 6 note)
    mu_new = mu.copy()
    phi_new[played] = 1.0 / np.sqrt(1.0 / phi_star[played] ** 2 + 1.0 / v[played])  # step 7
    mu_new[played] = mu[played] + phi_new[played] ** 2 * sum_g_s_e[played]
    return Glicko2Result(
        new_rating=GLICKO2_SCALE * mu_new + GLICKO2_CENTRE,  # step 8
        new_deviation=GLICKO2_SCALE * phi_new,
        new_volatility=sigma_new,
        games=games,
        score=_sum_by(player, score, n),
        expected=_sum_by(player, e, n),
        game_g=g,
        game_expected=e,
        iterations=iterations,
        extra={"v": v, "delta": delta},
    )


def _sum_by(player: IntArray, weights: FloatArray, n: int) -> FloatArray:
    """Per-player sums of per-game values (np.bincount with weights)."""
    return np.asarray(np.bincount(player, weights=weights, minlength=n), dtype=np.float64)


def _number(value: float) -> float | None:
    return None if not math.isfinite(value) else round(float(value), 10)


@dataclass
class Glicko2Line:
    """One game of a Glicko-2 calculation."""

    opponent_rating: float
    opponent_deviation: float
    score: float
    g: float
    expected_score: float
    rating_change: float  # score - E

    def to_dict(self) -> dict[str, float | None]:
        return {
            "opponent_rating": _number(self.opponent_rating),
            "opponent_deviation": _number(self.opponent_deviation),
            "score": _number(self.score),
            "g": _number(self.g),
            "expected_score": _number(self.expected_score),
            "rating_change": _number(self.rating_change),
        }


@dataclass
class Glicko2Calculation:
    rules: str
    rating: float
    deviation: float
    volatility: float
    tau: float
    games: int
    expected: float
    score: float
    variance: float | None  # v on the Glicko-2 scale (step 3)
    improvement: float | None  # Delta (step 4)
    new_rating: float
    new_deviation: float
    new_volatility: float
    lines: list[Glicko2Line]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "rating": _number(self.rating),
            "deviation": _number(self.deviation),
            "volatility": _number(self.volatility),
            "tau": _number(self.tau),
            "games": self.games,
            "expected": _number(self.expected),
            "score": _number(self.score),
            "variance": None if self.variance is None else _number(self.variance),
            "improvement": None if self.improvement is None else _number(self.improvement),
            "new_rating": _number(self.new_rating),
            "new_deviation": _number(self.new_deviation),
            "new_volatility": _number(self.new_volatility),
            "lines": [line.to_dict() for line in self.lines],
        }


def calculate_glicko2(
    rating: float | None,
    deviation: float | None,
    volatility: float | None,
    opponents: Sequence[tuple[float, float]],
    scores: Sequence[float],
    spec: Glicko2Spec,
    *,
    rules: str = "glicko2",
) -> Glicko2Calculation:
    """One player's Glicko-2 period against (opponent rating, opponent deviation) pairs; None: the unrated
    defaults of ``spec`` (Glickman 2013, step 1)."""
    r = spec.initial_rating if rating is None else float(rating)
    rd = spec.initial_deviation if deviation is None else float(deviation)
    sigma = spec.initial_volatility if volatility is None else float(volatility)
    if not math.isfinite(r):
        raise ValueError("rating must be a number")
    if not (math.isfinite(rd) and rd > 0):
        raise ValueError(f"deviation must be a positive number, got {rd}")
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"volatility must be a positive number, got {sigma}")
    if len(opponents) != len(scores):
        raise ValueError(f"{len(opponents)} opponents but {len(scores)} scores")
    for i, ((opp_r, opp_rd), s) in enumerate(zip(opponents, scores, strict=True), start=1):
        if s not in (0.0, 0.5, 1.0):
            raise ValueError(f"game {i}: score {s!r} is not 1, 0.5 or 0")
        if not math.isfinite(opp_r):
            raise ValueError(f"game {i}: opponent rating {opp_r!r} is not a number")
        if not (math.isfinite(opp_rd) and opp_rd > 0):
            raise ValueError(f"game {i}: opponent deviation {opp_rd!r} must be a positive number")
    m = len(opponents)
    result = rate_glicko2(
        np.array([r]),
        np.array([rd]),
        np.array([sigma]),
        np.zeros(m, dtype=np.int64),
        np.array([o[0] for o in opponents], dtype=np.float64),
        np.array([o[1] for o in opponents], dtype=np.float64),
        np.array(scores, dtype=np.float64),
        spec,
    )
    lines = [
        Glicko2Line(
            opponent_rating=float(opponents[i][0]),
            opponent_deviation=float(opponents[i][1]),
            score=float(scores[i]),
            g=float(result.game_g[i]),
            expected_score=float(result.game_expected[i]),
            rating_change=float(scores[i] - result.game_expected[i]),
        )
        for i in range(m)
    ]
    v = float(result.extra["v"][0])
    return Glicko2Calculation(
        rules=rules,
        rating=r,
        deviation=rd,
        volatility=sigma,
        tau=spec.tau,
        games=m,
        expected=float(result.expected[0]),
        score=float(result.score[0]),
        variance=v if math.isfinite(v) else None,
        improvement=float(result.extra["delta"][0]) if m else None,
        new_rating=float(result.new_rating[0]),
        new_deviation=float(result.new_deviation[0]),
        new_volatility=float(result.new_volatility[0]),
        lines=lines,
    )


@dataclass
class Glicko2List:
    """Every player's Glicko-2 state after a list's period (sorted by player id)."""

    player_id: IntArray
    rating: FloatArray
    deviation: FloatArray
    volatility: FloatArray
    games: IntArray


def glicko2_list(
    previous_id: IntArray,
    previous_rating: FloatArray,
    previous_deviation: FloatArray,
    previous_volatility: FloatArray,
    white_id: IntArray,
    black_id: IntArray,
    white_score: FloatArray,
    spec: Glicko2Spec,
) -> Glicko2List:
    """One list as a Glicko-2 rating period: the previous list's players (ids sorted and distinct) and the
    period's games between player ids. Players new to the list start at the unrated state (step 1); both sides
    of every game are rated against the opponent's pre-period rating and deviation (step 1: games of a period
    are simultaneous). A deviation never exceeds the unrated one (as Glicko's step 1 caps RD at 350)."""
    white_id = np.asarray(white_id, dtype=np.int64)
    black_id = np.asarray(black_id, dtype=np.int64)
    previous_id = np.asarray(previous_id, dtype=np.int64)
    union = np.union1d(previous_id, np.concatenate([white_id, black_id]))
    at = np.searchsorted(union, previous_id)
    rating = np.full(union.size, spec.initial_rating)
    deviation = np.full(union.size, spec.initial_deviation)
    volatility = np.full(union.size, spec.initial_volatility)
    rating[at], deviation[at], volatility[at] = previous_rating, previous_deviation, previous_volatility
    white, black = np.searchsorted(union, white_id), np.searchsorted(union, black_id)
    player = np.concatenate([white, black])
    opponent = np.concatenate([black, white])
    score = np.concatenate([np.asarray(white_score, dtype=np.float64), 1.0 - np.asarray(white_score)])
    result = rate_glicko2(rating, deviation, volatility, player, rating[opponent], deviation[opponent], score, spec)
    return Glicko2List(
        player_id=union,
        rating=result.new_rating,
        deviation=np.minimum(result.new_deviation, spec.initial_deviation),
        volatility=result.new_volatility,
        games=result.games,
    )


def glicko2_uncertainty(
    previous_id: IntArray,
    previous_deviation: FloatArray,
    previous_volatility: FloatArray,
    player_id: IntArray,
    spec: Glicko2Spec,
) -> tuple[FloatArray, FloatArray]:
    """Deviation and volatility of each of ``player_id`` from the previous list's (``previous_id`` sorted); the
    unrated values (Glickman 2013 step 1) where the previous list has none (a player new to it, an entry
    without them: an Elo list before the switch)."""
    deviation = lookup_sorted(previous_id, previous_deviation, player_id, spec.initial_deviation)
    volatility = lookup_sorted(previous_id, previous_volatility, player_id, spec.initial_volatility)
    return (
        np.nan_to_num(deviation, nan=spec.initial_deviation),
        np.nan_to_num(volatility, nan=spec.initial_volatility),
    )
