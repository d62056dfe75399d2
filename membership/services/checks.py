"""The membership and licence screen run when an event is submitted (registered in ``MembershipConfig.ready``
through ``events.services.submission_screen_register``), and the sale of tournament memberships.

A finding becomes an integrity flag: the publication skips the event until an official clears the flag or
refuses the event (events.services.event_screen). So a flag is raised exactly where the policy stops rating:
members only (refuse or hold), and a chief arbiter without a valid licence where the policy requires one.
Fees stop nothing: they go to the event's fee statement (``membership.services.fees``).
"""

from __future__ import annotations

import datetime

from django.db.models import Q

from audit.services import audit_record
from events.models import Event, IntegrityCheck
from events.services import IntegrityFinding
from membership.models import Licence, LicenceKind, Membership, MembershipSource, PolicyKind
from membership.services.status import MembershipReport, event_day, event_membership_report

# IntegrityFlag.kind values of this screen (events.models.IntegrityCheck names them).
MEMBERSHIP_CHECK = IntegrityCheck.MEMBERSHIP
LICENCE_CHECK = IntegrityCheck.LICENCE


def event_membership_screen(event: Event) -> list[IntegrityFinding]:
    """On submission: name every non-member whose games a members-only policy refuses (or for whom it holds the
    event); sell the tournament memberships the policy sells; check the chief arbiter's licence."""
    report = event_membership_report(event)
    findings = []
    if report.refused:
        action = report.refused[0].treatment.action
        rule = f"Members only ({report.policy}): the games of {len(report.refused)} non-member(s) are " + (
            "refused for rating" if action == "refused" else "held until they join"
        )
        findings.append(
            IntegrityFinding(
                MEMBERSHIP_CHECK, rule, {"action": action, "non_members": [row.to_dict() for row in report.refused]}
            )
        )
    if report.policy is not None and report.policy.kind == PolicyKind.TOURNAMENT_MEMBERSHIP:
        tournament_memberships_sell(report)
    if report.policy is not None and report.policy.chief_arbiter_licence_required:
        problem = chief_arbiter_licence_problem(event)
        if problem:
            findings.append(IntegrityFinding(LICENCE_CHECK, problem, {"chief_arbiter": event.chief_arbiter_name}))
    return findings


def tournament_memberships_sell(report: MembershipReport) -> list[Membership]:
    """A tournament membership for each non-member, for the event's dates, at the price of their age's
    category (US Chess, CFC: §5), in the submission's transaction; audited once for the event."""
    event = report.event
    rows = [row for row in report.non_members if row.treatment.action == "tournament_membership"]
    category = report.tournament_category
    if not rows or category is None or event.start_date is None:
        return []
    sold = Membership.objects.bulk_create(
        Membership(
            player_id=row.player_id,
            category=category,
            start=event.start_date,
            end=event.end_date or event.start_date,
            source=MembershipSource.SUBMISSION,
            price=row.treatment.amount,
            event=event,
        )
        for row in rows
    )
    audit_record(
        None,
        "membership.tournament_sold",
        event,
        after={"players": [row.id_number for row in rows], "total": str(sum(row.treatment.amount for row in rows))},
    )
    return sold


def chief_arbiter_licence_problem(event: Event) -> str:
    """Why the event's chief arbiter cannot direct it (empty: they hold a valid arbiter's licence for every
    day of it). The arbiter is the event's chief arbiter account, or failing that the name the report gives."""
    day, last = event_day(event), event.end_date or event_day(event)
    licences = Licence.objects.filter(kind=LicenceKind.ARBITER, valid_from__lte=day).filter(
        Q(valid_to__isnull=True) | Q(valid_to__gte=last)
    )
    name = (event.chief_arbiter_name or "").strip()
    if event.chief_arbiter_id is not None:
        if licences.filter(user_id=event.chief_arbiter_id).exists():
            return ""
    elif name and _by_name(licences, name):
        return ""
    who = name or (str(event.chief_arbiter) if event.chief_arbiter_id else "")
    if not who:
        return f"{event.name} names no chief arbiter; a rated event needs one with a valid arbiter's licence."
    return (
        f"{event.name}: the chief arbiter {who} holds no arbiter's licence valid from {day:%Y-%m-%d} to "
        f"{last:%Y-%m-%d} (the federation's policy requires one)."
    )


def _by_name(licences, name: str) -> bool:
    """A licence whose holder is called ``name`` ("Surname, Given" or "Given Surname", any case)."""
    if "," in name:
        surname, given = (part.strip() for part in name.split(",", 1))
        return licences.filter(player__surname__iexact=surname, player__given_names__iexact=given).exists()
    given, _space, surname = name.rpartition(" ")
    return licences.filter(player__surname__iexact=surname, player__given_names__iexact=given).exists()


def licences_valid_on(day: datetime.date, kind: str):
    return Licence.objects.filter(kind=kind, valid_from__lte=day).filter(
        Q(valid_to__isnull=True) | Q(valid_to__gte=day)
    )
