"""Rating classes, tournament average and category, title thresholds by rating."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ratings.engine.rounding import round_half_up


@dataclass(frozen=True)
class RatingClass:
    lower: int  # inclusive
    upper: int | None  # inclusive; None: no upper bound
    name: str
    label: str = ""  # translation / short name


# Seed 000 (a Spanish teaching text): an approximate classification of players by Elo.
ELO_CLASSES_SEED_000 = (
    RatingClass(1000, 1399, "Principiante", "beginner"),
    RatingClass(1400, 1599, "Aficionado", "amateur"),
    RatingClass(1600, 1799, "Jugador medio de club", "average club player"),
    RatingClass(1800, 1999, "Jugador fuerte de club", "strong club player"),
    RatingClass(2000, 2299, "Candidato a maestro", "candidate master"),
    RatingClass(2300, 2399, "Maestro nacional", "national master"),
    RatingClass(2400, 2499, "Maestro internacional", "international master"),
    RatingClass(2500, None, "Gran maestro", "grandmaster"),
)

# US Chess classes (seed 002 down to Class E; F-J from the US Chess rulebook's 200-point steps).
USCF_CLASSES = (
    RatingClass(2400, None, "Senior Master"),
    RatingClass(2200, 2399, "Master"),
    RatingClass(2000, 2199, "Expert"),
    RatingClass(1800, 1999, "Class A"),
    RatingClass(1600, 1799, "Class B"),
    RatingClass(1400, 1599, "Class C"),
    RatingClass(1200, 1399, "Class D"),
    RatingClass(1000, 1199, "Class E"),
    RatingClass(800, 999, "Class F"),
    RatingClass(600, 799, "Class G"),
    RatingClass(400, 599, "Class H"),
    RatingClass(200, 399, "Class I"),
    RatingClass(0, 199, "Class J"),
)

CLASS_SCHEMES = {"elo-seed-000": ELO_CLASSES_SEED_000, "uscf": USCF_CLASSES}


def rating_class(rating: float | None, scheme: str = "elo-seed-000") -> RatingClass | None:
    """The class containing ``rating`` (None below the lowest class or for an unrated player)."""
    if scheme not in CLASS_SCHEMES:
        raise ValueError(f"rating class scheme {scheme!r} is unknown; use one of {sorted(CLASS_SCHEMES)}")
    if rating is None or rating != rating:
        return None
    value = int(round_half_up(rating))
    for item in CLASS_SCHEMES[scheme]:
        if value >= item.lower and (item.upper is None or value <= item.upper):
            return item
    return None


def tournament_average_rating(ratings: Sequence[float | None]) -> float:
    """Average rating of the (rated) participants, usually from the list at the event's start."""
    values = np.asarray([np.nan if r is None else r for r in ratings], dtype=np.float64)
    values = values[~np.isnan(values)]
    if values.shape[0] == 0:
        raise ValueError("tournament average: no rated participant")
    return float(values.mean())


def tournament_category(average: float, women: bool = False) -> int | None:
    """FIDE tournament category (rules 3.2, seed 002): category N covers 2251 + 25(N-1) .. 2275 + 25(N-1)
    of the average rounded to an integer (.5 up); women's events start 200 lower. None below category 1."""
    base = 2051 if women else 2251
    value = int(round_half_up(average))
    if value < base:
        return None
    return (value - base) // 25 + 1


def category_range(category: int, women: bool = False) -> tuple[int, int]:
    base = 2051 if women else 2251
    if category < 1:
        raise ValueError("category must be 1 or more")
    low = base + 25 * (category - 1)
    return low, low + 24


def roman(number: int) -> str:
    """Categories are printed in Roman numerals (XX = 20)."""
    if number < 1:
        raise ValueError("roman numerals start at 1")
    out = []
    for value, letters in (
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ):
        while number >= value:
            out.append(letters)
            number -= value
    return "".join(out)


@dataclass(frozen=True)
class TitleThreshold:
    title: str
    rating: int  # rating needed at some time (published or interim)
    norms: int  # norms needed (0: title by rating alone)
    women: bool
    direct_minimum: int  # minimum rating for direct titles from events


# Title Regulations 2024 (rules 3.3)
TITLE_THRESHOLDS = {
    "GM": TitleThreshold("GM", 2500, 3, False, 2300),
    "IM": TitleThreshold("IM", 2400, 3, False, 2200),
    "FM": TitleThreshold("FM", 2300, 0, False, 2100),
    "CM": TitleThreshold("CM", 2200, 0, False, 2000),
    "WGM": TitleThreshold("WGM", 2300, 3, True, 2100),
    "WIM": TitleThreshold("WIM", 2200, 3, True, 2000),
    "WFM": TitleThreshold("WFM", 2100, 0, True, 1900),
    "WCM": TitleThreshold("WCM", 2000, 0, True, 1800),
}
TITLE_BY_RATING_MIN_GAMES = 30  # ratings achieved after 1 Jul 2017 need >= 30 rated games at that time


def titles_by_rating(peak_rating: float, rated_games: int | None = None, women: bool = False) -> list[str]:
    """Titles awarded on rating alone (FM, CM; women also WFM, WCM) that ``peak_rating`` reaches.

    ``rated_games`` None skips the 30-game condition (ratings achieved before 1 Jul 2017)."""
    if rated_games is not None and rated_games < TITLE_BY_RATING_MIN_GAMES:
        return []
    return [
        t.title
        for t in TITLE_THRESHOLDS.values()
        if t.norms == 0 and (women or not t.women) and peak_rating >= t.rating
    ]


def title_rating_reached(peak_rating: float, women: bool = False) -> list[str]:
    """Every title whose rating requirement ``peak_rating`` meets (norm titles still need their norms)."""
    return [t.title for t in TITLE_THRESHOLDS.values() if (women or not t.women) and peak_rating >= t.rating]
