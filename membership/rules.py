"""PURE membership and rating-fee rules (issue 35): dates, integers and Decimals in, values out.

No Django, no app, no clock of its own (.importlinter's "membership rules" contract). ``membership.services``
reads the rows, builds these values and persists what they decide. Facts and sources:
reference/leagues-membership.md §5 (membership) and §6 (rating fees).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def money(value: Decimal | int | str) -> Decimal:
    """An amount rounded to the cent, half up (amounts are never negative before rebates)."""
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


# --- Seasons and memberships (§5) --------------------------------------------------------------------------


@dataclass(frozen=True)
class Season:
    """A federation's membership season, e.g. 1 September – 31 August (ECF, ICU: §5)."""

    start_month: int = 9
    start_day: int = 1
    # "membership taken by 30 June is backdated to 1 September" (ECF, §5): the last day (month, day) of the
    # season on which a new membership still counts from the season's start; None: never backdated.
    backdate_until: tuple[int, int] | None = None

    def start_of(self, day: datetime.date) -> datetime.date:
        """The first day of the season ``day`` falls in."""
        start = datetime.date(day.year, self.start_month, self.start_day)
        return start if start <= day else datetime.date(day.year - 1, self.start_month, self.start_day)

    def end_of(self, day: datetime.date) -> datetime.date:
        start = self.start_of(day)
        return datetime.date(start.year + 1, self.start_month, self.start_day) - datetime.timedelta(days=1)

    def effective_start(self, start: datetime.date) -> datetime.date:
        """When a membership taken on ``start`` counts from: the season's start if it was taken on or before
        the backdating day of that season (§5, ECF), otherwise its own start."""
        if self.backdate_until is None:
            return start
        season_start = self.start_of(start)
        month, day = self.backdate_until
        cutoff = datetime.date(season_start.year, month, day)
        if cutoff < season_start:  # a day-month before the season's start month falls in the next calendar year
            cutoff = datetime.date(season_start.year + 1, month, day)
        return season_start if start <= cutoff else start


def age_at(birth_year: int | None, day: datetime.date) -> int | None:
    """A player's age at ``day`` by year of birth (the registry publishes the year only; DESIGN.md Domain)."""
    return None if birth_year is None else day.year - birth_year


@dataclass(frozen=True)
class Interval:
    """A membership's dates as the check uses them: effective start (backdating applied), end (None: life)."""

    start: datetime.date
    end: datetime.date | None

    def covers(self, day: datetime.date) -> bool:
        return self.start <= day and (self.end is None or day <= self.end)


def is_member(intervals: Iterable[Interval], day: datetime.date) -> bool:
    """Membership is a dated interval per player, checked at each game's date (§6, last paragraph)."""
    return any(interval.covers(day) for interval in intervals)


# --- Membership policies (issue 35) ------------------------------------------------------------------------

POLICY_NONE = "none"
POLICY_MEMBERS_ONLY = "members_only"
POLICY_NON_MEMBER_FEE = "non_member_fee"
POLICY_TOURNAMENT_MEMBERSHIP = "tournament_membership"

ACTION_REFUSE = "refuse"
ACTION_HOLD = "hold"

BASIS_RESULT = "result"
BASIS_SEASON = "season"
BASIS_EVENT = "event"


@dataclass(frozen=True)
class Treatment:
    """What a policy does with one non-member of an event: ``refused`` (their games are not rated), ``held``
    (the event waits), ``fee`` (an amount for a quantity), ``tournament_membership`` (sold at submission for
    ``amount``), or ``none``."""

    action: str
    quantity: int = 0
    unit_price: Decimal = ZERO
    amount: Decimal = ZERO
    rule: str = ""


@dataclass(frozen=True)
class NonMember:
    """A player of an event without a membership at the date of at least one rated game."""

    player_id: int
    age: int | None
    results: int  # rated games played while not a member
    charged_this_season: bool = False  # a season fee already charged in an earlier event of the season


def non_member_treatment(
    kind: str,
    *,
    action: str = ACTION_REFUSE,
    basis: str = BASIS_RESULT,
    fee: Decimal | None = None,
    non_member: NonMember,
) -> Treatment:
    """The policy ``kind`` applied to one non-member; ``fee`` is the unit price the fee schedule (non-member
    lines) or the tournament membership category gives for the player's age."""
    if kind == POLICY_MEMBERS_ONLY:  # ICU from 1 Feb 2015, US Chess (§5)
        return Treatment("refused" if action == ACTION_REFUSE else "held", rule="members only")
    if kind == POLICY_TOURNAMENT_MEMBERSHIP:  # US Chess, CFC (§5)
        price = money(fee or 0)
        return Treatment("tournament_membership", 1, price, price, "tournament membership sold at submission")
    if kind == POLICY_NON_MEMBER_FEE:  # ECF game fee, pay to play (§5)
        if basis == BASIS_RESULT:
            quantity = non_member.results
        elif basis == BASIS_SEASON:
            quantity = 0 if non_member.charged_this_season else 1
        else:
            quantity = 1
        unit = money(fee or 0)
        return Treatment("fee", quantity, unit, money(unit * quantity), f"non-member fee per {basis}")
    return Treatment("none")


# --- Rating fees (§6) ---------------------------------------------------------------------------------------

PER_PLAYER = "per_player"  # per player per event (FIDE Swiss: €1)
PER_PLAYER_BAND = "per_player_band"  # per player by the event's average rating band (FIDE round robins)
PER_GAME = "per_game"  # per ratable game, with a minimum (US Chess online, ACF)
PER_NON_MEMBER_RESULT = "per_non_member_result"  # ECF 2015–17
PER_NON_MEMBER_SEASON = "per_non_member_season"  # ECF game fee
PER_NON_MEMBER_EVENT = "per_non_member_event"  # ECF congress "pay to play"
WAIVER = "waiver"  # FIDE rapid and blitz, waived through 2026
CAP = "cap"  # the most an event is charged
REBATE = "rebate"  # a share of the charges given back (percent)

CHARGES = (PER_PLAYER, PER_PLAYER_BAND, PER_GAME, PER_NON_MEMBER_RESULT, PER_NON_MEMBER_SEASON, PER_NON_MEMBER_EVENT)
NON_MEMBER_BASIS = {
    BASIS_RESULT: PER_NON_MEMBER_RESULT,
    BASIS_SEASON: PER_NON_MEMBER_SEASON,
    BASIS_EVENT: PER_NON_MEMBER_EVENT,
}


@dataclass(frozen=True)
class FeeRule:
    """One line of a fee schedule. Empty ``rating_types`` / ``event_kinds``: every one. Bands and ages are
    ``min`` inclusive, ``max`` exclusive for bands and inclusive for ages (as federations write them)."""

    kind: str
    description: str
    rule: str = ""
    amount: Decimal = ZERO
    minimum: Decimal | None = None
    band_min: int | None = None
    band_max: int | None = None
    min_age: int | None = None
    max_age: int | None = None
    rating_types: frozenset[str] = field(default_factory=frozenset)
    event_kinds: frozenset[str] = field(default_factory=frozenset)
    valid_from: datetime.date | None = None
    valid_to: datetime.date | None = None
    percent: Decimal | None = None

    def applies(self, rating_type: str, event_kind: str, day: datetime.date) -> bool:
        return (
            (not self.rating_types or rating_type in self.rating_types)
            and (not self.event_kinds or event_kind in self.event_kinds)
            and (self.valid_from is None or self.valid_from <= day)
            and (self.valid_to is None or day <= self.valid_to)
        )

    def in_band(self, rating: int | None) -> bool:
        if rating is None:
            return self.band_min is None
        return (self.band_min is None or rating >= self.band_min) and (self.band_max is None or rating < self.band_max)

    def for_age(self, age: int | None) -> bool:
        if age is None:
            return self.max_age is None  # an unknown age pays the adult price (no upper age bound)
        return (self.min_age is None or age >= self.min_age) and (self.max_age is None or age <= self.max_age)


@dataclass(frozen=True)
class EventFacts:
    """What a fee schedule charges on: the event's kind and date, its players and rated games, the average
    rating of its rated players, and its non-members (with their age at the season's start)."""

    rating_type: str
    event_kind: str
    day: datetime.date
    players: int
    rated_games: int
    average_rating: int | None = None
    non_members: Sequence[NonMember] = ()


@dataclass(frozen=True)
class FeeLine:
    """A line of a fee statement: what it charges, the schedule's rule, quantity × unit price = amount."""

    description: str
    rule: str
    quantity: int
    unit_price: Decimal
    amount: Decimal


def average_rating(ratings: Iterable[int | None]) -> int | None:
    """The average of the rated players' ratings, rounded half up (ratings are positive; B.02 rounding)."""
    rated = [r for r in ratings if r]
    if not rated:
        return None
    return int((Decimal(sum(rated)) / len(rated)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def non_member_unit_price(rules: Sequence[FeeRule], kind: str, facts: EventFacts, age: int | None) -> Decimal | None:
    """The price one non-member of ``age`` pays under the schedule's ``kind`` line (None: no such line)."""
    for rule in rules:
        if rule.kind == kind and rule.applies(facts.rating_type, facts.event_kind, facts.day) and rule.for_age(age):
            return rule.amount
    return None


def fee_lines(rules: Sequence[FeeRule], facts: EventFacts) -> list[FeeLine]:
    """The statement of one event under one schedule (§6): a waiver in force answers a single line of nothing
    (FIDE Financial Rules App. 2 art. 1.2); otherwise every charge that applies, then rebates, then a cap."""
    live = [rule for rule in rules if rule.applies(facts.rating_type, facts.event_kind, facts.day)]
    waivers = [rule for rule in live if rule.kind == WAIVER]
    if waivers:
        return [FeeLine(waivers[0].description, waivers[0].rule, 0, ZERO, ZERO)]
    lines = [line for rule in live if rule.kind in CHARGES for line in _charge(rule, facts)]
    subtotal = sum((line.amount for line in lines), ZERO)
    for rule in live:
        if rule.kind == REBATE and rule.percent and subtotal > 0:
            rebate = money(subtotal * rule.percent / 100)
            lines.append(FeeLine(rule.description, rule.rule, 1, -rebate, -rebate))
            subtotal -= rebate
    for rule in live:
        if rule.kind == CAP and subtotal > rule.amount:
            lines.append(FeeLine(rule.description, rule.rule, 1, rule.amount - subtotal, rule.amount - subtotal))
            subtotal = rule.amount
    return lines


def _charge(rule: FeeRule, facts: EventFacts) -> list[FeeLine]:
    if rule.kind == PER_PLAYER:
        return [_line(rule, facts.players)]
    if rule.kind == PER_PLAYER_BAND:
        return [_line(rule, facts.players)] if rule.in_band(facts.average_rating) else []
    if rule.kind == PER_GAME:
        line = _line(rule, facts.rated_games)
        if rule.minimum is not None and line.amount < rule.minimum and facts.rated_games:
            minimum = money(rule.minimum)
            return [FeeLine(f"{rule.description} (minimum)", rule.rule, 1, minimum, minimum)]
        return [line]
    paying = [n for n in facts.non_members if rule.for_age(n.age)]
    if rule.kind == PER_NON_MEMBER_RESULT:
        quantity = sum(n.results for n in paying)
    elif rule.kind == PER_NON_MEMBER_SEASON:
        quantity = sum(1 for n in paying if not n.charged_this_season)
    else:
        quantity = len(paying)
    return [_line(rule, quantity)] if quantity else []


def _line(rule: FeeRule, quantity: int) -> FeeLine:
    unit = money(rule.amount)
    return FeeLine(rule.description, rule.rule, quantity, unit, money(unit * quantity))


def total(lines: Iterable[FeeLine]) -> Decimal:
    return money(sum((line.amount for line in lines), ZERO))


# --- FIDE's schedule (§6), the default of a new installation -----------------------------------------------

FIDE_RULE = "FIDE Financial Rules 2020, Appendix 2"
# Round robins by the players' average rating (§6): €1 below 2230, €5 below 2379, €10 below 2599, €15 below
# the €20 band, €20 from 2700 (the reference says "€15 below 2699" and "€20 from 2700": 2699 is read as €15).
FIDE_ROUND_ROBIN_BANDS: tuple[tuple[int | None, int | None, str], ...] = (
    (None, 2230, "1.00"),
    (2230, 2379, "5.00"),
    (2379, 2599, "10.00"),
    (2599, 2700, "15.00"),
    (2700, None, "20.00"),
)
FIDE_RAPID_BLITZ_WAIVER = (datetime.date(2021, 1, 1), datetime.date(2026, 12, 31))
