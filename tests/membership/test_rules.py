"""membership/rules.py: pure fee and membership rules (no database). Facts: reference/leagues-membership.md §5-6."""

import datetime
from decimal import Decimal

import pytest

from membership import rules

D = datetime.date


def fide_rules() -> list[rules.FeeRule]:
    """FIDE's schedule as the data migration writes it (the same constants)."""
    waived_from, waived_to = rules.FIDE_RAPID_BLITZ_WAIVER
    found = [
        rules.FeeRule(rules.WAIVER, "waived", rating_types=frozenset({"rapid", "blitz"}), valid_from=waived_from,
                      valid_to=waived_to),
        rules.FeeRule(rules.PER_PLAYER, "Swiss", amount=Decimal(1), event_kinds=frozenset({"swiss", "team"})),
    ]  # fmt: skip
    for low, high, amount in rules.FIDE_ROUND_ROBIN_BANDS:
        found.append(
            rules.FeeRule(rules.PER_PLAYER_BAND, f"band {low}", amount=Decimal(amount), band_min=low, band_max=high,
                          event_kinds=frozenset({"round_robin", "match"}))
        )  # fmt: skip
    return found


def facts(**values) -> rules.EventFacts:
    values.setdefault("rating_type", "standard")
    values.setdefault("event_kind", "swiss")
    values.setdefault("day", D(2026, 3, 1))
    values.setdefault("players", 10)
    values.setdefault("rated_games", 25)
    return rules.EventFacts(**values)


def test_fide_swiss_is_one_euro_a_player():
    lines = rules.fee_lines(fide_rules(), facts(players=137))
    assert [(line.quantity, line.unit_price, line.amount) for line in lines] == [
        (137, Decimal("1.00"), Decimal("137.00"))
    ]
    assert rules.total(lines) == Decimal("137.00")


@pytest.mark.parametrize(
    ("average", "price"),
    [
        (1500, "1.00"), (2229, "1.00"), (2230, "5.00"), (2378, "5.00"), (2379, "10.00"), (2598, "10.00"),
        (2599, "15.00"), (2699, "15.00"), (2700, "20.00"), (2850, "20.00"),
    ],
)  # fmt: skip
def test_fide_round_robin_band_edges(average, price):
    lines = rules.fee_lines(fide_rules(), facts(event_kind="round_robin", players=10, average_rating=average))
    assert len(lines) == 1
    assert lines[0].unit_price == Decimal(price)
    assert rules.total(lines) == Decimal(price) * 10


@pytest.mark.parametrize("rating_type", ["rapid", "blitz"])
def test_fide_rapid_and_blitz_cost_nothing_in_2026_and_are_charged_in_2027(rating_type):
    waived = rules.fee_lines(fide_rules(), facts(rating_type=rating_type, day=D(2026, 12, 31), players=80))
    assert rules.total(waived) == 0
    assert waived[0].description == "waived"
    charged = rules.fee_lines(fide_rules(), facts(rating_type=rating_type, day=D(2027, 1, 1), players=80))
    assert rules.total(charged) == Decimal("80.00")


def test_per_game_fee_has_its_minimum():
    per_game = [rules.FeeRule(rules.PER_GAME, "online", amount=Decimal("0.25"), minimum=Decimal(3))]
    assert rules.total(rules.fee_lines(per_game, facts(rated_games=4))) == Decimal("3.00")  # 4 × 0.25 < 3
    assert rules.total(rules.fee_lines(per_game, facts(rated_games=40))) == Decimal("10.00")


def test_rebate_then_cap():
    schedule = [
        rules.FeeRule(rules.PER_PLAYER, "p", amount=Decimal(2)),
        rules.FeeRule(rules.REBATE, "half back", percent=Decimal(50)),
        rules.FeeRule(rules.CAP, "cap", amount=Decimal(30)),
    ]
    assert rules.total(rules.fee_lines(schedule, facts(players=20))) == Decimal("20.00")  # 40 - 20, under the cap
    assert rules.total(rules.fee_lines(schedule, facts(players=100))) == Decimal("30.00")  # 200 - 100 → capped


def test_non_member_fees_by_age_and_basis():
    schedule = [
        rules.FeeRule(rules.PER_NON_MEMBER_RESULT, "adult", amount=Decimal("2.50"), min_age=18),
        rules.FeeRule(rules.PER_NON_MEMBER_RESULT, "junior", amount=Decimal("0.60"), max_age=17),
    ]
    non_members = (rules.NonMember(1, 40, 5), rules.NonMember(2, 12, 3), rules.NonMember(3, None, 1))
    lines = rules.fee_lines(schedule, facts(non_members=non_members))
    assert [(line.description, line.quantity, line.amount) for line in lines] == [
        ("adult", 6, Decimal("15.00")),  # 5 + 1 (unknown age pays the adult price)
        ("junior", 3, Decimal("1.80")),
    ]


def test_season_fee_is_charged_once():
    schedule = [rules.FeeRule(rules.PER_NON_MEMBER_SEASON, "season", amount=Decimal(18))]
    non_members = (rules.NonMember(1, 40, 5, charged_this_season=True), rules.NonMember(2, 40, 3))
    assert rules.total(rules.fee_lines(schedule, facts(non_members=non_members))) == Decimal("18.00")


def test_season_and_backdating():
    season = rules.Season(9, 1, backdate_until=(6, 30))
    assert season.start_of(D(2026, 8, 31)) == D(2025, 9, 1)
    assert season.start_of(D(2026, 9, 1)) == D(2026, 9, 1)
    assert season.end_of(D(2026, 1, 1)) == D(2026, 8, 31)
    assert season.effective_start(D(2026, 6, 30)) == D(2025, 9, 1)  # taken by 30 June: from 1 September
    assert season.effective_start(D(2026, 7, 1)) == D(2026, 7, 1)
    assert rules.Season().effective_start(D(2026, 6, 30)) == D(2026, 6, 30)


def test_membership_is_checked_at_each_date():
    intervals = [rules.Interval(D(2026, 1, 1), D(2026, 1, 31)), rules.Interval(D(2026, 3, 1), None)]
    assert rules.is_member(intervals, D(2026, 1, 31))
    assert not rules.is_member(intervals, D(2026, 2, 1))
    assert rules.is_member(intervals, D(2040, 1, 1))


def test_policy_treatments():
    non_member = rules.NonMember(1, 30, 4)
    refused = rules.non_member_treatment(rules.POLICY_MEMBERS_ONLY, action=rules.ACTION_REFUSE, non_member=non_member)
    assert refused.action == "refused"
    held = rules.non_member_treatment(rules.POLICY_MEMBERS_ONLY, action=rules.ACTION_HOLD, non_member=non_member)
    assert held.action == "held"
    fee = rules.non_member_treatment(rules.POLICY_NON_MEMBER_FEE, basis="result", fee=Decimal("2.5"),
                                     non_member=non_member)  # fmt: skip
    assert (fee.quantity, fee.amount) == (4, Decimal("10.00"))
    sold = rules.non_member_treatment(rules.POLICY_TOURNAMENT_MEMBERSHIP, fee=Decimal(12), non_member=non_member)
    assert (sold.action, sold.amount) == ("tournament_membership", Decimal("12.00"))


def test_average_rating_counts_rated_players_and_rounds_half_up():
    assert rules.average_rating([2229, 2230, None]) == 2230  # 2229.5 → 2230
    assert rules.average_rating([None, 0]) is None
