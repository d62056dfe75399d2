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
from dataclasses import dataclass
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
