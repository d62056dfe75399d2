"""An event's rating-fee statement (issue 35, ``GET /api/v1/events/<pk>/fees/``).

Every schedule in force at the event's end that applies to it (FIDE's, which has no federation, and the
event's federation's) charges its lines (``membership.rules.fee_lines``); the non-member lines are charged
only where the membership policy in force is "non-members rated with a fee" with that schedule; tournament
memberships sold at submission are lines of their own. A fixed number of queries whatever the event's size.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Prefetch, Q

from events.models import Event
from membership import rules
from membership.models import FeeSchedule, FeeScheduleLine, PolicyKind
from membership.services.status import MembershipReport, event_federation_code, event_membership_report


@dataclass(frozen=True)
class StatementLine:
    line: rules.FeeLine
    schedule: str
    currency: str

    def to_dict(self) -> dict:
        return {
            "description": self.line.description,
            "rule": self.line.rule,
            "quantity": self.line.quantity,
            "unit_price": str(self.line.unit_price),
            "amount": str(self.line.amount),
            "currency": self.currency,
            "schedule": self.schedule,
        }


@dataclass
class FeeStatement:
    """Lines, then one total per currency; ``currency`` and ``total`` are the first schedule's (FIDE's where
    it applies: it has no federation and comes first)."""

    event: Event
    lines: list[StatementLine] = field(default_factory=list)
    currency: str = "EUR"

    @property
    def totals(self) -> dict[str, Decimal]:
        sums: dict[str, Decimal] = defaultdict(lambda: rules.ZERO)
        for item in self.lines:
            sums[item.currency] += item.line.amount
        return {currency: rules.money(amount) for currency, amount in sums.items()}

    @property
    def total(self) -> Decimal:
        return self.totals.get(self.currency, rules.ZERO)

    def to_dict(self) -> dict:
        return {
            "event": self.event.pk,
            "lines": [item.to_dict() for item in self.lines],
            "total": str(self.total),
            "currency": self.currency,
            "totals": {currency: str(amount) for currency, amount in self.totals.items()},
        }


def schedules_in_force(federation: str, day) -> list[FeeSchedule]:
    """Per schedule code, the version in force on ``day``; FIDE's (no federation) first."""
    candidates = (
        FeeSchedule.objects.filter(Q(federation__isnull=True) | Q(federation_id=federation))
        .filter(effective_from__lte=day)
        .filter(Q(effective_to__isnull=True) | Q(effective_to__gte=day))
        .order_by("code", "-effective_from")
        .prefetch_related(Prefetch("lines", queryset=FeeScheduleLine.objects.order_by("order", "id")))
    )
    newest: dict[str, FeeSchedule] = {}
    for schedule in candidates:
        newest.setdefault(schedule.code, schedule)
    return sorted(newest.values(), key=lambda s: (s.federation_id is not None, s.code))


def event_fee_statement(event: Event, report: MembershipReport | None = None) -> FeeStatement:
    """The fee statement of ``event`` (§6): each schedule's lines, and the tournament memberships sold."""
    report = report or event_membership_report(event)
    facts = report.facts
    schedules = schedules_in_force(event_federation_code(event), facts.day)
    statement = FeeStatement(event, currency=schedules[0].currency if schedules else "EUR")
    policy = report.policy
    charging = policy is not None and policy.kind == PolicyKind.NON_MEMBER_FEE
    for schedule in schedules:
        charges_non_members = charging and policy is not None and policy.fee_schedule_id in (None, schedule.pk)
        schedule_facts = facts if charges_non_members else rules.EventFacts(**{**facts.__dict__, "non_members": ()})
        for line in rules.fee_lines([line.as_rule() for line in schedule.lines.all()], schedule_facts):
            statement.lines.append(StatementLine(line, schedule.code, schedule.currency))
    sold = [row for row in report.non_members if row.treatment.action == "tournament_membership"]
    for price in sorted({row.treatment.unit_price for row in sold}):
        at_price = [row for row in sold if row.treatment.unit_price == price]
        line = rules.FeeLine(
            "Tournament memberships sold at submission",
            "membership policy: tournament membership",
            len(at_price),
            price,
            rules.money(price * len(at_price)),
        )
        statement.lines.append(StatementLine(line, "membership", at_price[0].currency or statement.currency))
    return statement
