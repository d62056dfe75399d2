"""Which events a list rates, with which ratings, and what happens to players without games."""

import datetime
import re

import pytest

from events.models import EventStatus
from ratings.models import PlayerRating, RatingChange, RatingListEntry
from ratings.services import NothingToPublish, RatingListRefused, rating_list_publish
from tests.ratings.scenarios import (
    JAN,
    MAR,
    MAY,
    bimonthly_policy,
    event_with_games,
    players,
    starting_list,
)

pytestmark = pytest.mark.django_db


def entry(rating_list, player):
    return RatingListEntry.objects.get(rating_list=rating_list, player=player)


def change(rating_list, player, event):
    return RatingChange.objects.get(rating_list=rating_list, player=player, event=event)


def test_an_event_ending_after_the_closing_date_waits_for_the_next_list_and_uses_the_list_in_force_at_start():
    bimonthly_policy()  # closing date 7 days before: 22 Feb for the March list
    a, b = players(2)
    starting_list(JAN, {a: 2000, b: 1800})
    january = event_with_games([a, b], [(0, 1, 0.0)], start=datetime.date(2026, 1, 10))  # a loses
    late = event_with_games(
        [a, b], [(0, 1, 1.0)], start=datetime.date(2026, 2, 20), end=datetime.date(2026, 2, 25)
    )  # starts in the period, ends after the closing date
    march = event_with_games([a, b], [(0, 1, 0.5)], start=datetime.date(2026, 3, 10))

    mar = rating_list_publish("standard", MAR).rating_list
    late.refresh_from_db()
    assert late.status == EventStatus.SUBMITTED
    assert late.rated_on is None
    assert mar.event_count == 1
    a_march = entry(mar, a).rating
    assert a_march == 2000 + round(20 * (0 - 0.76))  # PD 0.76 for D = +200 (table 8.1.2)

    may = rating_list_publish("standard", MAY).rating_list
    late.refresh_from_db()
    assert late.status == EventStatus.RATED
    assert late.rated_on == may
    # rated on May's list with the ratings of January's list, in force on 20 Feb (rules 1.3)
    late_change = change(may, a, late)
    assert late_change.rating_before == 2000
    assert late_change.details[0]["opponent_rating"] == 1800
    assert late_change.change == pytest.approx(20 * (1 - 0.76))
    # ... while the March event uses March's list
    march_change = change(may, a, march)
    assert march_change.rating_before == a_march
    assert march_change.details[0]["opponent_rating"] == entry(mar, b).rating
    # the new rating continues the previous (March) list: period change rounded once
    assert entry(may, a).rating == a_march + round(late_change.change + march_change.change)
    january.refresh_from_db()
    assert january.rated_on == mar


def test_a_monthly_schedule_publishes_every_month_with_its_own_closing_date():
    bimonthly_policy(months="1,2,3,4,5,6,7,8,9,10,11,12", closing_days=3)
    a, b = players(2)
    starting_list(JAN, {a: 2000, b: 2000})
    early = event_with_games([a, b], [(0, 1, 1.0)], start=datetime.date(2026, 1, 5))
    late = event_with_games([a, b], [(0, 1, 0.0)], start=datetime.date(2026, 1, 27), end=datetime.date(2026, 1, 30))
    feb = rating_list_publish("standard", datetime.date(2026, 2, 1)).rating_list
    assert (feb.period_start, feb.closing_date) == (JAN, datetime.date(2026, 1, 29))
    assert list(feb.events.all()) == [early]
    mar = rating_list_publish("standard", MAR).rating_list
    assert list(mar.events.all()) == [late]
    assert mar.previous == feb
    assert entry(mar, a).rating == 2000  # +10 in January, -10 in late January


@pytest.mark.parametrize(
    ("setup", "list_date", "message"),
    [
        ("jan", datetime.date(2026, 2, 1), "is not a standard list date"),
        ("jan", datetime.date(2026, 5, 1), "list of 2026-03-01 is not published yet"),
        ("may", MAR, "a later standard list (2026-05-01) is already published"),
        ("jan", datetime.date(2030, 1, 1), "cannot be published before its date"),
    ],
)
def test_publications_out_of_order_or_off_schedule_are_refused(setup, list_date, message):
    bimonthly_policy()
    (a,) = players(1)
    starting_list({"jan": JAN, "may": MAY}[setup], {a: 2000})
    with pytest.raises(RatingListRefused, match=re.escape(message)):
        rating_list_publish("standard", list_date)


def test_a_first_list_without_any_event_is_refused_as_empty():
    bimonthly_policy()
    with pytest.raises(NothingToPublish, match="no earlier list and no submitted event"):
        rating_list_publish("standard", MAR)


def test_players_without_games_are_copied_forward_with_their_inactivity_updated():
    bimonthly_policy()
    idle, active, x, y = players(4)
    jan = starting_list(JAN, {idle: 1900, active: 2000, x: 1800, y: 1800})
    RatingListEntry.objects.filter(rating_list=jan, player=idle).update(last_game_date=datetime.date(2025, 2, 10))
    event_with_games([x, y], [(0, 1, 1.0)], start=datetime.date(2026, 1, 10))
    mar = rating_list_publish("standard", MAR).rating_list
    copied = entry(mar, idle)
    assert (copied.rating, copied.games, copied.change, copied.k_factor) == (1900, 0, 0, 20)
    assert copied.inactive  # no rated game since 10 Feb 2025: a year before 1 Mar 2026 (B.02 7.2)
    assert not entry(mar, active).inactive
    # one rated game makes the player active again on the next list
    event_with_games([idle, x], [(0, 1, 0.5)], start=datetime.date(2026, 3, 10))
    may = rating_list_publish("standard", MAY).rating_list
    assert not entry(may, idle).inactive
    assert entry(may, idle).last_game_date == datetime.date(2026, 3, 12)
    assert PlayerRating.objects.get(player=idle).inactive is False


def test_a_rating_that_falls_below_the_floor_is_unrated_on_the_list():
    bimonthly_policy()
    weak, *others = players(5)
    starting_list(JAN, {weak: 1410, **dict.fromkeys(others, 1410)})
    event_with_games([weak, *others], [(0, i, 0.0) for i in range(1, 5)], start=datetime.date(2026, 1, 10))
    mar = rating_list_publish("standard", MAR).rating_list
    dropped = entry(mar, weak)
    assert dropped.change == -40  # 4 losses against equals, K 20
    assert dropped.rating is None
    assert dropped.k_factor is None  # 1370 < 1400 (B.02 7.2)
    assert dropped.dropped_below_floor
    assert mar.dropped_count == 1
    assert PlayerRating.objects.get(player=weak).rating is None


def test_a_newcomer_pool_carries_over_lists_until_five_games_and_expires_after_26_months():
    bimonthly_policy()
    newcomer, expired, kept, *rated = players(8)
    jan = starting_list(JAN, dict.fromkeys(rated, 1800))
    # pools carried by the January list: one started in Sep 2023 (outside 26 months of May 2026), one in 2025
    RatingListEntry.objects.bulk_create(
        [
            RatingListEntry(
                rating_list=jan,
                player=expired,
                pool_games=4,
                pool_opponent_sum=7200,
                pool_score=2,
                pool_events=1,
                pool_since=datetime.date(2023, 9, 1),
            ),
            RatingListEntry(
                rating_list=jan,
                player=kept,
                pool_games=4,
                pool_opponent_sum=7200,
                pool_score=2,
                pool_events=1,
                pool_since=datetime.date(2025, 9, 1),
            ),
        ]
    )
    event_with_games([newcomer, *rated[:3]], [(0, 1, 1.0), (2, 0, 0.5), (0, 3, 0.0)], start=datetime.date(2026, 1, 10))
    event_with_games([expired, kept, *rated[3:]], [(0, 2, 0.5), (1, 3, 0.5)], start=datetime.date(2026, 1, 20))
    mar = rating_list_publish("standard", MAR).rating_list
    pool = entry(mar, newcomer)
    assert (pool.rating, pool.pool_games, pool.pool_score, pool.pool_since) == (None, 3, 1.5, JAN)
    assert entry(mar, kept).rating is not None
    assert entry(mar, kept).is_new_rating  # 4 + 1 games (B.02 7.1.4)
    restarted = entry(mar, expired)
    assert (restarted.rating, restarted.pool_games, restarted.pool_since) == (None, 1, JAN)

    event_with_games([newcomer, *rated[:2]], [(0, 1, 0.5), (2, 0, 0.5)], start=datetime.date(2026, 3, 10))
    may = rating_list_publish("standard", MAY).rating_list
    rated_now = entry(may, newcomer)
    assert rated_now.is_new_rating
    assert rated_now.pool_games == 0
    assert rated_now.pool_since is None
    # B.02 8.2: Ra with two hypothetical 1800 draws; p = (2.5 + 1) / 7 = 50 % -> dp 0
    assert rated_now.rating == 1800 + 0
    assert rated_now.k_factor == 40  # a new player: 40 until 30 games
