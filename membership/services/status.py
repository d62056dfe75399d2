"""Who in an event is a member at each game's date, and what the membership policy does with the others.

Issue 35: "Checked at each game's date. The check-before-submit report, the TRF check API and the league match
card name every non-member and what the policy does with them (refused, fee and its amount)". This module is
the one reading of that: ``event_membership_report`` (a fixed number of queries, whatever the event's size).
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from events.models import RATED_RESULTS, Event, EventStatus, Game, Participant
from membership import rules
from membership.models import (
    FeeSchedule,
    Membership,
    MembershipCategory,
    MembershipPolicy,
    MembershipSettings,
    PolicyKind,
)

# The statuses of an event that has gone to the rating officer: it has a fee statement, and its non-members
# were charged any season fee (per-season fees charge the first such event of the season).
FEE_STATUSES = (EventStatus.SUBMITTED, EventStatus.RATED, EventStatus.CORRECTED)


@dataclass(frozen=True)
class NonMemberRow:
    """A non-member of an event: who, how many rated games they played while not a member, and what the
    policy does with them."""

    participant_id: int
    player_id: int
    start_rank: int
    id_number: int
    name: str
    age: int | None
    results: int
    treatment: rules.Treatment
    currency: str = ""

    def to_dict(self) -> dict:
        return {
            "start_rank": self.start_rank,
            "id_number": self.id_number,
            "name": self.name,
            "results": self.results,
            "action": self.treatment.action,
            "quantity": self.treatment.quantity,
            "unit_price": str(self.treatment.unit_price),
            "amount": str(self.treatment.amount),
            "currency": self.currency,
        }


@dataclass
class MembershipReport:
    """An event's membership check: the policy in force (None: none), the season, every non-member."""

    event: Event
    policy: MembershipPolicy | None
    season: rules.Season
    facts: rules.EventFacts
    non_members: list[NonMemberRow] = field(default_factory=list)
    tournament_category: MembershipCategory | None = None

    @property
    def refused(self) -> list[NonMemberRow]:
        return [row for row in self.non_members if row.treatment.action in ("refused", "held")]


def event_day(event: Event) -> datetime.date:
    """The date an event's policy and schedules are chosen by: its start (the list in force rule's date)."""
    return event.start_date or event.end_date or timezone.localdate()


def event_federation_code(event: Event) -> str:
    return event.federation_id or settings.FEDERATION_CODE


def policy_in_force(federation: str, rating_type: str, day: datetime.date) -> MembershipPolicy | None:
    """The newest policy of the federation and rating type that took effect on or before ``day``."""
    return (
        MembershipPolicy.objects.filter(federation_id=federation, rating_type=rating_type, effective_from__lte=day)
        .select_related("fee_schedule", "tournament_category")
        .order_by("-effective_from")
        .first()
    )


def season_of(federation: str) -> rules.Season:
    found = MembershipSettings.objects.filter(federation_id=federation).first()
    return found.season if found else rules.Season()


def memberships_by_player(player_ids: list[int], season: rules.Season, since: datetime.date) -> dict[int, list]:
    """Each player's membership intervals (backdating applied) that reach ``since`` or later."""
    intervals: dict[int, list[rules.Interval]] = defaultdict(list)
    rows = Membership.objects.filter(player_id__in=player_ids).filter(Q(end__isnull=True) | Q(end__gte=since))
    for player_id, start, end in rows.values_list("player_id", "start", "end"):
        intervals[player_id].append(rules.Interval(season.effective_start(start), end))
    return intervals


def event_membership_report(event: Event) -> MembershipReport:
    """Every participant without a membership at the date of one of their rated games, with what the policy in
    force does with them (§5). No policy, or policy "none": the report names nobody."""
    federation, day = event_federation_code(event), event_day(event)
    policy = policy_in_force(federation, event.rating_type, day) if federation else None
    season = season_of(federation) if federation else rules.Season()
    participants = list(
        Participant.objects.filter(event=event)
        .order_by("start_rank")
        .values_list("pk", "player_id", "start_rank", "rating", "player__id_number", "player__surname",
                     "player__given_names", "player__birth_year")
    )  # fmt: skip
    games = list(Game.objects.filter(event=event, result__in=RATED_RESULTS).values_list("white_id", "black_id", "date"))
    facts = rules.EventFacts(
        rating_type=event.rating_type,
        event_kind=event.system,
        day=event.end_date or day,
        players=len(participants),
        rated_games=len(games),
        average_rating=rules.average_rating(row[3] for row in participants),
    )
    report = MembershipReport(event, policy, season, facts)
    if policy is None or policy.kind == PolicyKind.NONE:
        return report
    results = _non_member_results(participants, games, season, day)
    if not results:
        return report
    charged = _charged_this_season(event, season, [row[1] for row in participants if row[0] in results])
    season_start = season.start_of(day)
    non_members = []
    for pk, player_id, *_shown, birth_year in participants:
        if pk not in results:
            continue
        age = rules.age_at(birth_year, season_start)  # price by age at the season's start (§5)
        non_members.append(rules.NonMember(player_id, age, results[pk], player_id in charged))
    facts = rules.EventFacts(**{**facts.__dict__, "non_members": tuple(non_members)})
    report.facts = facts
    report.non_members = _treat(report, participants, non_members)
    return report


def _non_member_results(participants: list, games: list, season: rules.Season, day: datetime.date) -> dict[int, int]:
    """Participant pk → rated games played on a date they were not a member (each game at its own date)."""
    player_of = {row[0]: row[1] for row in participants}
    dates = [game_day or day for _w, _b, game_day in games]
    since = min(dates, default=day)
    intervals = memberships_by_player(list(player_of.values()), season, since)
    counts: dict[int, int] = defaultdict(int)
    for (white, black, _d), game_day in zip(games, dates, strict=True):
        for participant in (white, black):
            if participant is not None and not rules.is_member(intervals.get(player_of[participant], ()), game_day):
                counts[participant] += 1
    return dict(counts)


def _charged_this_season(event: Event, season: rules.Season, player_ids: list[int]) -> set[int]:
    """The players who played in an earlier submitted or rated event of the same federation and season (their
    season fee was charged there: the first event of the season charges it)."""
    day = event_day(event)
    earlier = (
        Participant.objects.filter(player_id__in=player_ids, event__status__in=FEE_STATUSES)
        .filter(event__federation_id=event.federation_id, event__rating_type=event.rating_type)
        .filter(event__start_date__gte=season.start_of(day))
        .filter(Q(event__start_date__lt=day) | Q(event__start_date=day, event_id__lt=event.pk))
        .exclude(event=event)
    )
    return set(earlier.values_list("player_id", flat=True))


def _treat(report: MembershipReport, participants: list, non_members: list[rules.NonMember]) -> list[NonMemberRow]:
    policy = report.policy
    assert policy is not None
    rows_by_player = {row[1]: row for row in participants}
    schedule_rules, currency = _policy_fee_rules(policy)
    categories = _tournament_categories(policy)
    rows = []
    for non_member in non_members:
        fee: Decimal | None = None
        if policy.kind == PolicyKind.NON_MEMBER_FEE:
            kind = rules.NON_MEMBER_BASIS[policy.fee_basis]
            fee = rules.non_member_unit_price(schedule_rules, kind, report.facts, non_member.age)
        elif policy.kind == PolicyKind.TOURNAMENT_MEMBERSHIP:
            category = next((c for c in categories if c.for_age(non_member.age)), None)
            fee, currency = (category.price, category.currency) if category else (None, currency)
            report.tournament_category = report.tournament_category or category
        treatment = rules.non_member_treatment(
            policy.kind, action=policy.members_only_action, basis=policy.fee_basis, fee=fee, non_member=non_member
        )
        pk, _player, rank, _rating, id_number, surname, given, _birth = rows_by_player[non_member.player_id]
        name = f"{surname}, {given}" if given else surname
        rows.append(NonMemberRow(pk, non_member.player_id, rank, id_number, name, non_member.age,
                                 non_member.results, treatment, currency))  # fmt: skip
    return rows


def _policy_fee_rules(policy: MembershipPolicy) -> tuple[list[rules.FeeRule], str]:
    schedule: FeeSchedule | None = policy.fee_schedule
    if schedule is None:
        return [], ""
    return [line.as_rule() for line in schedule.lines.all()], schedule.currency


def _tournament_categories(policy: MembershipPolicy) -> list[MembershipCategory]:
    """The tournament categories a policy sells from: its chosen one and the same kind's other age bands."""
    chosen = policy.tournament_category
    if policy.kind != PolicyKind.TOURNAMENT_MEMBERSHIP or chosen is None:
        return []
    others = MembershipCategory.objects.filter(federation_id=chosen.federation_id, kind=chosen.kind).exclude(
        pk=chosen.pk
    )
    return [chosen, *others.order_by("min_age")]
