"""FIDE tables 8.1.1 (p -> dp) and 8.1.2 (D -> PD), exact, vectorised.

Numbering: 8.1(a)/8.1(b) in the 2014-2021 handbooks = 8.1.1/8.1.2 in the 2022 and 2024 chapters = 10.1a/10.1b
in handbooks up to 2008; the values never changed (rating-rules.md section 2). Title Regulations table 1.4.9
is identical to 8.1.1.

Everything here works in integers: PD is returned in hundredths (0..100), dp in rating points, and
percentages as whole percent (0..100), so sums of rating changes can be formed without float ties.
"""

from __future__ import annotations

import numpy as np

# B.02 8.1.1: dp for p = 1.00, 0.99, ..., 0.50 (index = 100 - p100). p = 1.00 / 0.00 are "indeterminate,
# shown notionally as +-800".
DP_BY_DISTANCE_FROM_100 = np.array(
    [
        800,
        677,
        589,
        538,
        501,
        470,
        444,
        422,
        401,
        383,
        366,
        351,
        336,
        322,
        309,
        296,
        284,
        273,
        262,
        251,
        240,
        230,
        220,
        211,
        202,
        193,
        184,
        175,
        166,
        158,
        149,
        141,
        133,
        125,
        117,
        110,
        102,
        95,
        87,
        80,
        72,
        65,
        57,
        50,
        43,
        36,
        29,
        21,
        14,
        7,
        0,
    ],
    dtype=np.int64,
)

# B.02 8.1.2: upper bound of |D| for PD(H) = .50, .51, ..., .99; |D| > 735 -> 1.00.
PD_BAND_UPPER = np.array(
    [
        3,
        10,
        17,
        25,
        32,
        39,
        46,
        53,
        61,
        68,
        76,
        83,
        91,
        98,
        106,
        113,
        121,
        129,
        137,
        145,
        153,
        162,
        170,
        179,
        188,
        197,
        206,
        215,
        225,
        235,
        245,
        256,
        267,
        278,
        290,
        302,
        315,
        328,
        344,
        357,
        374,
        391,
        411,
        432,
        456,
        484,
        517,
        559,
        619,
        735,
    ],
    dtype=np.int64,
)

# PD(H) in hundredths for |D| = 0..736 (736 stands for every |D| > 735).
PD_HIGH_BY_ABS_DIFFERENCE = 50 + np.searchsorted(PD_BAND_UPPER, np.arange(737), side="left").astype(np.int64)

# dp for every whole percentage 0..100 (index = p100).
DP_BY_PERCENT = np.concatenate([-DP_BY_DISTANCE_FROM_100[:50], DP_BY_DISTANCE_FROM_100[::-1]])


def pd_hundredths(difference: np.ndarray | float) -> np.ndarray:
    """Expected score PD in hundredths (int64) from table 8.1.2 for rating difference(s) D = own - opponent.

    D >= 0 reads the H column of the row containing |D|, D < 0 the L column (= 100 - H). Non-integer D
    falls into the band whose closed upper bound it does not exceed (3.5 -> the 4-10 row).
    """
    d = np.asarray(difference, dtype=np.float64)
    if np.isnan(d).any():
        raise ValueError("pd_hundredths: rating difference is NaN (an unrated player has no expected score)")
    magnitude = np.abs(d)
    whole = np.minimum(magnitude, PD_BAND_UPPER[-1] + 1).astype(np.int64)
    if np.array_equal(whole, np.minimum(magnitude, PD_BAND_UPPER[-1] + 1)):
        # integer ratings (FIDE): direct look-up of |D| = 0..736
        high = PD_HIGH_BY_ABS_DIFFERENCE[whole]
    else:
        # first band i with |D| <= UPPER[i] gives H = 50 + i; beyond 735 searchsorted returns 50 -> 1.00
        high = 50 + np.searchsorted(PD_BAND_UPPER, magnitude, side="left").astype(np.int64)
    hundredths: np.ndarray = np.where(d >= 0, high, 100 - high)
    return hundredths


def percent_half_up(numerator: np.ndarray | float, denominator: np.ndarray | float) -> np.ndarray:
    """round(100 * numerator / denominator) with .5 rounded up, exactly for integer or half-integer inputs.

    Title Regulations 1.4.6: p is rounded to the nearest whole percent, 0.5 % upwards. Scores are
    multiples of 0.5, so working in half points keeps the division exact.
    """
    num2 = np.rint(np.asarray(numerator, dtype=np.float64) * 2).astype(np.int64)  # half points
    den = np.asarray(denominator, dtype=np.int64)
    if np.any(den <= 0):
        raise ValueError("percent_half_up: number of games must be positive")
    # 100 * (num2 / 2) / den + 1/2 = (100 * num2 + den) / (2 * den)
    percent: np.ndarray = np.floor_divide(100 * num2 + den, 2 * den)
    return percent


def dp_from_percent(p100: np.ndarray | int) -> np.ndarray:
    """dp (int64) from table 8.1.1 for whole percentages 0..100."""
    p = np.asarray(p100, dtype=np.int64)
    if np.any((p < 0) | (p > 100)):
        raise ValueError("dp_from_percent: percentage must be between 0 and 100")
    return DP_BY_PERCENT[p]


def dp_from_score(score: np.ndarray | float, games: np.ndarray | int) -> np.ndarray:
    """dp from table 8.1.1 for score/games, p rounded to the nearest whole percent (.5 up) first."""
    return dp_from_percent(percent_half_up(score, games))
