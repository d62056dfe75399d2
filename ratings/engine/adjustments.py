"""One-off rating adjustments attached to a list date (rating-rules.md 1.9): pure formulas, arrays in and out.

FIDE's of 1 March 2024 (approved by the FIDE Council on 15 Dec 2023; rating-rules.md 1.9, sources S5, S7, S27,
S30): every standard rating below 2000 received + 0.40 x (2000 - rating); 2000 and above unchanged
(1000 -> 1400, 1500 -> 1700, 1600 -> 1760, 1700 -> 1820, 1950 -> 1970). Its rounding of non-integer results
is not documented [U]: the amount is rounded as the rules round a period's change, .5 away from zero
(B.02 8.3.4); with whole ratings and 0.4 a tie cannot occur.

Order (``AdjustmentSpec.order``): ``after-games`` raises the ratings of the new list after the period's games
were rated with the ratings in force (FIDE's order on 1 March 2024: the regular calculation of the period,
then the compression of the published ratings, as the 1 March 2024 list shows - our reading of S2c/S5, the
regulations do not state it); ``before-games`` raises the previous list's ratings first, so that the period's
games are rated with the adjusted ratings. Either way only players rated on the previous list are adjusted (a
first rating is not), and the amount is recorded on their entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ratings.engine.rounding import round_half_away_from_zero

ORDERS = ("after-games", "before-games")


def compress_below(ratings: np.ndarray, threshold: float, factor: float) -> np.ndarray:
    """+ factor x (threshold - R) for R < threshold, rounded .5 away from zero; 0 elsewhere and for NaN
    (FIDE 1 Mar 2024 with threshold 2000 and factor 0.4, rating-rules.md 1.9)."""
    r = np.asarray(ratings, dtype=np.float64)
    raw = np.where(r < threshold, factor * (threshold - r), 0.0)
    # 0.4 x 5 is 2.0000000000000004 in binary: decide the rounding on the value to a millionth
    amounts = round_half_away_from_zero(np.round(np.nan_to_num(raw), 6))
    return np.where(np.isnan(r), 0.0, amounts)


def shift_below(ratings: np.ndarray, threshold: float, factor: float) -> np.ndarray:
    """+ factor points (rounded .5 away from zero) for every R < threshold; 0 elsewhere and for NaN."""
    r = np.asarray(ratings, dtype=np.float64)
    points = float(round_half_away_from_zero(factor))
    return np.where(~np.isnan(r) & (r < threshold), points, 0.0)


FORMULAS: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    "compress-below": compress_below,
    "shift-below": shift_below,
}
FORMULA_LABELS = {
    "compress-below": "R < threshold: + factor x (threshold - R)  (FIDE 1 Mar 2024: 2000, 0.4)",
    "shift-below": "R < threshold: + factor points",
}


@dataclass(frozen=True)
class AdjustmentSpec:
    """A named one-off adjustment: formula, its two parameters and the order (ORDERS)."""

    name: str
    formula: str = "compress-below"
    threshold: float = 2000.0
    factor: float = 0.4
    order: str = "after-games"

    def __post_init__(self) -> None:
        if self.formula not in FORMULAS:
            raise ValueError(f"adjustment formula {self.formula!r} is unknown; use one of {sorted(FORMULAS)}")
        if self.order not in ORDERS:
            raise ValueError(f"adjustment order {self.order!r} is unknown; use one of {ORDERS}")
        if not np.isfinite(self.threshold) or not np.isfinite(self.factor):
            raise ValueError("adjustment threshold and factor must be numbers")

    def amounts(self, ratings: np.ndarray) -> np.ndarray:
        """The whole points each rating receives (0 where the formula leaves it, NaN ratings included)."""
        return np.asarray(FORMULAS[self.formula](np.asarray(ratings, dtype=np.float64), self.threshold, self.factor))

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "formula": self.formula,
            "threshold": self.threshold,
            "factor": self.factor,
            "order": self.order,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AdjustmentSpec:
        unknown = set(data) - {"name", "formula", "threshold", "factor", "order"}
        if unknown:
            raise ValueError(f"adjustment JSON: unknown keys {sorted(unknown)}")
        return cls(
            name=str(data["name"]),
            formula=str(data.get("formula", "compress-below")),
            threshold=float(data.get("threshold", 2000.0)),
            factor=float(data.get("factor", 0.4)),
            order=str(data.get("order", "after-games")),
        )


FIDE_2024_COMPRESSION = AdjustmentSpec(name="FIDE 1 March 2024", threshold=2000.0, factor=0.4)


def adjust_before_games(spec: AdjustmentSpec | None, ratings: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """A ``before-games`` adjustment raises the previous list's ratings first, so that the period's games are
    rated with them (rating-rules.md 1.9): (the ratings to rate with, the amount per rating). Any other
    adjustment, or none: the ratings unchanged and no amounts."""
    if spec is None or spec.order != "before-games":
        return ratings, None
    amounts = spec.amounts(ratings)
    return ratings + amounts, amounts


@dataclass(frozen=True)
class ListAdjustment:
    """The new list's ratings and printed changes with the adjustment applied, and each entry's amount (NaN:
    none)."""

    rating: np.ndarray
    change: np.ndarray
    amount: np.ndarray


def adjust_list(
    spec: AdjustmentSpec | None,
    player_id: np.ndarray,
    before_rating: np.ndarray,
    rating: np.ndarray,
    change: np.ndarray,
    previous_id: np.ndarray,
    before_games: np.ndarray | None,
) -> ListAdjustment:
    """The adjustment of a list (rating-rules.md 1.9) on its entries (``player_id`` sorted; ``before_rating``
    the rating on the previous list, ``rating`` / ``change`` the new list's): an ``after-games`` adjustment
    raises the new ratings of the players rated on the previous list; a ``before-games`` one was applied to the
    previous list's ratings (``before_games``: its amounts, per ``previous_id``, adjust_before_games). Either way
    the amount is counted in the printed change since the previous list and recorded on listed entries."""
    if spec is None:
        return ListAdjustment(rating=rating, change=change, amount=np.full(player_id.size, np.nan))
    amounts = np.zeros(player_id.size)
    if before_games is not None:
        amounts[np.searchsorted(player_id, previous_id)] = before_games
    else:
        was_rated = ~np.isnan(before_rating)
        amounts = np.where(was_rated, spec.amounts(rating), 0.0)
        rating = rating + amounts
    listed = ~np.isnan(rating) & (amounts != 0)
    return ListAdjustment(
        rating=rating,
        change=np.where(listed, change + amounts, change),
        amount=np.where(listed, amounts, np.nan),
    )


BUCKET = 100  # rating points per bar of a pool's distribution


@dataclass
class PoolFigures:
    """A pool of ratings in figures: how many, their total, mean, median, how many at least 2000, and the
    distribution in BUCKET-point bars (bar start, players)."""

    rated: int
    total: int
    mean: float | None
    median: float | None
    at_least_2000: int
    distribution: list[tuple[int, int]] = field(default_factory=list)


def pool_figures(ratings: np.ndarray) -> PoolFigures:
    """The figures of a pool of (rated) ratings."""
    buckets = (ratings // BUCKET * BUCKET).astype(np.int64)
    values, counts = np.unique(buckets, return_counts=True)
    return PoolFigures(
        rated=int(ratings.size),
        total=int(ratings.sum()),
        mean=round(float(ratings.mean()), 2) if ratings.size else None,
        median=float(np.median(ratings)) if ratings.size else None,
        at_least_2000=int((ratings >= 2000).sum()),
        distribution=[(int(v), int(c)) for v, c in zip(values, counts, strict=True)],
    )


@dataclass
class AdjustmentEffect:
    """What an adjustment does to a pool of ratings: the amount per rating, how many move, the points added,
    the largest amount, the rows of the players who move most (largest first) and the pool before and after."""

    amounts: np.ndarray
    moved: int
    points: int
    largest: int
    movers: np.ndarray
    before: PoolFigures
    after: PoolFigures


def adjustment_effect(spec: AdjustmentSpec, ratings: np.ndarray, movers: int) -> AdjustmentEffect:
    """The adjustment applied to ``ratings`` (a preview), with at most ``movers`` players who move most."""
    amounts = spec.amounts(ratings)
    moved = amounts != 0
    top = np.argsort(-amounts, kind="stable")[: min(movers, int(moved.sum()))]
    return AdjustmentEffect(
        amounts=amounts,
        moved=int(moved.sum()),
        points=int(amounts.sum()),
        largest=int(amounts.max()) if amounts.size else 0,
        movers=top,
        before=pool_figures(ratings),
        after=pool_figures(ratings + amounts),
    )
