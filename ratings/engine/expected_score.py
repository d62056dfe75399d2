"""Expected score curves, interchangeable and vectorised.

- ``fide-table``: B.02 table 8.1.2 (the default of every FIDE preset; "use the tables, never a formula",
  rating-rules.md 2.4). Exact hundredths.
- ``normal``: seed 000 eq. (2), E = Phi(D / sigma) with sigma = 200 * sqrt(2) (each player's performance
  is N(rating, 200^2), the difference has standard deviation 200 * sqrt(2)). sigma configurable.
- ``normal-draw-margin``: seed 000 eq. (4), a game is drawn when the performances differ by at most eps:
  E = (Phi((D - eps) / sigma) + Phi((D + eps) / sigma)) / 2.
- ``logistic``: seed 002, E = 1 / (1 + 10^(-D / scale)) with scale 400 (also US Chess' We).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr

from ratings.engine.tables import pd_hundredths

EXPECTED_SCORE_KINDS = ("fide-table", "normal", "normal-draw-margin", "logistic")
ELO_SIGMA = 200.0 * math.sqrt(2.0)  # seed 000: Vr(rA - rB) = 2 * 200^2


@dataclass(frozen=True)
class ExpectedScoreSpec:
    kind: str = "fide-table"
    sigma: float | None = None  # normal curves; default 200 * sqrt(2)
    eps: float | None = None  # normal-draw-margin: half-width of the draw band in rating points
    scale: float | None = None  # logistic: default 400

    def __post_init__(self) -> None:
        if self.kind not in EXPECTED_SCORE_KINDS:
            raise ValueError(f"expected_score kind {self.kind!r} is unknown; use one of {EXPECTED_SCORE_KINDS}")
        if self.kind in ("normal", "normal-draw-margin"):
            if self.sigma is None:
                object.__setattr__(self, "sigma", ELO_SIGMA)
            if not (self.sigma is not None and self.sigma > 0):
                raise ValueError(f"expected_score sigma must be positive, got {self.sigma}")
        elif self.sigma is not None:
            raise ValueError(f"expected_score kind {self.kind!r} takes no sigma")
        if self.kind == "normal-draw-margin":
            if self.eps is None or self.eps < 0:
                raise ValueError("expected_score kind 'normal-draw-margin' needs eps >= 0 (rating points)")
        elif self.eps is not None:
            raise ValueError(f"expected_score kind {self.kind!r} takes no eps")
        if self.kind == "logistic":
            if self.scale is None:
                object.__setattr__(self, "scale", 400.0)
            if not (self.scale is not None and self.scale > 0):
                raise ValueError(f"expected_score scale must be positive, got {self.scale}")
        elif self.scale is not None:
            raise ValueError(f"expected_score kind {self.kind!r} takes no scale")

    @property
    def is_exact(self) -> bool:
        """True when PD values are exact hundredths (table look-up)."""
        return self.kind == "fide-table"

    @property
    def result_scale(self) -> float:
        """Factor that turns PD into the integers returned by :func:`expected_score_scaled`."""
        return 100.0 if self.is_exact else 1.0

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "sigma": self.sigma, "eps": self.eps, "scale": self.scale}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ExpectedScoreSpec:
        unknown = set(data) - {"kind", "sigma", "eps", "scale"}
        if unknown:
            raise ValueError(f"expected_score: unknown keys {sorted(unknown)}")
        return cls(kind=data["kind"], sigma=data.get("sigma"), eps=data.get("eps"), scale=data.get("scale"))


FIDE_TABLE = ExpectedScoreSpec("fide-table")


def normal_expected_score(difference: np.ndarray | float, sigma: float = ELO_SIGMA) -> np.ndarray:
    """Seed 000 eq. (2): Phi(D / sigma)."""
    probability: np.ndarray = ndtr(np.asarray(difference, dtype=np.float64) / sigma)
    return probability


def normal_draw_margin_expected_score(
    difference: np.ndarray | float, eps: float, sigma: float = ELO_SIGMA
) -> np.ndarray:
    """Seed 000 eq. (4): (Phi((D - eps) / sigma) + Phi((D + eps) / sigma)) / 2; eps = 0 gives eq. (2)."""
    d = np.asarray(difference, dtype=np.float64)
    probability: np.ndarray = 0.5 * (ndtr((d - eps) / sigma) + ndtr((d + eps) / sigma))
    return probability


def logistic_expected_score(difference: np.ndarray | float, scale: float = 400.0) -> np.ndarray:
    """Seed 002: 1 / (1 + 10^(-D / 400))."""
    d = np.asarray(difference, dtype=np.float64)
    return 1.0 / (1.0 + np.power(10.0, -d / scale))


def expected_score_scaled(difference: np.ndarray | float, spec: ExpectedScoreSpec = FIDE_TABLE) -> np.ndarray:
    """PD * spec.result_scale: exact hundredths (as float64) for the table, probabilities otherwise."""
    if spec.kind == "fide-table":
        return pd_hundredths(difference).astype(np.float64)
    return expected_score(difference, spec)


def expected_score(difference: np.ndarray | float, spec: ExpectedScoreSpec = FIDE_TABLE) -> np.ndarray:
    """Expected score (probability 0..1) of the player whose rating exceeds the opponent's by D."""
    if spec.kind == "fide-table":
        return pd_hundredths(difference) / 100.0
    # (__post_init__ filled sigma / scale and checked eps for these kinds)
    if spec.kind == "normal":
        return normal_expected_score(difference, _given(spec.sigma))
    if spec.kind == "normal-draw-margin":
        return normal_draw_margin_expected_score(difference, _given(spec.eps), _given(spec.sigma))
    return logistic_expected_score(difference, _given(spec.scale))


def _given(value: float | None) -> float:
    if value is None:
        raise ValueError("expected_score: a parameter of the curve is missing")
    return value
