"""copy_columns stores exactly what copy_rows stores for the same values, on SQLite (through copy_rows) and on
PostgreSQL (COPY's binary format written by NumPy): NULLs, dates, text beyond ASCII, JSON documents, chunks."""

import datetime
import json

import numpy as np
import pytest
from django.db import connection, transaction

from core.bulk import JsonText, copy_columns, copy_rows
from core.bulk import columns as bulk_columns
from ratings.models import RatingChange, RatingListEntry
from tests.core.test_bulk_copy import make_list
from tests.factories import make_event, make_player

pytestmark = pytest.mark.django_db

ENTRY_COLUMNS = (
    "player_id",
    "rating",
    "k_factor",
    "change",
    "inactive",
    "pool_since",
    "last_game_date",
    "birth_year",
    "pool_score",
    "rated_games_total",
    "title",
    "federation",
    "other_titles",
    "sex",
)


def entry_columns(players) -> dict:
    """Every kind of value an entry column holds, NULLs and text beyond ASCII (2, 3 and 4 UTF-8 bytes)."""
    nat = np.datetime64("NaT")
    return {
        "player_id": np.array([p.pk for p in players], dtype=np.int64),
        "rating": np.array([2412.0, np.nan, 1399.6, 2851.0]),  # floats into a smallint: rounded, NaN empty
        "k_factor": np.array([10.0, np.nan, 40.0, 10.0]),
        "change": np.array([-7.0, np.nan, 0.0, 12.0]),
        "inactive": np.array([False, True, False, False]),
        "pool_since": np.array([nat, "2025-05-01", nat, "1999-12-31"], dtype="datetime64[D]"),
        "last_game_date": np.array(["2026-02-20", nat, "2000-01-01", "2026-01-31"], dtype="datetime64[D]"),
        "birth_year": np.array([1990.0, np.nan, 2012.0, 1975.0]),
        "pool_score": np.array([0.0, 2.5, 1e-9, 0.5]),
        "rated_games_total": np.array([30, 0, 9, 1200], dtype=np.int64),
        "title": np.array(["IM", "", "GM", "WGM"], dtype=object),
        "federation": np.array(["ESP", "", "FRA", "NOR"], dtype=object),
        "other_titles": np.array(["FA,IA", "", "Ñandú ü €", "IO 🏆"], dtype=object),
        "sex": np.array(["M", "F", "", "M"], dtype=object),
    }


def stored_entries(rating_list) -> list[tuple]:
    entries = RatingListEntry.objects.filter(rating_list=rating_list).order_by("player_id")
    return list(entries.values_list(*ENTRY_COLUMNS))


def as_rows(columns: dict) -> list[tuple]:
    """The same values as copy_rows takes them (Python values, None for NULL)."""

    def python(name, value):
        if isinstance(value, np.datetime64):
            return None if np.isnat(value) else value.astype(datetime.date)
        if isinstance(value, float | np.floating):
            if np.isnan(value):
                return None
            return float(value) if name == "pool_score" else round(value)
        return value.item() if isinstance(value, np.generic) else value

    names = list(columns)
    return [tuple(python(name, columns[name][i]) for name in names) for i in range(len(columns["player_id"]))]


def test_copy_columns_stores_what_copy_rows_stores_for_the_same_values(monkeypatch):
    monkeypatch.setattr(bulk_columns, "ENCODE_ROWS", 3)  # two chunks for four rows
    players = [make_player() for _ in range(4)]
    columns = entry_columns(players)
    by_columns, by_rows = make_list(), make_list(datetime.date(2026, 5, 1))

    assert copy_columns(RatingListEntry, {"rating_list_id": np.full(4, by_columns.pk), **columns}) == 4
    copy_rows(RatingListEntry, ("rating_list_id", *columns), [(by_rows.pk, *row) for row in as_rows(columns)])

    stored = stored_entries(by_columns)
    assert stored == stored_entries(by_rows)
    assert stored[0][1:4] == (2412, 10, -7)
    assert stored[1][1:4] == (None, None, None)
    assert stored[2][1] == 1400  # rounded
    assert stored[2][12] == "Ñandú ü €"
    assert stored[3][12] == "IO 🏆"
    assert stored[3][5] == datetime.date(1999, 12, 31)
    assert stored[2][6] == datetime.date(2000, 1, 1)


def test_copy_columns_writes_json_documents_and_fills_the_orm_defaults():
    rating_list, event = make_list(), make_event()
    players = [make_player() for _ in range(3)]
    lines = [[{"game": i, "score": 0.5, "opponent": "Ñ"}] for i in range(3)]
    details = [JsonText(json.dumps(line)) for line in lines[:2]] + [lines[2]]  # text, or a Python value
    count = copy_columns(
        RatingChange,
        {
            "rating_list_id": np.full(3, rating_list.pk),
            "player_id": np.array([p.pk for p in players]),
            "event_id": np.full(3, event.pk),
            "details": details,
            "rating_before": np.array([2400.0, np.nan, 1500.0]),
            "k_factor": np.array([10.0, 40.0, np.nan]),
            "games": np.array([1, 1, 1]),
            "score": np.array([1.0, 0.5, 0.0]),
            "expected_score": np.array([0.64, 0.5, 0.36]),
            "change": np.array([3.6, 0.0, -7.2]),
        },
    )
    assert count == 3
    stored = list(RatingChange.objects.order_by("player_id").values_list("details", "rating_before", "k_factor"))
    assert stored == [(lines[0], 2400, 10.0), (lines[1], None, 40.0), (lines[2], 1500, None)]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="PostgreSQL only: its smallint holds -32768..32767 and COPY would refuse the row; SQLite stores any "
    "integer in the column, as the ORM's INSERT would",
)
def test_a_value_too_large_for_its_column_is_refused_by_name_and_nothing_is_written():
    rating_list, player = make_list(), make_player()
    with pytest.raises(ValueError, match=r"RatingListEntry\.rating: 70000"), transaction.atomic():
        copy_columns(
            RatingListEntry,
            {
                "rating_list_id": np.array([rating_list.pk]),
                "player_id": np.array([player.pk]),
                "rating": np.array([70000.0]),
            },
        )
    assert not RatingListEntry.objects.exists()


def test_columns_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="differ in length"):
        copy_columns(RatingListEntry, {"rating_list_id": np.array([1, 2]), "player_id": np.array([1])})


def test_no_rows_writes_nothing():
    assert copy_columns(RatingListEntry, {"rating_list_id": np.zeros(0), "player_id": np.zeros(0)}) == 0
    assert not RatingListEntry.objects.exists()
