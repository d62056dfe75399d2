"""The order stored with a list: position (its lines, 1..rated, by rating then player), world and federation
rank. Written by the publication (NumPy), by ratings.services.list_order for FIDE imports (SQL window
functions) and by migration 0008 for lists written before positions existed; the three must agree."""

import datetime
import io

import pytest

from ratings.fide_list import FideListRating, FideListRow, write_fide_list_txt
from ratings.models import PlayerRating, RatingList, RatingListEntry
from ratings.services import rating_list_publish
from ratings.services.fide_list_import import fide_list_import
from ratings.services.list_order import list_order_store
from tests.factories import make_federation
from tests.ratings.scenarios import JAN, MAR, bimonthly_policy, players, round_robin, starting_list

pytestmark = pytest.mark.django_db

ORDER = ("position", "rank", "federation_rank")


def expected_order(rating_list: RatingList) -> dict[int, tuple]:
    """player id -> (position, rank, federation rank), from the definitions, in Python."""
    entries = list(RatingListEntry.objects.filter(rating_list=rating_list))
    rated = sorted((e for e in entries if e.rating is not None), key=lambda e: (-e.rating, e.player_id))
    active = [e for e in rated if not e.inactive]
    expected = {e.player_id: (None, None, None) for e in entries}
    for position, entry in enumerate(rated, 1):
        rank = federation_rank = None
        if not entry.inactive:
            above = [o for o in active if o.rating > entry.rating]
            rank = len(above) + 1
            if entry.federation:
                federation_rank = len([o for o in above if o.federation == entry.federation]) + 1
        expected[entry.player_id] = (position, rank, federation_rank)
    return expected


def stored_order(rating_list: RatingList) -> dict[int, tuple]:
    return {
        row[0]: row[1:]
        for row in RatingListEntry.objects.filter(rating_list=rating_list).values_list("player_id", *ORDER)
    }


def published_with_ties_inactive_and_unrated() -> RatingList:
    bimonthly_policy()
    esp, fra = make_federation("ESP", "Spain"), make_federation("FRA", "France")
    group = players(5, federation=esp) + players(3, federation=fra) + players(2, federation=None)
    ratings = [2100, 2000, 2000, None, 2000, 2300, 1900, 2000, 2200, 1900]
    starting_list(JAN, dict(zip(group, ratings, strict=True)))
    RatingListEntry.objects.filter(player=group[5]).update(last_game_date=JAN - datetime.timedelta(days=400))
    round_robin(group[:3], start=datetime.date(2026, 1, 10))
    return rating_list_publish("standard", MAR).rating_list


def test_a_published_list_stores_positions_and_ranks_by_their_definitions():
    rating_list = published_with_ties_inactive_and_unrated()
    stored = stored_order(rating_list)
    assert stored == expected_order(rating_list)
    positions = sorted(p for p, _, _ in stored.values() if p is not None)
    assert positions == list(range(1, rating_list.rated_count + 1))
    assert any(rank is None and position is not None for position, rank, _ in stored.values())  # inactive
    assert len({rank for _, rank, _ in stored.values() if rank is not None}) < rating_list.rated_count  # ties


def test_the_database_computes_the_same_order_as_the_publication():
    rating_list = published_with_ties_inactive_and_unrated()
    published = stored_order(rating_list)
    ranks = set(PlayerRating.objects.values_list("player_id", "rank", "federation_rank"))
    RatingListEntry.objects.update(position=None, rank=None, federation_rank=None)
    assert not PlayerRating.objects.filter(rank__isnull=False).exists()  # current ratings read the entries

    list_order_store([rating_list.pk])

    assert stored_order(rating_list) == published
    assert set(PlayerRating.objects.values_list("player_id", "rank", "federation_rank")) == ranks


def test_an_imported_fide_list_gets_positions_and_ranks():
    def line(fide_id, federation, rating, flag=""):
        return FideListRow(
            fide_id=fide_id,
            name=f"Player, {fide_id}",
            surname="Player",
            given_names=str(fide_id),
            federation=federation,
            sex="M",
            flag=flag,
            standard=FideListRating(rating, 0, 20),
        )

    rows = [
        line(11, "NOR", 2500),
        line(12, "ESP", 2600),
        line(13, "NOR", 2500),
        line(14, "ESP", 2700, "i"),
        line(15, "NOR", 2400),
    ]
    outcome = fide_list_import(
        io.BytesIO("".join(write_fide_list_txt(rows, "standard")).encode("ascii")),
        list_date=datetime.date(2026, 10, 1),
    )
    rating_list = outcome.rating_lists["standard"]
    stored = stored_order(rating_list)
    assert stored == expected_order(rating_list)
    by_id = {e.player.id_number: e for e in RatingListEntry.objects.select_related("player")}
    assert [by_id[i].position for i in (14, 12, 11, 13, 15)] == [1, 2, 3, 4, 5]
    assert [by_id[i].rank for i in (14, 12, 11, 13, 15)] == [None, 1, 2, 2, 4]
    assert [by_id[i].federation_rank for i in (12, 11, 13, 15)] == [1, 1, 1, 3]
    current = PlayerRating.objects.get(player__id_number=15)
    assert (current.rank, current.federation_rank) == (4, 3)
