"""Named, dated rules presets with stable slugs; each serialises to JSON exactly so that a rating list can
store the rules it was computed with and be recomputed later.

- fide-2024: FIDE B.02 2024 as amended 1 Oct 2025: table 8.1.2, 400-point rule for players below 2650
  (standard list), K 40/20/10 + juniors, K x n <= 700, rounded once per period, 2024 initial rating,
  floor 1400.
- fide-2024-03: the same as in force 1 Mar 2024 - 30 Sep 2025 (plain 400-point rule).
- fide-2014: 1 Jul 2014 rules: K 40/20/10, juniors to the 18th birthday, previous initial-rating rule,
  floor 1000.
- fide-2009: 1 Jul 2009 bimonthly era: K 25/15/10 from the rating at the tournament's start, 400-point
  rule, 2009 initial rating (9 games, 12.5 per half point), floor 1200.
- elo-normal: seed 000, normal curve sigma = 200 sqrt 2 with FIDE's administrative rules.
- elo-normal-draw-margin: seed 000 eq. 4 with eps = 20.
- elo-logistic: seed 002, logistic curve, K = 32 for everyone, no cap.
- elo-logistic-k16: the same with K = 16.
- uscf-classic: pre-2001 US Chess: logistic, K 32/24/16, algorithm-of-400 provisional rating.
- uscf-effective-games: US Chess standard formula: logistic, K = 800/(N' + m), bonus B = 10, unrounded.
- glicko2: Glickman's Glicko-2 (tau 0.5, unrated 1500 / RD 350 / volatility 0.06); a preset with ``glicko2``
  set rates through ratings.engine.glicko2, not rate_period (its Elo fields are unused).

Every FIDE preset keeps rounding 'per-period' (B.02 8.3.4, rules 9 Q1): the one published counter-example
(case P4 of rules 6.2, 2400 -> 2406) is reproduced with ``rounding='per-event'``.

Slugs never change; a changed rule gets a new slug with its own ``effective_from``.
"""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass, field
from typing import Any

from ratings.engine.adjustments import AdjustmentSpec
from ratings.engine.difference_cap import DifferenceCapSpec
from ratings.engine.expected_score import ExpectedScoreSpec
from ratings.engine.glicko2 import Glicko2Spec
from ratings.engine.initial import InitialRatingSpec
from ratings.engine.k_factor import KFactorSpec
from ratings.engine.messages import gettext_noop

ROUNDING_MODES = ("per-period", "per-event", "none")
PRESET_JSON_SCHEMA = 1


@dataclass(frozen=True)
class RulesPreset:
    slug: str
    name: str
    effective_from: datetime.date
    expected_score: ExpectedScoreSpec = field(default_factory=ExpectedScoreSpec)
    difference_cap: DifferenceCapSpec = field(default_factory=DifferenceCapSpec)
    k_factor: KFactorSpec = field(default_factory=KFactorSpec)
    k_times_n_cap: int | None = 700
    rounding: str = "per-period"
    initial_rating: InitialRatingSpec = field(default_factory=InitialRatingSpec)
    rating_floor: int | None = 1400  # a list rating below this is shown as unrated on the next list
    inactivity_months: int | None = 12
    # Rapid/blitz (from 1 Dec 2024): a game between players >= 600 apart is not rated if either is rated
    # above 2600 (rules 1.2, single source S2). (gap, above) or None.
    rapid_blitz_gap_exclusion: tuple[int, int] | None = None
    family: str = ""  # presets of one family replace each other over time ('fide')
    description: str = ""
    glicko2: Glicko2Spec | None = None  # set: a Glicko-2 system (ratings.engine.glicko2), not Elo
    # A one-off adjustment applied by the list these rules compute (ratings.engine.adjustments); attached by
    # the publication for the list date it belongs to, and frozen with the list's rules.
    adjustment: AdjustmentSpec | None = None

    @property
    def system(self) -> str:
        """'glicko2' or 'elo': which engine rates under this preset."""
        return "glicko2" if self.glicko2 is not None else "elo"

    def __post_init__(self) -> None:
        if not self.slug or self.slug != self.slug.strip().lower() or " " in self.slug:
            raise ValueError(f"preset slug {self.slug!r} must be lower-case without spaces")
        if self.rounding not in ROUNDING_MODES:
            raise ValueError(f"preset {self.slug}: rounding {self.rounding!r} is unknown; use one of {ROUNDING_MODES}")
        if self.k_times_n_cap is not None and self.k_times_n_cap <= 0:
            raise ValueError(f"preset {self.slug}: k_times_n_cap must be positive")
        if self.rapid_blitz_gap_exclusion is not None:
            object.__setattr__(self, "rapid_blitz_gap_exclusion", tuple(self.rapid_blitz_gap_exclusion))

    def replace(self, **changes: Any) -> RulesPreset:
        """A copy with some fields changed (e.g. a federation's variant under its own slug)."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema": PRESET_JSON_SCHEMA,
            "slug": self.slug,
            "name": self.name,
            "effective_from": self.effective_from.isoformat(),
            "expected_score": self.expected_score.to_json(),
            "difference_cap": self.difference_cap.to_json(),
            "k_factor": self.k_factor.to_json(),
            "k_times_n_cap": self.k_times_n_cap,
            "rounding": self.rounding,
            "initial_rating": self.initial_rating.to_json(),
            "rating_floor": self.rating_floor,
            "inactivity_months": self.inactivity_months,
            "rapid_blitz_gap_exclusion": (
                list(self.rapid_blitz_gap_exclusion) if self.rapid_blitz_gap_exclusion is not None else None
            ),
            "family": self.family,
            "description": self.description,
        }
        if self.glicko2 is not None:  # only then: the JSON of every Elo preset stays as it was
            data["glicko2"] = self.glicko2.to_json()
        if self.adjustment is not None:
            data["adjustment"] = self.adjustment.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RulesPreset:
        known = {
            "schema",
            "slug",
            "name",
            "effective_from",
            "expected_score",
            "difference_cap",
            "k_factor",
            "k_times_n_cap",
            "rounding",
            "initial_rating",
            "rating_floor",
            "inactivity_months",
            "rapid_blitz_gap_exclusion",
            "family",
            "description",
            "glicko2",
            "adjustment",
        }
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"rules preset JSON: unknown keys {sorted(unknown)}")
        schema = data.get("schema", PRESET_JSON_SCHEMA)
        if schema != PRESET_JSON_SCHEMA:
            raise ValueError(f"rules preset JSON: schema {schema} is not supported (expected {PRESET_JSON_SCHEMA})")
        for key in ("slug", "name", "effective_from"):
            if key not in data:
                raise ValueError(f"rules preset JSON: missing {key!r}")
        defaults = cls(slug="x", name="x", effective_from=datetime.date(2000, 1, 1))
        gap = data.get("rapid_blitz_gap_exclusion", defaults.rapid_blitz_gap_exclusion)
        return cls(
            slug=data["slug"],
            name=data["name"],
            effective_from=datetime.date.fromisoformat(data["effective_from"]),
            expected_score=ExpectedScoreSpec.from_json(data["expected_score"])
            if "expected_score" in data
            else defaults.expected_score,
            difference_cap=DifferenceCapSpec.from_json(data["difference_cap"])
            if "difference_cap" in data
            else defaults.difference_cap,
            k_factor=KFactorSpec.from_json(data["k_factor"]) if "k_factor" in data else defaults.k_factor,
            k_times_n_cap=data.get("k_times_n_cap", defaults.k_times_n_cap),
            rounding=data.get("rounding", defaults.rounding),
            initial_rating=InitialRatingSpec.from_json(data["initial_rating"])
            if "initial_rating" in data
            else defaults.initial_rating,
            rating_floor=data.get("rating_floor", defaults.rating_floor),
            inactivity_months=data.get("inactivity_months", defaults.inactivity_months),
            rapid_blitz_gap_exclusion=tuple(gap) if gap is not None else None,
            family=data.get("family", ""),
            description=data.get("description", ""),
            glicko2=Glicko2Spec.from_json(data["glicko2"]) if data.get("glicko2") is not None else None,
            adjustment=AdjustmentSpec.from_json(data["adjustment"]) if data.get("adjustment") is not None else None,
        )


_FIDE_2024 = RulesPreset(
    slug="fide-2024",
    name=gettext_noop("FIDE B.02 2024 (as amended 1 Oct 2025)"),
    effective_from=datetime.date(2025, 10, 1),
    expected_score=ExpectedScoreSpec("fide-table"),
    difference_cap=DifferenceCapSpec.below(400, 2650, ("standard",)),
    k_factor=KFactorSpec.fide_2024(),
    k_times_n_cap=700,
    rounding="per-period",
    initial_rating=InitialRatingSpec.fide_2024(),
    rating_floor=1400,
    inactivity_months=12,
    rapid_blitz_gap_exclusion=(600, 2600),
    family="fide",
    description="Table 8.1.2; 400-point rule only for players rated below 2650 (standard list; rapid/blitz "
    "keep the plain cap, rules 1.10 / 9 Q5); K 40/20/10 with juniors to the end of the year of "
    "their 18th birthday, K x n <= 700; period change rounded once, .5 away from zero; initial "
    "rating with two hypothetical 1800 draws, >= 5 games in 26 months, max 2200, published if "
    ">= 1400; below 1400 -> unrated; inactive after 12 months.",
)

# Each preset below that restates another is built from it: only the fields that differ are written.

# fide-2024 before the 1 Oct 2025 amendment (the plain 400-point rule); the older FIDE presets and the
# normal-curve models keep that plain rule and no rapid/blitz exclusion too, so they start from this one.
_FIDE_2024_03 = _FIDE_2024.replace(
    slug="fide-2024-03",
    name=gettext_noop("FIDE B.02 2024 (1 Mar 2024 - 30 Sep 2025)"),
    effective_from=datetime.date(2024, 3, 1),
    difference_cap=DifferenceCapSpec.fixed(400),
    rapid_blitz_gap_exclusion=None,
    description="As fide-2024 but with the plain 400-point rule for everyone (no 2650 exemption); the "
    "rapid/blitz 600-point exclusion of 1 Dec 2024 is left to the caller's game selection.",
)

_FIDE_2014 = _FIDE_2024_03.replace(
    slug="fide-2014",
    name=gettext_noop("FIDE rating regulations 1 Jul 2014"),
    effective_from=datetime.date(2014, 7, 1),
    k_factor=KFactorSpec.fide_2014(),
    initial_rating=InitialRatingSpec.fide_2022(),
    rating_floor=1000,
    description="K 40 (new until 30 games; juniors until their 18th birthday under 2300), 20, 10 once "
    "a published rating reached 2400; plain 400-point rule; initial rating Ra + 20 per half "
    "point above 50 % (Ra + dp below), >= 5 games in 26 months; floor 1000.",
)

_FIDE_2009 = _FIDE_2024_03.replace(
    slug="fide-2009",
    name=gettext_noop("FIDE rating regulations 1 Jul 2009 (bimonthly lists)"),
    effective_from=datetime.date(2009, 7, 1),
    k_factor=KFactorSpec.fide_2009(),
    initial_rating=InitialRatingSpec.fide_2009(),
    rating_floor=1200,
    description="Bimonthly lists (closing date 7 days before the list date); 400-point rule replaces "
    "350; K 25 until 30 games, 15 below 2400, 10 once a published rating reached 2400 (with "
    ">= 30 games), from the rating at the tournament's start; K x n <= 700 per period "
    "(rules 1.3 note); initial rating needs 9 games, >= 1 point and >= 3 rated opponents "
    "per event, Ra + 12.5 per half point above 50 %; floor 1200.",
)

_ELO_NORMAL = _FIDE_2024_03.replace(
    slug="elo-normal",
    name=gettext_noop("Elo normal curve (seed 000)"),
    effective_from=datetime.date(1970, 1, 1),
    expected_score=ExpectedScoreSpec("normal"),
    initial_rating=InitialRatingSpec("normal-inverse", hypothetical_opponents=0),
    family="elo",
    description="Expected score Phi(D / (200 sqrt 2)) (seed 000 eq. 2) instead of table 8.1.2; initial "
    "rating Ra + sigma Phi^-1(p) (seed 000 problem 8); FIDE's K, 400-point cap, rounding, "
    "floor and inactivity otherwise.",
)

_ELO_NORMAL_DRAW_MARGIN = _ELO_NORMAL.replace(
    slug="elo-normal-draw-margin",
    name=gettext_noop("Elo normal curve with a draw margin eps = 20 (seed 000 eq. 4)"),
    expected_score=ExpectedScoreSpec("normal-draw-margin", eps=20.0),
    description="As elo-normal with E = (Phi((D - eps)/sigma) + Phi((D + eps)/sigma)) / 2, eps = 20.",
)

_ELO_LOGISTIC = RulesPreset(
    slug="elo-logistic",
    name=gettext_noop("Elo logistic curve, K = 32 (seed 002)"),
    effective_from=datetime.date(1970, 1, 1),
    expected_score=ExpectedScoreSpec("logistic"),
    difference_cap=DifferenceCapSpec.none(),
    k_factor=KFactorSpec.constant(32),
    k_times_n_cap=None,
    rounding="per-event",
    initial_rating=InitialRatingSpec(
        "performance-400", hypothetical_opponents=0, rating_cap=None, publish_threshold=None
    ),
    rating_floor=None,
    inactivity_months=None,
    family="elo",
    description="E = 1 / (1 + 10^(-D/400)); R' = R + 32 (S - E) after each event, rounded; initial "
    "rating by the algorithm of 400 after 5 games.",
)

_ELO_LOGISTIC_K16 = _ELO_LOGISTIC.replace(
    slug="elo-logistic-k16",
    name=gettext_noop("Elo logistic curve, K = 16"),
    k_factor=KFactorSpec.constant(16),
    description="As elo-logistic with K = 16 for everyone.",
)

# US Chess: the logistic curve without FIDE's cap, floor or inactivity, as elo-logistic.
_USCF_CLASSIC = _ELO_LOGISTIC.replace(
    slug="uscf-classic",
    name=gettext_noop("US Chess classic (before 2001)"),
    effective_from=datetime.date(1960, 1, 1),
    k_factor=KFactorSpec.uscf_classic(),
    initial_rating=InitialRatingSpec(
        "performance-400", min_games=4, hypothetical_opponents=0, rating_cap=None, publish_threshold=100
    ),
    family="uscf",
    description="Logistic curve; K 32 below 2100, 24 for 2100-2399, 16 from 2400 (by the rating at the "
    "event's start); provisional ratings by the algorithm of 400; rounded after each event. "
    "US Chess floors are applied by the caller (inactivity.uscf_rating_floor).",
)

_USCF_EFFECTIVE_GAMES = _USCF_CLASSIC.replace(
    slug="uscf-effective-games",
    name=gettext_noop("US Chess standard formula (effective games, bonus B = 10)"),
    effective_from=datetime.date(2025, 1, 1),
    k_factor=KFactorSpec.uscf_effective_games("2013", bonus_threshold=10.0),
    rounding="none",
    description="We logistic; K = 800 / (N' + m) with N' from the 2013 formula and m the games of the "
    "event; bonus max(0, K(S - E) - 10 sqrt(max(m, 4))) for m >= 3; ratings kept as floats. "
    "The special formula for N <= 8 is not modelled.",
)

# Glicko-2 rates through ratings.engine.glicko2; its Elo fields, unused, are elo-logistic's.
_GLICKO2 = _ELO_LOGISTIC.replace(
    slug="glicko2",
    name=gettext_noop("Glicko-2 (Glickman 2013, tau = 0.5)"),
    effective_from=datetime.date(2013, 11, 30),
    rounding="none",
    family="glicko",
    description="Glickman, 'Example of the Glicko-2 system': each list is one rating period, games "
    "simultaneous; rating, deviation (RD) and volatility per player; unrated players start at 1500 / "
    "350 / 0.06; tau = 0.5; volatility by the Illinois iteration (epsilon 0.000001); no rounding, "
    "no floor. The Elo fields of this preset are not used.",
    glicko2=Glicko2Spec(),
)

PRESETS: dict[str, RulesPreset] = {}


def _register(*presets: RulesPreset) -> None:
    for preset in presets:
        if preset.slug in PRESETS:
            raise ValueError(f"duplicate preset slug {preset.slug}")
        PRESETS[preset.slug] = preset


_register(
    _FIDE_2024,
    _FIDE_2024_03,
    _FIDE_2014,
    _FIDE_2009,
    _ELO_NORMAL,
    _ELO_NORMAL_DRAW_MARGIN,
    _ELO_LOGISTIC,
    _ELO_LOGISTIC_K16,
    _USCF_CLASSIC,
    _USCF_EFFECTIVE_GAMES,
    _GLICKO2,
)


def get_preset(slug: str) -> RulesPreset:
    """The preset with this slug; KeyError naming the known slugs otherwise."""
    try:
        return PRESETS[slug]
    except KeyError:
        raise KeyError(f"unknown rules preset {slug!r}; known presets: {', '.join(sorted(PRESETS))}") from None


def preset_in_force(day: datetime.date, family: str = "fide") -> RulesPreset:
    """The preset of ``family`` whose effective_from is the latest on or before ``day``."""
    candidates = [p for p in PRESETS.values() if p.family == family and p.effective_from <= day]
    if not candidates:
        raise KeyError(f"no {family!r} rules preset in force on {day.isoformat()}")
    return max(candidates, key=lambda p: p.effective_from)
