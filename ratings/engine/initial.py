"""Initial (first) ratings of unrated players, vectorised over pooled sums.

Kinds:
- ``fide-2024`` (B.02 7.1.4 and 8.2, from 1 Mar 2024): >= 5 games against rated opponents, pooled over
  consecutive periods of at most 26 months as if one tournament; Ra includes two hypothetical opponents rated
  1800 scored as draws: Ra = (sum + 3600) / (n + 2), p = (W + 1) / (n + 2); Ru = Ra + dp(p) with p rounded to
  the whole percent (.5 up, Title Regulations analogy) and Ru rounded (.5 up, rules 9 Q3); at most 2200;
  published only if >= 1400. A first event with zero score is disregarded.
- ``fide-2022`` (previous rule, for back-rating 2014-Feb 2024): Ra = plain average of rated opponents;
  50 % -> Ru = Ra; above 50 % -> Ra + 20 per half point above 50 %; below -> Ra + dp. No cap; published if
  >= 1000 (2012-2024 floor). FIDE's online calculator and the "Rp" of FIDE tournament reports still use it.
  With ``half_point_bonus=12.5``, ``min_games=9`` and a 1-point minimum in every event it is the 2009 rule
  (FIDE news 13 Jul 2009: "the value of 0.5 point in a new player's rating calculation will stay as 12.5").
- ``performance-400``: the "algorithm of 400" (seed 002), (sum of opponents + 400 (wins - losses)) / n.
- ``normal-inverse``: seed 000 problem 8, Ra + sigma * Phi^-1(p) (exact when all opponents are equal; the
  pool keeps only sums). p = 0 or 1 are bounded to -800 / +800 like table 8.1.1.
- ``none``: no initial ratings.

Only the sums (games, sum of opponents' ratings, points) are needed, so a newcomer pool carried between
periods is three numbers per player.
"""

from __future__ import annotations

import datetime
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
from scipy.special import ndtri

from ratings.engine.expected_score import ELO_SIGMA
from ratings.engine.months import add_months
from ratings.engine.rounding import round_half_up, round_rational_half_up
from ratings.engine.tables import DP_BY_PERCENT, percent_half_up

INITIAL_RATING_KINDS = ("fide-2024", "fide-2022", "performance-400", "normal-inverse", "none")
DISREGARD_SCOPES = ("first-event", "every-event")


@dataclass(frozen=True)
class InitialRatingSpec:
    kind: str = "fide-2024"
    min_games: int = 5  # games against rated opponents
    window_months: int | None = 26  # pooled over consecutive periods totalling at most this
    hypothetical_opponents: int = 2  # fide-2024: two opponents rated 1800, scored as draws
    hypothetical_rating: float = 1800.0
    rating_cap: int | None = 2200
    publish_threshold: int | None = 1400  # published only if >= this
    half_point_bonus: float = 20.0  # fide-2022: per half point above 50 %
    min_event_score: float = 0.5  # an event scored below this is disregarded (zero score) ...
    disregard_scope: str = "first-event"  # ... if it is the first event, or in every event
    min_rated_opponents_per_event: int = 1  # 2009 Swiss rule: at least 3 rated opponents in the event
    sigma: float | None = None  # normal-inverse

    def __post_init__(self) -> None:
        if self.kind not in INITIAL_RATING_KINDS:
            raise ValueError(f"initial_rating kind {self.kind!r} is unknown; use one of {INITIAL_RATING_KINDS}")
        if self.disregard_scope not in DISREGARD_SCOPES:
            raise ValueError(f"initial_rating disregard_scope must be one of {DISREGARD_SCOPES}")
        if self.min_games < 1:
            raise ValueError("initial_rating min_games must be at least 1")
        if self.kind == "normal-inverse" and self.sigma is None:
            object.__setattr__(self, "sigma", ELO_SIGMA)

    @classmethod
    def fide_2024(cls) -> InitialRatingSpec:
        return cls()

    @classmethod
    def fide_2022(cls) -> InitialRatingSpec:
        return cls("fide-2022", hypothetical_opponents=0, rating_cap=None, publish_threshold=1000)

    @classmethod
    def fide_2009(cls) -> InitialRatingSpec:
        return cls(
            "fide-2022",
            min_games=9,
            hypothetical_opponents=0,
            rating_cap=None,
            publish_threshold=1200,
            half_point_bonus=12.5,
            min_event_score=1.0,
            disregard_scope="every-event",
            min_rated_opponents_per_event=3,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> InitialRatingSpec:
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"initial_rating: unknown keys {sorted(unknown)}")
        return cls(**data)


@dataclass
class InitialRatings:
    """Arrays, one entry per player."""

    games: np.ndarray  # real games against rated opponents
    average: np.ndarray  # Ra (with hypothetical opponents where the kind uses them)
    percent: np.ndarray  # p in whole percent as looked up (-1 where not applicable)
    dp: np.ndarray  # table 8.1.1 dp or bonus added to Ra
    unrounded: np.ndarray  # Ra + dp before rounding and cap
    rating: np.ndarray  # rounded, capped; NaN where fewer than min_games
    capped: np.ndarray  # bool: the cap applied
    enough_games: np.ndarray  # bool
    published: np.ndarray  # bool: enough games and >= publish threshold


def _is_integral(values: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(values)) and np.all(values == np.round(values)))


def _performance_400(
    s: np.ndarray, w: np.ndarray, n: np.ndarray, safe_n: np.ndarray, average: np.ndarray, exact: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The "algorithm of 400": (added to Ra, unrounded, rounded)."""
    # (sum + 400 (wins - losses)) / n; wins - losses = 2W - n
    add = 400.0 * (2.0 * w - n) / safe_n
    unrounded = average + add
    rounded = (
        round_rational_half_up(s + 400 * np.rint(2 * w - n), safe_n).astype(np.float64)
        if exact
        else round_half_up(unrounded)
    )
    return add, unrounded, rounded


def _fide_table(
    spec: InitialRatingSpec,
    s: np.ndarray,
    w: np.ndarray,
    n: np.ndarray,
    safe_n: np.ndarray,
    average: np.ndarray,
    exact: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """FIDE's table 8.1.1 (fide-2024) or its 2022 bonus variant: (percent, added to Ra, unrounded, rounded)."""
    percent = percent_half_up(w, safe_n)
    dp = DP_BY_PERCENT[np.clip(percent, 0, 100)].astype(np.float64)
    if spec.kind == "fide-2024":
        add = dp
    else:
        # fide-2022: 50 % -> Ra; above: + bonus per half point above 50 %; below: + dp
        half_points_above = np.rint(2.0 * w - n)
        add = np.where(
            half_points_above > 0,
            spec.half_point_bonus * half_points_above,
            np.where(half_points_above == 0, 0.0, dp),
        )
    unrounded = average + add
    twice_add_n = 2.0 * add * safe_n
    if exact and _is_integral(twice_add_n):
        # Ru = (2 s + 2 n add) / (2 n), rounded .5 up exactly
        rounded = round_rational_half_up(2 * s + twice_add_n, 2 * safe_n).astype(np.float64)
    else:
        rounded = round_half_up(unrounded)
    return percent, add, unrounded, rounded


def initial_ratings(
    games: np.ndarray, opponent_sum: np.ndarray, score: np.ndarray, spec: InitialRatingSpec
) -> InitialRatings:
    """Initial ratings from pooled games against rated opponents (sum of their ratings, points scored)."""
    n_real = np.asarray(games, dtype=np.int64)
    total = np.asarray(opponent_sum, dtype=np.float64)
    points = np.asarray(score, dtype=np.float64)
    shape = n_real.shape
    enough = n_real >= spec.min_games
    h = spec.hypothetical_opponents if spec.kind == "fide-2024" else 0
    n = n_real + h
    s = total + h * spec.hypothetical_rating
    w = points + 0.5 * h
    safe_n = np.maximum(n, 1)
    average = np.where(n > 0, s / safe_n, np.nan)
    percent = np.full(shape, -1, dtype=np.int64)
    add = np.zeros(shape, dtype=np.float64)
    exact = _is_integral(s)
    if spec.kind == "none":
        enough = np.zeros(shape, dtype=bool)
        rounded = np.full(shape, np.nan)
        unrounded = np.full(shape, np.nan)
    elif spec.kind == "performance-400":
        add, unrounded, rounded = _performance_400(s, w, n, safe_n, average, exact)
    elif spec.kind in ("fide-2024", "fide-2022"):
        percent, add, unrounded, rounded = _fide_table(spec, s, w, n, safe_n, average, exact)
    else:  # normal-inverse
        p = w / safe_n
        with np.errstate(divide="ignore"):
            add = np.clip(spec.sigma * ndtri(p), -800.0, 800.0)
        unrounded = average + add
        rounded = round_half_up(unrounded)
    capped = np.zeros(shape, dtype=bool)
    if spec.rating_cap is not None:
        capped = rounded > spec.rating_cap
        rounded = np.where(capped, float(spec.rating_cap), rounded)
    rating = np.where(enough, rounded, np.nan)
    published = enough.copy()
    if spec.publish_threshold is not None:
        with np.errstate(invalid="ignore"):
            published &= rating >= spec.publish_threshold
    return InitialRatings(
        games=n_real,
        average=average,
        percent=percent,
        dp=add,
        unrounded=unrounded,
        rating=rating,
        capped=capped & enough,
        enough_games=enough,
        published=published,
    )


def pool_window_start(list_date: datetime.date, spec: InitialRatingSpec) -> datetime.date | None:
    """Games rated on lists dated after this date may stay in the newcomer pool for the list of
    ``list_date`` (periods totalling at most ``window_months``). None: no window."""
    if spec.window_months is None:
        return None
    return add_months(list_date, -spec.window_months)
