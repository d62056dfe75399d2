"""The pool ledger balances to the point on every list, its parts match an independent count, and it is read
with a fixed number of queries."""

import datetime

from players.models import Player
from ratings.models import PoolLedgerRecord, RatingList, RatingListEntry
from ratings.services.pool import pool_history, pool_ledgers, pool_ledgers_compute


def independent(rating_list: RatingList) -> dict:
    """The ledger's parts counted in Python from the entries (the definitions of ratings.services.pool)."""
    here = dict(rating_list.entries.filter(rating__isnull=False).values_list("player_id", "rating"))
    there = {}
    if rating_list.previous_id:
        there = dict(
            RatingListEntry.objects.filter(rating_list_id=rating_list.previous_id, rating__isnull=False).values_list(
                "player_id", "rating"
            )
        )
    stable = here.keys() & there.keys()
    ratings = sorted(here.values())
    return {
        "previous_total": sum(there.values()),
        "total": sum(here.values()),
        "newcomers": sum(here[p] for p in here.keys() - there.keys()),
        "leavers": sum(there[p] for p in there.keys() - here.keys()),
        "from_games": sum(here[p] - there[p] for p in stable),
        "rated": len(here),
        "at_least_2000": sum(r >= 2000 for r in ratings),
        "median": (ratings[(len(ratings) - 1) // 2] + ratings[len(ratings) // 2]) / 2,
        "stable_players": len(stable),
    }


def test_the_ledger_balances_on_every_list_of_a_simulation(simulated):
    lists = list(RatingList.objects.current("standard").order_by("list_date"))
    assert len(lists) == len(simulated.list_dates) + 1  # the imported starting list and the published ones
    ledgers = pool_history("standard")
    assert [ledger.list_date for ledger in ledgers] == [rl.list_date for rl in lists]
    for rating_list, ledger in zip(lists, ledgers, strict=True):
        assert ledger.balanced, ledger
        assert (
            ledger.previous_total + ledger.from_games + ledger.newcomers - ledger.leavers + ledger.adjustments
            == ledger.total
        )
        mine = {key: getattr(ledger, key) for key in independent(rating_list)}
        assert mine == independent(rating_list)
        assert ledger.adjustments == 0
        assert ledger.mean == round(ledger.total / ledger.rated, 2)
    first, later = ledgers[0], ledgers[1:]
    assert first.previous_total == 0
    assert first.newcomers == first.total  # the starting list: all newcomers
    assert all(ledger.from_games != 0 and ledger.stable_players > 0 for ledger in later)
    assert any(ledger.newcomer_players > 0 for ledger in later)  # newcomers got first ratings
    # from_games is the sum of the published changes of the players rated on both lists
    for rating_list, ledger in zip(lists[1:], later, strict=True):
        previous_rated = RatingListEntry.objects.filter(
            rating_list_id=rating_list.previous_id, rating__isnull=False
        ).values("player_id")
        changes = rating_list.entries.filter(rating__isnull=False, player_id__in=previous_rated).values_list(
            "change", flat=True
        )
        assert ledger.from_games == sum(c or 0 for c in changes)


def test_players_below_the_floor_and_merged_players_are_leavers(simulated):
    rating_list = RatingList.objects.current("standard").order_by("-list_date").first()
    before = pool_ledgers_compute([rating_list])[0]
    # a player who fell below the floor: entry kept without a rating -> a leaver with the previous rating
    rated_before = RatingListEntry.objects.filter(rating_list_id=rating_list.previous_id, rating__isnull=False)
    entry = rating_list.entries.filter(rating__isnull=False, player_id__in=rated_before.values("player_id")).first()
    previous_rating = RatingListEntry.objects.get(rating_list_id=rating_list.previous_id, player_id=entry.player_id)
    RatingListEntry.objects.filter(pk=entry.pk).update(rating=None, dropped_below_floor=True)
    after = pool_ledgers_compute([rating_list])[0]
    assert after.balanced
    assert after.leavers == before.leavers + previous_rating.rating
    assert after.leaver_players == before.leaver_players + 1
    assert after.total == before.total - entry.rating
    # a player removed from the list (e.g. merged away with no entry left) is a leaver too
    other = rating_list.entries.filter(rating__isnull=False).exclude(pk=entry.pk).first()
    RatingListEntry.objects.filter(pk=other.pk).delete()
    assert pool_ledgers_compute([rating_list])[0].balanced


def test_the_ledger_is_read_in_a_fixed_number_of_queries_and_kept(simulated, django_assert_num_queries):
    lists = list(RatingList.objects.current("standard"))
    with django_assert_num_queries(4):
        computed = pool_ledgers_compute(lists)
    with django_assert_num_queries(1 + 4 + 1):  # the kept ones (none), the computation, keeping them
        first = pool_ledgers(lists)
    assert PoolLedgerRecord.objects.count() == len(lists)
    with django_assert_num_queries(1):  # from now on: read
        again = pool_ledgers(lists)
    assert first == again == computed
    with django_assert_num_queries(1):
        pool_ledgers(lists[:1])


def test_a_type_without_lists_has_no_ledgers(db):
    assert pool_history("blitz") == []
    assert Player.objects.count() == 0


def test_a_merged_duplicate_leaves_the_pool_on_the_next_list(db):
    from django.contrib.auth import get_user_model

    from players.services import player_merge
    from ratings.selectors import rating_list_current
    from ratings.services import rating_list_publish
    from tests.ratings.scenarios import JAN, MAR, MAY, bimonthly_policy, event_with_games, players, starting_list

    bimonthly_policy()
    a, b, duplicate = players(3)
    starting_list(JAN, {a: 2000, b: 1900, duplicate: 1950}, rated_games_total=80)
    event_with_games([a, b], [(0, 1, 1.0)], start=datetime.date(2026, 1, 10), name="January")
    rating_list_publish("standard", MAR)
    official = get_user_model().objects.create(username="officer", is_superuser=True, is_staff=True)
    player_merge(a, duplicate, user=official, reason="same person registered twice")
    event_with_games([a, b], [(1, 0, 0.5)], start=datetime.date(2026, 3, 10), name="March")
    rating_list_publish("standard", MAY)
    march, may = pool_ledgers([rating_list_current("standard", MAR), rating_list_current("standard", MAY)])
    assert march.leavers == 0
    assert march.rated == 3
    assert march.total == 2000 + 1900 + 1950 + march.from_games
    assert may.leavers == 1950
    assert may.leaver_players == 1
    assert may.rated == 2
    assert may.balanced
    assert march.balanced  # the duplicate's line is gone
