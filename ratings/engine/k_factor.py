"""K (development coefficient) schemes, vectorised.

Schemes:
- ``fide-2024`` (B.02 8.3.3, 2024): 40 for a player new to the list until 30 games; 40 to the end of the year
  of the 18th birthday while the rating stays under 2300; 10 once a published rating reached 2400 (for good);
  else 20. Precedence (rules 1.5, from FIDE's published K column): ever >= 2400 -> 10; junior never >= 2300
  -> 40; fewer than 30 games -> 40; else 20. K is the one published on the previous list; status changes take
  effect on the next list (:func:`next_k_factor`).
- ``fide-2014`` (1 Jul 2014 - 2021): same values, juniors "until their 18th birthday" (with only a birth year
  known: the year of the list minus the birth year <= 17).
- ``fide-2009`` (1 Jul 2009 bimonthly era): 25 until 30 games, 15 below 2400, 10 once a published rating
  reached 2400 and at least 30 games were played (seed 002; FIDE news of 13 Jul 2009: "the K values stay as
  they are"), K taken from the rating at the start of the tournament (rules 1.3/1.5, S10). (K = 30 for new
  players applied from 2011 to June 2014: set ``k_new=30`` in a custom preset.)
- ``constant``: one K for everyone (16, 32, ...).
- ``uscf-classic``: 32 below 2100, 24 for 2100-2399, 16 from 2400 (pre-2001 US Chess; seed 002).
- ``uscf-effective-games``: K = 800 / (N' + m), N' effective games, m games in the event (seed 002,
  rules 4.5).

A list published elsewhere (FIDE's, imported) gives each player's rating, the games of its period and K,
not the status K was derived from: :func:`k_status_from_published_k` infers that status back from K.

Then B.02 8.3.3: if K x n > 700 for the n games of the period, K becomes the largest integer with
K x n <= 700.
"""

from __future__ import annotations

import datetime
from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple, Protocol

import numpy as np

from ratings.engine.uscf import classic_k_factor, effective_games_k_factor

K_SCHEMES = ("fide-2024", "fide-2014", "fide-2009", "constant", "uscf-classic", "uscf-effective-games")
# Schemes whose K is the value published on the previous list; the others derive K per event.
PUBLISHED_K_SCHEMES = ("fide-2024", "fide-2014")


@dataclass(frozen=True)
class KFactorSpec:
    scheme: str = "fide-2024"
    k: float | None = None  # constant
    k_new: float = 40.0  # until new_player_games rated games
    new_player_games: int = 30
    k_junior: float | None = 40.0  # None: no junior rule
    junior_last_age: int = 18  # junior while list year - birth year <= this
    junior_rating_limit: int = 2300  # ... and the rating stays below this (never reached it)
    k_standard: float = 20.0
    k_high: float = 10.0
    high_rating: int = 2400  # once a published rating reached this
    high_needs_games: bool = False  # 2009 text: ... and at least new_player_games games
    effective_games_formula: str = "2013"  # uscf-effective-games
    bonus_threshold: float | None = None  # uscf-effective-games: B of the US Chess bonus (None: no bonus)

    def __post_init__(self) -> None:
        if self.scheme not in K_SCHEMES:
            raise ValueError(f"k_factor scheme {self.scheme!r} is unknown; use one of {K_SCHEMES}")
        if self.scheme == "constant" and (self.k is None or not self.k > 0):
            raise ValueError("k_factor scheme 'constant' needs k > 0")
        if self.scheme != "constant" and self.k is not None:
            raise ValueError(f"k_factor scheme {self.scheme!r} takes no k (use scheme 'constant')")
        if self.bonus_threshold is not None and self.scheme != "uscf-effective-games":
            raise ValueError("k_factor bonus_threshold applies to scheme 'uscf-effective-games' only")

    @classmethod
    def fide_2024(cls) -> KFactorSpec:
        return cls("fide-2024")

    @classmethod
    def fide_2014(cls) -> KFactorSpec:
        return cls("fide-2014", junior_last_age=17)

    @classmethod
    def fide_2009(cls) -> KFactorSpec:
        return cls("fide-2009", k_new=25.0, k_junior=None, k_standard=15.0, k_high=10.0, high_needs_games=True)

    @classmethod
    def constant(cls, k: float) -> KFactorSpec:
        return cls("constant", k=float(k))

    @classmethod
    def uscf_classic(cls) -> KFactorSpec:
        return cls("uscf-classic", k_junior=None)

    @classmethod
    def uscf_effective_games(cls, formula: str = "2013", bonus_threshold: float | None = None) -> KFactorSpec:
        return cls(
            "uscf-effective-games",
            k_junior=None,
            effective_games_formula=formula,
            bonus_threshold=bonus_threshold,
        )

    @property
    def uses_published_k(self) -> bool:
        """True: the K published on the previous list applies; False: K is derived per event."""
        return self.scheme in PUBLISHED_K_SCHEMES

    @property
    def needs_games_in_event(self) -> bool:
        return self.scheme == "uscf-effective-games"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KFactorSpec:
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"k_factor: unknown keys {sorted(unknown)}")
        return cls(**data)


def k_factor_for(
    spec: KFactorSpec,
    rating: np.ndarray | float,
    rated_games_total: np.ndarray | int,
    ever_2400: np.ndarray | bool,
    birth_year: np.ndarray | int,
    list_date: datetime.date,
    *,
    ever_2300: np.ndarray | bool | None = None,
    games_in_event: np.ndarray | int | None = None,
) -> np.ndarray:
    """K of each player given their status (NaN where the rating is NaN, i.e. unrated).

    ``rating`` is the rating the scheme looks at: the new list rating for :func:`next_k_factor`, the rating
    at the start of the event for per-event schemes. ``birth_year`` 0 means unknown (never junior).
    ``ever_2300`` (a published rating ever >= 2300) defaults to ``rating >= 2300``.
    """
    r = np.asarray(rating, dtype=np.float64)
    shape = r.shape
    games = np.broadcast_to(np.asarray(rated_games_total, dtype=np.int64), shape)
    high_seen = np.broadcast_to(np.asarray(ever_2400, dtype=bool), shape)
    with np.errstate(invalid="ignore"):
        reached_high = high_seen | (r >= spec.high_rating)
        if ever_2300 is None:
            reached_junior_limit = r >= spec.junior_rating_limit
        else:
            reached_junior_limit = np.broadcast_to(np.asarray(ever_2300, dtype=bool), shape) | (
                r >= spec.junior_rating_limit
            )
    if spec.scheme == "constant":
        if spec.k is None:
            raise ValueError("K scheme 'constant' needs k")
        k = np.full(shape, float(spec.k))
    elif spec.scheme == "uscf-classic":
        k = classic_k_factor(r)
    elif spec.scheme == "uscf-effective-games":
        if games_in_event is None:
            return np.full(shape, np.nan)
        k = effective_games_k_factor(r, games, games_in_event, spec.effective_games_formula)
    else:
        new = games < spec.new_player_games
        high = reached_high & (~new if spec.high_needs_games else True)
        conditions = [high]
        choices = [spec.k_high]
        if spec.k_junior is not None:
            born = np.broadcast_to(np.asarray(birth_year, dtype=np.int64), shape)
            junior = (born > 0) & (list_date.year - born <= spec.junior_last_age) & ~reached_junior_limit
            conditions.append(junior)
            choices.append(spec.k_junior)
        conditions.append(new)
        choices.append(spec.k_new)
        # rules 1.5 precedence: 2400 -> 10; junior -> 40; new -> 40; else 20
        k = np.select(conditions, choices, spec.k_standard).astype(np.float64)
    return np.where(np.isnan(r), np.nan, k)


def cap_k_by_games(k_factor: np.ndarray | float, games: np.ndarray | int, cap: int | None = 700) -> np.ndarray:
    """B.02 8.3.3: if K x n > 700, K = the largest integer with K x n <= 700 (= floor(700 / n))."""
    k = np.asarray(k_factor, dtype=np.float64)
    if cap is None:
        return k.copy()
    n = np.asarray(games, dtype=np.int64)
    limit = np.floor_divide(cap, np.maximum(n, 1)).astype(np.float64)
    return np.where((n > 0) & (k * n > cap), limit, k)


class HasKFactorSpec(Protocol):
    """What :func:`next_k_factor` reads of a rules preset (ratings.engine.presets.RulesPreset): its K scheme.
    A protocol, not the preset class, so that this module does not import presets (which imports it)."""

    @property
    def k_factor(self) -> KFactorSpec: ...


def next_k_factor(
    rating: np.ndarray,
    rated_games_total: np.ndarray | int,
    ever_2400: np.ndarray | bool,
    birth_year: np.ndarray | int,
    list_date: datetime.date,
    rules: HasKFactorSpec | KFactorSpec,
    *,
    ever_2300: np.ndarray | bool | None = None,
) -> np.ndarray:
    """K to publish on the list dated ``list_date`` (status after the period: new rating, games so far,
    ever >= 2400 including the new rating). Juniors drop from 40 to 20 on the January list after the year
    of their 18th birthday (rules 1.5). ``rules`` is a RulesPreset or a KFactorSpec."""
    spec = rules if isinstance(rules, KFactorSpec) else rules.k_factor
    if spec.scheme == "uscf-effective-games":
        # no list K: it depends on the games of each event
        return np.full(np.shape(rating), np.nan)
    return k_factor_for(spec, rating, rated_games_total, ever_2400, birth_year, list_date, ever_2300=ever_2300)


class KStatus(NamedTuple):
    """The K inputs a player's state keeps (``PlayerRating``: rated games so far, ever >= 2400, ever >= 2300)."""

    rated_games_total: np.ndarray  # int64
    ever_2400: np.ndarray  # bool
    ever_2300: np.ndarray  # bool


def k_status_from_published_k(
    spec: KFactorSpec,
    rating: np.ndarray | int,
    games: np.ndarray | int,
    k_factor: np.ndarray | int,
) -> KStatus:
    """The K inputs a published list implies but does not print (an imported FIDE list: rating, the games of
    its period and K only), under a published-K scheme (``spec``: fide-2024's 40/20/10). ``k_factor`` 0 means
    none published. Arrays of one length, or scalars (0-d results).

    - rated games so far: B.02 8.3.3 gives K 40 "until he has completed events with at least 30 games", so a
      K of 20 or 10 means at least 30 (``max(30, games)``); otherwise (K 40 or none) the period's games.
    - ever >= 2400: K 10 is given once a published rating "has reached 2400", and stays: K 10 or rating >= 2400.
    - ever >= 2300 (the junior K 40 stops at 2300): ever >= 2400 or rating >= 2300.
    """
    if not spec.uses_published_k:
        raise ValueError(f"k_factor scheme {spec.scheme!r} publishes no K to infer a status from")
    r = np.asarray(rating, dtype=np.int64)
    n = np.asarray(games, dtype=np.int64)
    k = np.asarray(k_factor, dtype=np.int64)
    past_new = (k == spec.k_standard) | (k == spec.k_high)  # B.02 8.3.3: K 20/10 only after 30 rated games
    ever_high = (k == spec.k_high) | (r >= spec.high_rating)  # B.02 8.3.3: K 10 once 2400 was reached, for good
    return KStatus(
        rated_games_total=np.where(past_new, np.maximum(spec.new_player_games, n), n),
        ever_2400=ever_high,
        ever_2300=ever_high | (r >= spec.junior_rating_limit),
    )
