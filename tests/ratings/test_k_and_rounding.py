"""B.02 8.3.3 (K x n <= 700) and 8.3.4 (rounding) apply per rating period: the bimonthly list."""

import datetime

import pytest

from ratings.models import RatingChange, RatingListEntry
from ratings.services import rating_list_publish
from tests.ratings.scenarios import JAN, MAR, MAY, bimonthly_policy, event_with_games, players, starting_list

pytestmark = pytest.mark.django_db


def test_k_times_games_never_exceeds_700_over_the_period_across_events():
    bimonthly_policy()
    busy, *opponents = players(21)
    starting_list(JAN, {busy: 2000, **dict.fromkeys(opponents, 2000)})  # K 20 for everyone
    # 40 games in one period, in two events of 20 (every game a draw against an equal: dR = 0 ...
    # except one win per event, so that the change shows the K actually used)
    first = event_with_games(
        [busy, *opponents],
        [(0, i, 1.0 if i == 1 else 0.5) for i in range(1, 21)],
        start=datetime.date(2026, 1, 5),
        name="First",
    )
    second = event_with_games(
        [busy, *opponents],
        [(0, i, 1.0 if i == 1 else 0.5) for i in range(1, 21)],
        start=datetime.date(2026, 2, 5),
        name="Second",
    )
    mar = rating_list_publish("standard", MAR).rating_list
    changes = {c.event_id: c for c in RatingChange.objects.filter(rating_list=mar, player=busy)}
    # n = 40 -> K = floor(700 / 40) = 17 in both events, not 20 (20 x 40 = 800 > 700)
    assert {c.k_factor for c in changes.values()} == {17}
    assert changes[first.pk].change == pytest.approx(17 * 0.5)
    assert changes[second.pk].change == pytest.approx(17 * 0.5)
    busy_entry = RatingListEntry.objects.get(rating_list=mar, player=busy)
    assert busy_entry.games == 40
    assert busy_entry.change == 17
    # each opponent played 2 games in the period: K 20 unchanged
    assert set(
        RatingChange.objects.filter(rating_list=mar).exclude(player=busy).values_list("k_factor", flat=True)
    ) == {20}

    # the next period starts a new count: 10 games -> K 20 again
    event_with_games(
        [busy, *opponents[:10]],
        [(0, i, 1.0 if i == 1 else 0.5) for i in range(1, 11)],
        start=datetime.date(2026, 3, 5),
        name="Third",
    )
    may = rating_list_publish("standard", MAY).rating_list
    assert RatingChange.objects.get(rating_list=may, player=busy).k_factor == 20


def test_the_change_of_a_period_is_rounded_once_not_per_event():
    bimonthly_policy()
    player, stronger = players(2)
    starting_list(JAN, {player: 2000, stronger: 2012})  # D = -12: PD 0.48 (table 8.1.2)
    one = event_with_games([player, stronger], [(0, 1, 0.5)], start=datetime.date(2026, 1, 5), name="One")
    two = event_with_games([player, stronger], [(0, 1, 0.5)], start=datetime.date(2026, 2, 5), name="Two")
    mar = rating_list_publish("standard", MAR).rating_list
    per_event = dict(RatingChange.objects.filter(rating_list=mar, player=player).values_list("event_id", "change"))
    assert per_event == {one.pk: pytest.approx(0.4), two.pk: pytest.approx(0.4)}  # stored unrounded
    # 0.4 + 0.4 = 0.8 -> +1 for the period (rounding each event would give 0 + 0)
    assert RatingListEntry.objects.get(rating_list=mar, player=player).rating == 2001


@pytest.mark.parametrize(("score", "expected_change"), [(0.0, -3), (1.0, 3)])
def test_half_points_of_a_period_change_are_rounded_away_from_zero(score, expected_change):
    bimonthly_policy()
    player, opponent = players(2)
    # D = -190 -> PD 0.25; K 10 (rated 2400 once): a loss is -2.50 -> -3, against D = +190 a win +2.50 -> +3
    ratings = {player: 2400, opponent: 2590} if score == 0.0 else {player: 2400, opponent: 2210}
    starting_list(JAN, ratings)
    event_with_games([player, opponent], [(0, 1, score)], start=datetime.date(2026, 1, 5))
    mar = rating_list_publish("standard", MAR).rating_list
    change = RatingChange.objects.get(rating_list=mar, player=player)
    assert change.k_factor == 10
    assert change.change == pytest.approx(2.5 if score else -2.5)
    assert RatingListEntry.objects.get(rating_list=mar, player=player).change == expected_change


def test_publication_reads_and_writes_in_bulk_whatever_the_number_of_players_and_events():
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from tests.ratings.scenarios import round_robin

    def queries_to_publish(size: int, events: int) -> int:
        with transaction.atomic():
            bimonthly_policy()
            group = players(size)
            starting_list(JAN, {p: 1500 + 10 * i for i, p in enumerate(group)})
            for e in range(events):
                round_robin(group[e::events][:10], start=datetime.date(2026, 1, 5 + e))
            with CaptureQueriesContext(connection) as queries:
                outcome = rating_list_publish("standard", MAR)
            assert outcome.summary["events"] == events
            transaction.set_rollback(True)
        return len(queries)

    assert queries_to_publish(6, 1) == queries_to_publish(40, 4)
