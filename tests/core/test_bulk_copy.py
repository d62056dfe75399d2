"""copy_rows and read_columns store and read exactly what the ORM would, on SQLite and PostgreSQL alike."""

import datetime

import numpy as np
import pytest

from core.bulk import copy_rows, read_columns, reserve_ids
from players.models import Player
from ratings.models import RatingChange, RatingList, RatingListEntry, RatingListStatus
from tests.factories import make_event, make_federation, make_player

pytestmark = pytest.mark.django_db

MAR = datetime.date(2026, 3, 1)


def make_list(list_date: datetime.date = MAR) -> RatingList:
    return RatingList.objects.create(
        rating_type="standard",
        list_date=list_date,
        closing_date=list_date - datetime.timedelta(days=7),
        status=RatingListStatus.DRAFT,
        rules_preset="fide-2024",
        rules={},
    )


def test_copy_rows_writes_every_value_the_orm_reads_back_including_nulls_dates_and_json():
    rating_list = make_list()
    players = [make_player(), make_player(), make_player()]
    event = make_event()
    entry_fields = (
        "rating_list",
        "player_id",
        "rating",
        "k_factor",
        "inactive",
        "pool_since",
        "birth_year",
        "pool_score",
        "title",
        "federation",
    )
    rows = [
        (rating_list.pk, players[0].pk, 2412, 10, False, None, 1990, 0.0, "IM", "ESP"),
        (rating_list.pk, players[1].pk, None, None, True, datetime.date(2025, 5, 1), None, 2.5, "", ""),
        (rating_list.pk, players[2].pk, 1400, 40, False, None, 2012, 0.0, "", "FRA"),
    ]
    assert copy_rows(RatingListEntry, entry_fields, iter(rows)) == 3
    stored = sorted(
        RatingListEntry.objects.values_list("rating_list_id", *entry_fields[1:]),
        key=lambda row: row[1],
    )
    assert stored == sorted(rows, key=lambda row: row[1])
    details = [{"game": 7, "opponent_rating": None, "capped": True, "expected_score": 0.64, "colour": "white"}]
    copy_rows(
        RatingChange,
        (
            "rating_list_id",
            "player",
            "event_id",
            "rating_before",
            "k_factor",
            "games",
            "score",
            "expected_score",
            "change",
            "details",
        ),
        [(rating_list.pk, players[0].pk, event.pk, 2400, 10.0, 1, 1.0, 0.64, 3.6, details)],
    )
    change = RatingChange.objects.get()
    assert change.details == details
    assert change.k_factor == 10.0
    assert change.rating_before == 2400


def test_copy_rows_of_nothing_writes_nothing():
    assert copy_rows(RatingListEntry, ("rating_list_id", "player_id"), []) == 0
    assert not RatingListEntry.objects.exists()


def test_copy_rows_names_an_unknown_column():
    with pytest.raises(ValueError, match="RatingListEntry has no column 'colour'"):
        copy_rows(RatingListEntry, ("colour",), [("white",)])


def test_read_columns_gives_the_queryset_rows_in_order_with_nulls_as_sentinels():
    rating_list = make_list()
    esp = make_federation()
    players = [make_player(federation=esp) for _ in range(5)]
    RatingListEntry.objects.bulk_create(
        [
            RatingListEntry(
                rating_list=rating_list,
                player=player,
                rating=None if i == 1 else 1500 + 100 * i,
                k_factor=None if i == 1 else 20,
                inactive=i == 3,
                pool_since=datetime.date(2025, 11, 1) if i == 1 else None,
                pool_score=0.5 * i,
            )
            for i, player in enumerate(players)
        ]
    )
    query = RatingListEntry.objects.filter(rating_list=rating_list, player__federation="ESP").order_by("-player_id")
    columns = read_columns(
        query,
        {
            "player_id": "int64",
            "player__id_number": "int64",
            "rating": "float64",
            "k_factor": ("int16", -1),
            "inactive": "bool",
            "pool_since": "date",
            "pool_score": "float64",
        },
    )
    newest_first = players[::-1]
    assert columns["player_id"].tolist() == [p.pk for p in newest_first]
    assert columns["player__id_number"].tolist() == [p.id_number for p in newest_first]
    assert columns["rating"].dtype == np.float64
    assert np.array_equal(columns["rating"], [1900, 1800, 1700, np.nan, 1500], equal_nan=True)
    assert columns["k_factor"].tolist() == [20, 20, 20, -1, 20]
    assert columns["k_factor"].dtype == np.int16
    assert columns["inactive"].tolist() == [False, True, False, False, False]
    assert np.isnat(columns["pool_since"]).tolist() == [True, True, True, False, True]
    assert columns["pool_since"][3] == np.datetime64("2025-11-01")
    assert columns["pool_score"].tolist() == [2.0, 1.5, 1.0, 0.5, 0.0]


def test_read_columns_of_an_empty_queryset_gives_empty_arrays_of_the_kind():
    columns = read_columns(Player.objects.none(), {"id": "int64", "birth_date": "date"})
    assert columns["id"].shape == (0,)
    assert columns["id"].dtype == np.int64
    assert columns["birth_date"].dtype == np.dtype("datetime64[D]")
    columns = read_columns(Player.objects.filter(id_number=-5), {"id": "int64"})
    assert columns["id"].size == 0


def test_read_columns_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="'id' has unknown kind 'uuid'"):
        read_columns(Player.objects.all(), {"id": "uuid"})


def test_read_columns_reads_text_with_control_characters_and_nulls_exactly():
    esp = make_federation()
    awkward = ["plain", "tab\there", "new\nline", "back\\slash \\N", "", "Ñúñez"]
    players = [
        make_player(surname=surname, given_names="", federation=None if i == 2 else esp, birth_year=1990 + i)
        for i, surname in enumerate(awkward)
    ]
    columns = read_columns(
        Player.objects.filter(pk__in=[p.pk for p in players]).order_by("pk"),
        {"id": "int64", "surname": "text", "federation_id": "text", "birth_year": ("int32", -1)},
    )
    assert columns["id"].tolist() == [p.pk for p in players]
    assert columns["surname"].tolist() == awkward
    assert columns["federation_id"].tolist() == ["ESP", "ESP", None, "ESP", "ESP", "ESP"]
    assert columns["birth_year"].tolist() == [1990, 1991, 1992, 1993, 1994, 1995]


def test_reserved_ids_are_new_and_not_handed_out_again():
    first = make_player()
    ids = reserve_ids(Player, 3)
    assert len(set(ids.tolist())) == 3
    assert ids.min() > first.pk
    again = reserve_ids(Player, 2)
    assert not set(again.tolist()) & set(ids.tolist())
    copy_rows(
        Player,
        ("id", "id_number", "surname", "search_name"),
        [(int(pk), 9_000_000 + i, "Copied", "COPIED") for i, pk in enumerate(ids)],
    )
    assert set(Player.objects.filter(surname="Copied").values_list("pk", flat=True)) == set(ids.tolist())
    later = make_player()  # the ORM's own inserts never collide with reserved keys
    assert later.pk not in set(ids.tolist()) | set(again.tolist())
    assert reserve_ids(Player, 0).size == 0


def test_read_columns_reads_short_text_as_characters_next_to_binary_numbers():
    esp = make_federation()
    titles = ["GM", "", "ÑÜ", "WGM", "x"]
    players = [make_player(title=title, federation=None if i == 1 else esp) for i, title in enumerate(titles)]
    columns = read_columns(
        Player.objects.filter(pk__in=[p.pk for p in players]).order_by("pk"),
        {"id": "int64", "title": ("chars", 3), "federation_id": ("chars", 3), "sex": ("chars", 1)},
    )
    assert columns["id"].tolist() == [p.pk for p in players]
    assert columns["title"].tolist() == titles
    assert columns["federation_id"].tolist() == ["ESP", None, "ESP", "ESP", "ESP"]
    assert columns["sex"].tolist() == ["M"] * 5
    empty = read_columns(Player.objects.filter(id_number=-1), {"title": ("chars", 3)})
    assert empty["title"].shape == (0,)
    with pytest.raises(ValueError, match="give the most characters"):
        read_columns(Player.objects.all(), {"title": "chars"})


def test_read_columns_in_chunks_gives_the_same_rows_in_some_order(monkeypatch):
    from core.bulk import read as bulk_read

    monkeypatch.setattr(bulk_read, "CHUNK_ROWS", 2)  # several chunks from a handful of rows
    rating_list = make_list()
    players = [make_player(title="GM" if i % 3 == 0 else "") for i in range(7)]
    RatingListEntry.objects.bulk_create(
        [
            RatingListEntry(
                rating_list=rating_list,
                player=player,
                rating=None if i == 2 else 1500 + i,
                pool_since=datetime.date(2025, 1, i + 1) if i % 2 else None,
            )
            for i, player in enumerate(players)
        ]
    )
    kinds = {
        "player_id": "int64",
        "rating": "float64",
        "pool_since": "date",
        "player__title": ("chars", 3),
    }
    whole = read_columns(RatingListEntry.objects.order_by("player_id"), kinds)
    chunked = read_columns(RatingListEntry.objects.all(), kinds, chunk_by="player_id")
    order = np.argsort(chunked["player_id"])
    for name in kinds:
        assert chunked[name][order].tolist() == whole[name].tolist() or (
            name == "rating" and np.array_equal(chunked[name][order], whole[name], equal_nan=True)
        )
    assert read_columns(RatingListEntry.objects.none(), kinds, chunk_by="player_id")["player_id"].size == 0
    nothing = read_columns(RatingListEntry.objects.filter(rating_list_id=-1), kinds, chunk_by="player_id")
    assert nothing["player_id"].size == 0
    assert nothing["pool_since"].dtype == np.dtype("datetime64[D]")
    with pytest.raises(ValueError, match="chunk_by 'pk' must be one of the columns read"):
        read_columns(RatingListEntry.objects.all(), kinds, chunk_by="pk")
