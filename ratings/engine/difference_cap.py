"""The rating-difference cap ("350-point rule" before July 2009, "400-point rule" since).

B.02 8.3.1 (2024, as amended 1 Oct 2025): a difference of more than 400 points counts as 400 for players
rated below 2650; players rated 2650 or more use the real difference. The exemption depends on the rating of
the player whose change is computed, not on the opponent's (rating-rules.md 1.4 item 2): in one game a 2813
player used D = 413 while his 2400 opponent saw him capped to 2800.

Rapid and blitz (rules 1.10, 9 Q5): the published 2024 rapid/blitz chapter has the plain 400-point cap and no
2650 exemption. ``exemption_rating_types`` therefore defaults to ``("standard",)``: the exemption applies to
the standard list only, and a federation that reads the amendment as covering all three lists can set
``("standard", "rapid", "blitz")`` in its preset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings.engine.rating_types import RATING_TYPES


@dataclass(frozen=True)
class DifferenceCapSpec:
    limit: int | None = 400  # None: no cap
    exempt_from_rating: int | None = None  # 2650: own rating >= this uses the real difference
    exemption_rating_types: tuple[str, ...] = ("standard",)

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit <= 0:
            raise ValueError(f"difference_cap limit must be positive, got {self.limit}")
        if self.exempt_from_rating is not None and self.limit is None:
            raise ValueError("difference_cap: an exemption needs a limit")
        object.__setattr__(self, "exemption_rating_types", tuple(self.exemption_rating_types))
        bad = [t for t in self.exemption_rating_types if t not in RATING_TYPES]
        if bad:
            raise ValueError(f"difference_cap: unknown rating types {bad}; use {RATING_TYPES}")

    @classmethod
    def none(cls) -> DifferenceCapSpec:
        return cls(limit=None, exempt_from_rating=None)

    @classmethod
    def fixed(cls, limit: int) -> DifferenceCapSpec:
        return cls(limit=limit, exempt_from_rating=None)

    @classmethod
    def below(
        cls,
        limit: int = 400,
        exempt_from_rating: int = 2650,
        exemption_rating_types: tuple[str, ...] = ("standard",),
    ) -> DifferenceCapSpec:
        return cls(limit=limit, exempt_from_rating=exempt_from_rating, exemption_rating_types=exemption_rating_types)

    @property
    def label(self) -> str:
        """'none', '350', '400', '400-below-2650'."""
        if self.limit is None:
            return "none"
        if self.exempt_from_rating is None:
            return str(self.limit)
        return f"{self.limit}-below-{self.exempt_from_rating}"

    def to_json(self) -> dict[str, Any]:
        return {
            "limit": self.limit,
            "exempt_from_rating": self.exempt_from_rating,
            "exemption_rating_types": list(self.exemption_rating_types),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DifferenceCapSpec:
        unknown = set(data) - {"limit", "exempt_from_rating", "exemption_rating_types"}
        if unknown:
            raise ValueError(f"difference_cap: unknown keys {sorted(unknown)}")
        return cls(
            limit=data.get("limit"),
            exempt_from_rating=data.get("exempt_from_rating"),
            exemption_rating_types=tuple(data.get("exemption_rating_types", ("standard",))),
        )


def apply_difference_cap(
    own_rating: np.ndarray,
    opponent_rating: np.ndarray,
    spec: DifferenceCapSpec,
    rating_type: str = "standard",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (D used, opponent rating used, capped flag) for each game side.

    The opponent rating used is what FIDE prints on its calculation pages: own -+ limit when capped.
    """
    if rating_type not in RATING_TYPES:
        raise ValueError(f"rating_type {rating_type!r} is unknown; use one of {RATING_TYPES}")
    own = np.asarray(own_rating, dtype=np.float64)
    opp = np.asarray(opponent_rating, dtype=np.float64)
    difference = own - opp
    if spec.limit is None:
        return difference, opp.copy(), np.zeros(difference.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        capped = np.abs(difference) > spec.limit
        if spec.exempt_from_rating is not None and rating_type in spec.exemption_rating_types:
            # B.02 8.3.1 (from 1 Oct 2025): own rating >= 2650 -> real difference
            capped &= ~(own >= spec.exempt_from_rating)
    used = np.where(capped, np.sign(difference) * spec.limit, difference)
    return used, np.where(capped, own - used, opp), capped
