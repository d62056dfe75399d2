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


# Titles in two tracks (players.Player.title / women_title), each ordered from the lowest: a player "already
# holds that title or a higher one" (B.01 0.3's order within a track) when the rank held is at least its rank.
OPEN_TITLE_ORDER = ("CM", "FM", "IM", "GM")
WOMEN_TITLE_ORDER = ("WCM", "WFM", "WIM", "WGM")


def title_track(title: str) -> tuple[str, ...]:
    """The ordered track ``title`` belongs to (open or women's); ValueError for an unknown title."""
    for track in (OPEN_TITLE_ORDER, WOMEN_TITLE_ORDER):
        if title in track:
            return track
    raise ValueError(f"unknown title {title!r}; expected one of {', '.join(TITLE_THRESHOLDS)}")


def title_rank(title: str | None) -> int:
    """1.. within the title's track (CM/WCM 1 .. GM/WGM 4); 0 for none or an unknown title."""
    for track in (OPEN_TITLE_ORDER, WOMEN_TITLE_ORDER):
        if title in track:
            return track.index(title) + 1
    return 0


def title_covers(held: str | None, title: str) -> bool:
    """``held`` is ``title`` or a higher title of the same track (so ``title`` is not a candidate)."""
    track = title_track(title)
    return held in track and track.index(held or "") >= track.index(title)


def title_by_rating_candidates(
    rating: np.ndarray,
    rated_games: np.ndarray,
    women: np.ndarray,
    title: np.ndarray,
    women_title: np.ndarray,
) -> list[tuple[np.ndarray, str]]:
    """B.01 1.3, for a whole list at once: for each title by rating (FM, CM; WFM, WCM for women), the rows
    whose ``rating`` reaches its threshold with at least 30 rated games (TITLE_BY_RATING_MIN_GAMES) and whose
    held title of that track (``title`` for FM/CM, ``women_title`` for WFM/WCM; object arrays of str) is not
    that title or a higher one. Returns (row indices, title) pairs, highest title of each track first; a player
    reaching FM is not also listed for CM (the higher title is the one awarded). NaN ratings never qualify."""
    rated = ~np.isnan(rating) & (rated_games >= TITLE_BY_RATING_MIN_GAMES)
    out: list[tuple[np.ndarray, str]] = []
    for track, held, allowed in ((OPEN_TITLE_ORDER, title, None), (WOMEN_TITLE_ORDER, women_title, women)):
        held_rank = np.array([title_rank(t) if t in track else 0 for t in held.tolist()], dtype=np.int64)
        taken = np.zeros(rating.shape[0], dtype=bool)  # listed for a higher title of this track already
        for name in reversed(track):
            threshold = TITLE_THRESHOLDS[name]
            if threshold.norms:  # GM, IM, WGM, WIM need norms too: not titles by rating
                continue
            ok = rated & (rating >= threshold.rating) & (held_rank < track.index(name) + 1) & ~taken
            if allowed is not None:
                ok &= allowed  # women's titles for women only
            taken |= ok
            out.append((np.flatnonzero(ok), name))
    return out


@dataclass(frozen=True)
class TitleProgress:
    title: str
    rating: int  # the rating required (B.01 1.3 / 1.5.3)
    norms: bool  # also needs norms (GM, IM, WGM, WIM)
    reached: bool  # the rating (published or live) reaches it, with the 30 games titles by rating need


def title_progress(
    title: str | None, women_title: str | None, women: bool, rating: float | None, rated_games: int
) -> list[TitleProgress]:
    """The titles above those held in each track (women's titles for women), lowest first, up to the first
    whose rating is not reached (the next title): the rating each requires and whether ``rating`` (the best of
    the published and the live rating) reaches it (B.01 1.3 for titles by rating, with >= 30 rated games; 1.5.3
    for the norm titles, whose norms are counted apart)."""
    out = []
    for track, held in ((OPEN_TITLE_ORDER, title), (WOMEN_TITLE_ORDER, women_title)):
        if track is WOMEN_TITLE_ORDER and not women:
            continue
        for name in track:
            if title_covers(held, name):
                continue
            spec = TITLE_THRESHOLDS[name]
            enough_games = spec.norms > 0 or rated_games >= TITLE_BY_RATING_MIN_GAMES
            reached = rating is not None and rating == rating and rating >= spec.rating and enough_games
            out.append(TitleProgress(name, spec.rating, spec.norms > 0, bool(reached)))
            if not reached:
                break  # the next title of the track: the ones above it come after it
    return out
