"""Membership policies end to end (issue 35): an event with members, non-members and tournament memberships
goes through submission, the screen, rating and its fee statement."""

import datetime
from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from events.models import EventStatus, IntegrityFlag, RatingType
from events.services import event_submit, integrity_flag_clear
from membership.models import (
    CategoryKind,
    FeeSchedule,
    FeeScheduleLine,
    Licence,
    Membership,
    MembershipCategory,
    MembershipPolicy,
    MembershipSettings,
    MembershipSource,
    PolicyKind,
)
from membership.services.fees import event_fee_statement
from membership.services.status import event_membership_report
from ratings.models import RatingChange
from ratings.services import rating_list_publish
from tests.factories import make_federation, make_player
from tests.ratings.scenarios import JAN, MAR, bimonthly_policy, event_with_games, starting_list

pytestmark = pytest.mark.django_db
START = datetime.date(2026, 1, 10)


@pytest.fixture
def field():
    """Six players of ENG: two members all season, one whose membership ends before the event (a non-member at
    its games), one junior and two adults who never joined; everyone rated 2000 on January's list."""
    eng = make_federation("ENG", "England")
    MembershipSettings.objects.create(federation=eng)
    adult = MembershipCategory.objects.create(federation=eng, code="adult", name="Adult", price="18.00")
    group = [make_player(federation=eng, birth_year=1980) for _ in range(5)]
    group.append(make_player(federation=eng, birth_year=2014))  # 11 at the season's start: a junior
    for member in group[:2]:
        Membership.objects.create(player=member, category=adult, start=datetime.date(2025, 9, 1),
                                  end=datetime.date(2026, 8, 31))  # fmt: skip
    Membership.objects.create(player=group[2], category=adult, start=datetime.date(2025, 9, 1),
                              end=datetime.date(2026, 1, 9))  # fmt: skip
    bimonthly_policy()
    starting_list(JAN, dict.fromkeys(group, 2000))
    return eng, group


def swiss(group, **fields):
    """Three rounds: (0-1, 2-3, 4-5), (0-2, 1-4, 3-5), (0-5, 1-3, 2-4), all played."""
    pairs = [(0, 1), (2, 3), (4, 5), (0, 2), (1, 4), (3, 5), (0, 5), (1, 3), (2, 4)]
    event = event_with_games(group, [(w, b, 0.5) for w, b in pairs], start=START, status=EventStatus.DRAFT, **fields)
    for game in event.games.all():  # event_with_games puts each game in a round of its own: three boards a round
        game.round = (game.round - 1) // 3 + 1
        game.save(update_fields=["round"])
    event.federation_id, event.rounds = "ENG", 3
    event.save(update_fields=["federation", "rounds"])
    return event


def official():
    return User.objects.create_superuser("officer", "o@example.org", "x")


def names(rows):
    return [(row.id_number, row.results, row.treatment.action) for row in rows]


def test_members_only_refuses_exactly_the_non_members_and_names_them(field):
    eng, group = field
    MembershipPolicy.objects.create(federation=eng, rating_type=RatingType.STANDARD,
                                    effective_from=datetime.date(2025, 9, 1), kind=PolicyKind.MEMBERS_ONLY)  # fmt: skip
    event = swiss(group)
    report = event_membership_report(event)
    # players 3-6 are non-members at every one of their three games; the two members are not named
    assert names(report.non_members) == [(p.id_number, 3, "refused") for p in group[2:]]
    event_submit(event, user=official())
    flag = IntegrityFlag.objects.get(event=event, kind="membership")
    assert "4 non-member(s) are refused for rating" in flag.rule
    assert [row["id_number"] for row in flag.evidence["non_members"]] == [p.id_number for p in group[2:]]
    # the publication holds the event until an official decides; cleared, it is rated
    assert rating_list_publish("standard", MAR).rating_list.events.count() == 0
    integrity_flag_clear(flag, user=official_user(), reason="non-members' games removed by correction")
    event.refresh_from_db()
    assert event.status == EventStatus.SUBMITTED


def official_user():
    return User.objects.get(username="officer")


def test_a_fee_policy_charges_exactly_what_its_schedule_says(field):
    eng, group = field
    national = FeeSchedule.objects.create(code="ecf", name="ECF", federation=eng, currency="GBP",
                                          effective_from=datetime.date(2025, 9, 1))  # fmt: skip
    FeeScheduleLine.objects.create(schedule=national, kind="per_non_member_result", description="Adult result",
                                   amount=Decimal("2.50"), min_age=18)  # fmt: skip
    FeeScheduleLine.objects.create(schedule=national, kind="per_non_member_result", description="Junior result",
                                   amount=Decimal("0.60"), max_age=17)  # fmt: skip
    MembershipPolicy.objects.create(federation=eng, rating_type=RatingType.STANDARD, fee_schedule=national,
                                    effective_from=datetime.date(2025, 9, 1),
                                    kind=PolicyKind.NON_MEMBER_FEE)  # fmt: skip
    event = swiss(group)
    report = event_membership_report(event)
    assert [(r.id_number, r.treatment.action, r.treatment.amount) for r in report.non_members] == [
        *((p.id_number, "fee", Decimal("7.50")) for p in group[2:5]),
        (group[5].id_number, "fee", Decimal("1.80")),
    ]
    event_submit(event, user=official())
    assert not IntegrityFlag.objects.filter(event=event).exists()  # a fee stops nothing
    statement = event_fee_statement(event).to_dict()
    assert statement["currency"] == "EUR"  # FIDE's schedule comes first
    assert statement["total"] == "6.00"  # FIDE: €1 × 6 players (Swiss)
    assert statement["totals"] == {"EUR": "6.00", "GBP": "24.30"}  # 9 adult results × 2.50 + 3 junior × 0.60
    assert [(line["description"], line["quantity"], line["amount"]) for line in statement["lines"]] == [
        ("Swiss and team events: per player", 6, "6.00"),
        ("Adult result", 9, "22.50"),
        ("Junior result", 3, "1.80"),
    ]
    outcome = rating_list_publish("standard", MAR)
    assert RatingChange.objects.filter(rating_list=outcome.rating_list, event=event).count() == 6


def test_tournament_memberships_are_sold_at_submission(field):
    eng, group = field
    adult_pass = MembershipCategory.objects.create(federation=eng, code="tm-adult", name="Tournament",
                                                   kind=CategoryKind.TOURNAMENT, price="12.00", min_age=25)  # fmt: skip
    MembershipCategory.objects.create(federation=eng, code="tm-young", name="Tournament U25",
                                      kind=CategoryKind.TOURNAMENT, price="7.00", max_age=24)  # fmt: skip
    MembershipPolicy.objects.create(federation=eng, rating_type=RatingType.STANDARD, tournament_category=adult_pass,
                                    effective_from=datetime.date(2025, 9, 1),
                                    kind=PolicyKind.TOURNAMENT_MEMBERSHIP)  # fmt: skip
    event = swiss(group)
    event_submit(event, user=official())
    sold = Membership.objects.filter(source=MembershipSource.SUBMISSION, event=event).order_by("player__id_number")
    assert [(m.player_id, m.price, m.start, m.end) for m in sold] == [
        *((p.pk, Decimal("12.00"), event.start_date, event.end_date) for p in group[2:5]),
        (group[5].pk, Decimal("7.00"), event.start_date, event.end_date),
    ]
    assert event_membership_report(event).non_members == []  # everyone is a member now
    statement = event_fee_statement(event)
    assert statement.total == Decimal("6.00")
    assert not IntegrityFlag.objects.filter(event=event).exists()


def test_statement_names_tournament_memberships_before_submission(field):
    eng, group = field
    category = MembershipCategory.objects.create(federation=eng, code="tm", name="Tournament",
                                                 kind=CategoryKind.TOURNAMENT, price="12.00")  # fmt: skip
    MembershipPolicy.objects.create(federation=eng, rating_type=RatingType.STANDARD, tournament_category=category,
                                    effective_from=datetime.date(2025, 9, 1),
                                    kind=PolicyKind.TOURNAMENT_MEMBERSHIP)  # fmt: skip
    lines = event_fee_statement(swiss(group)).to_dict()["lines"]
    assert lines[-1] == {
        "description": "Tournament memberships sold at submission", "rule": "membership policy: tournament membership",
        "quantity": 4, "unit_price": "12.00", "amount": "48.00", "currency": "EUR", "schedule": "membership",
    }  # fmt: skip


def test_a_policy_is_chosen_by_the_events_date(field):
    eng, group = field
    MembershipPolicy.objects.create(federation=eng, rating_type=RatingType.STANDARD,
                                    effective_from=datetime.date(2026, 2, 1), kind=PolicyKind.MEMBERS_ONLY)  # fmt: skip
    assert event_membership_report(swiss(group)).non_members == []  # the event started before it took effect


def test_chief_arbiter_needs_a_valid_licence_where_the_policy_says(field):
    eng, group = field
    MembershipPolicy.objects.create(
        federation=eng,
        rating_type=RatingType.STANDARD,
        chief_arbiter_licence_required=True,
        effective_from=datetime.date(2025, 9, 1),
    )
    arbiter = User.objects.create_user("arbiter")
    event = swiss(group, name="Licence Open")
    event.chief_arbiter = arbiter
    event.save(update_fields=["chief_arbiter"])
    Licence.objects.create(kind="arbiter", grade="NA", player=group[0], user=arbiter,
                           valid_from=datetime.date(2020, 1, 1), valid_to=datetime.date(2025, 12, 31))  # fmt: skip
    event_submit(event, user=official())
    flag = IntegrityFlag.objects.get(event=event, kind="licence")
    assert flag.rule == (
        "Licence Open: the chief arbiter arbiter holds no arbiter's licence valid from 2026-01-10 to 2026-01-12 "
        "(the federation's policy requires one)."
    )


def test_a_valid_licence_passes(field):
    eng, group = field
    MembershipPolicy.objects.create(
        federation=eng,
        rating_type=RatingType.STANDARD,
        chief_arbiter_licence_required=True,
        effective_from=datetime.date(2025, 9, 1),
    )
    event = swiss(group)
    event.chief_arbiter_name = f"{group[0].surname}, {group[0].given_names}"
    event.save(update_fields=["chief_arbiter_name"])
    Licence.objects.create(kind="arbiter", grade="IA", player=group[0], valid_from=datetime.date(2020, 1, 1))
    event_submit(event, user=official())
    assert not IntegrityFlag.objects.filter(event=event).exists()
