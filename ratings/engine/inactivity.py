"""List maintenance rules: FIDE floor and inactivity, the 2024 one-off adjustment, US Chess floors.

FIDE (B.02 7.2, rules 1.7): a rating below 1400 (1 Mar 2024 on; 1000 from Jul 2012, 1200 from Jul 2009) is
shown as unrated on the next list, and the player is then treated like any unrated player. A player with no
rated game for one year is inactive; one rated game makes them active again on the next list; the rating of
an inactive player does not change (no decay).

US Chess (rules 4.6): absolute floor 100; established players' floor = (highest established rating - 200)
truncated to a multiple of 100, applied from 1200 up to 2100; personal absolute floor
min(100 + 4 wins + 2 draws + N_r, 150); Original Life Masters 2200.
"""

from __future__ import annotations

import datetime

import numpy as np

from ratings.engine.months import add_months
from ratings.engine.rounding import round_half_up


def apply_rating_floor(ratings: np.ndarray, floor: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(list ratings, dropped): ratings below ``floor`` become NaN (unrated on the next list)."""
    r = np.array(ratings, dtype=np.float64, copy=True)
    if floor is None:
        return r, np.zeros(r.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        dropped = r < floor
    r[dropped] = np.nan
    return r, dropped


def inactivity_cutoff(list_date: datetime.date, months: int = 12) -> datetime.date:
    """A player whose last rated game (event end date) is before this date is inactive on the list."""
    return add_months(list_date, -months)


def inactive_flags(
    last_rated_game: np.ndarray,
    list_date: datetime.date,
    months: int | None = 12,
    unknown_is_inactive: bool = False,
) -> np.ndarray:
    """Inactive flag per player: no rated game in the ``months`` before ``list_date``.

    ``last_rated_game`` is a datetime64[D] array (NaT: never / unknown -> ``unknown_is_inactive``). Inactivity
    changes only the flag; the rating stays as it is.
    """
    last = np.asarray(last_rated_game, dtype="datetime64[D]")
    if months is None:
        return np.zeros(last.shape, dtype=bool)
    cutoff = np.datetime64(inactivity_cutoff(list_date, months), "D")
    unknown = np.isnat(last)
    with np.errstate(invalid="ignore"):
        inactive = np.where(unknown, unknown_is_inactive, last < cutoff)
    return inactive.astype(bool)


def adjustment_2024(ratings: np.ndarray, rounding: str = "half-up") -> np.ndarray:
    """One-off adjustment of 1 Mar 2024: below 2000, new = old + 0.40 x (2000 - old) (rules 1.9).

    Exact in tenths: 0.4 x (2000 - old) = 2 x (2000 - old) / 5. The rounding of fractional results is not
    documented (rules 9 Q7); 'half-up' rounds to an integer, 'none' keeps the fraction."""
    r = np.asarray(ratings, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        raised = np.where(r < 2000, r + 2.0 * (2000.0 - r) / 5.0, r)
    if rounding == "none":
        return raised
    if rounding != "half-up":
        raise ValueError("adjustment_2024 rounding must be 'half-up' or 'none'")
    return np.where(np.isnan(raised), np.nan, round_half_up(np.round(raised, 6)))


USCF_ABSOLUTE_FLOOR = 100
USCF_LOWEST_PEAK_FLOOR = 1200
USCF_HIGHEST_PEAK_FLOOR = 2100
USCF_ORIGINAL_LIFE_MASTER_FLOOR = 2200


def uscf_rating_floor(
    peak_rating: np.ndarray | float,
    wins: np.ndarray | int = 0,
    draws: np.ndarray | int = 0,
    events_with_3_games: np.ndarray | int = 0,
    original_life_master: np.ndarray | bool = False,
) -> np.ndarray:
    """US Chess floor: the highest of the absolute floor (100), the personal absolute floor
    min(100 + 4 wins + 2 draws + N_r, 150), the peak floor ((peak - 200) truncated to 100s, from 1200 up to
    2100) and 2200 for Original Life Masters."""
    peak = np.asarray(peak_rating, dtype=np.float64)
    personal = np.minimum(
        USCF_ABSOLUTE_FLOOR + 4 * np.asarray(wins) + 2 * np.asarray(draws) + np.asarray(events_with_3_games),
        150,
    )
    peak_floor = np.floor((np.nan_to_num(peak, nan=0.0) - 200.0) / 100.0) * 100.0
    peak_floor = np.where(peak_floor >= USCF_LOWEST_PEAK_FLOOR, np.minimum(peak_floor, USCF_HIGHEST_PEAK_FLOOR), 0.0)
    floor: np.ndarray = np.maximum.reduce(
        [np.full(peak.shape, float(USCF_ABSOLUTE_FLOOR)), personal.astype(np.float64), peak_floor]
    )
    return np.where(
        np.asarray(original_life_master, dtype=bool),
        np.maximum(floor, USCF_ORIGINAL_LIFE_MASTER_FLOOR),
        floor,
    )


def apply_uscf_floor(ratings: np.ndarray, floors: np.ndarray) -> np.ndarray:
    """Floors apply to the new rating after the calculation (rules 4.6)."""
    return np.fmax(np.asarray(ratings, dtype=np.float64), np.asarray(floors, dtype=np.float64))
