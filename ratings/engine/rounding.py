"""Rounding rules, applied to scaled values so that FIDE's ties are decided exactly.

A FIDE change K * sum(score - PD) is an exact multiple of 0.01 (PD are exact hundredths, K is an integer);
the engine carries such sums as integers in hundredths ("scale" 100) and only divides at the end. Other
curves (normal, logistic) produce real numbers and use scale 1.
"""

from __future__ import annotations

import numpy as np


def round_half_away_from_zero(scaled: np.ndarray | float, scale: float = 1.0) -> np.ndarray:
    """round(scaled / scale) with .5 away from zero (B.02 8.3.4: -2.50 -> -3, +2.50 -> +3).

    For integer-valued ``scaled`` (hundredths) and scale 100 the result is exact: |x| + 50 and the
    quotient by 100 are computed on integers held exactly in float64 (< 2**53).
    """
    x = np.asarray(scaled, dtype=np.float64)
    return np.sign(x) * np.floor((np.abs(x) + scale / 2.0) / scale) + 0.0  # + 0.0: no negative zero


def round_half_up(value: np.ndarray | float) -> np.ndarray:
    """round(value) with .5 upwards (initial rating Ru, averages Ra: Title Regulations analogy, 9 Q3)."""
    return np.floor(np.asarray(value, dtype=np.float64) + 0.5)


def round_rational_half_up(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """round(numerator / denominator), .5 upwards; exact for integer numerator, positive denominator."""
    num = np.asarray(numerator, dtype=np.int64)
    den = np.asarray(denominator, dtype=np.int64)
    rounded: np.ndarray = np.floor_divide(2 * num + den, 2 * den)
    return rounded
