"""Migration 0011 rewrites stored rating-change details under the engine's game-line names, and back."""

import datetime
import importlib
from types import SimpleNamespace

import pytest
from django.db import connection

from ratings.engine.game_line import STORED_LINE_FIELDS
from ratings.models import RatingChange, RatingList
from tests.ratings.scenarios import JAN, bimonthly_policy, players, round_robin, starting_list

migration = importlib.import_module("ratings.migrations.0011_rating_change_details_game_line_names")

OLD_LINE = {
    "game": 7,
    "round": 1,
    "colour": "white",
    "opponent": 5000001,
    "opponent_rating": 2700.0,
    "opponent_rating_used": 2500.0,
    "capped": True,
    "difference": -400.0,
    "expected_score": 0.08,
    "score": 1.0,
    "delta": 0.92,
    "change": 9.2,
    "counted": "rated",
}
NEW_LINE = {
    "game": 7,
    "round": 1,
    "colour": "white",
    "opponent": 5000001,
    "opponent_rating": 2700.0,
    "opponent_rating_used": 2500.0,
    "capped": True,
    "difference": -400.0,
    "expected_score": 0.08,
    "score": 1.0,
    "rated": True,
    "rating_change": 0.92,
    "weighted_change": 9.2,
    "counted": True,
}


def old(**changes):
    return {**OLD_LINE, **changes}


def run(direction) -> None:
    migration.rewrite(direction)(None, SimpleNamespace(connection=connection))


def test_a_migrated_line_has_exactly_the_engines_names_in_order():
    assert list(migration.line_forward(OLD_LINE)) == list(STORED_LINE_FIELDS)
    assert migration.line_forward(OLD_LINE) == NEW_LINE


@pytest.mark.parametrize(
    ("counted", "rated", "counted_flag"),
    [("rated", True, True), ("pooled", False, True), ("not rated", False, False)],
)
def test_counted_becomes_the_rated_and_counted_flags_and_back(counted, rated, counted_flag):
    line = migration.line_forward(old(counted=counted, delta=None, change=0.0))
    assert (line["rated"], line["counted"]) == (rated, counted_flag)
    assert migration.line_backward(line) == old(counted=counted, delta=None, change=0.0)


@pytest.mark.django_db
def test_stored_details_are_rewritten_and_restored_on_this_database():
    bimonthly_policy()
    group = players(3)
    starting_list(JAN, {group[0]: 2000, group[1]: 1900, group[2]: 1800})
    event = round_robin(group[:2], start=datetime.date(2026, 1, 10))
    rating_list = RatingList.objects.get()
    before = {
        group[0].pk: [old(), old(game=8, round=2, counted="pooled", delta=None, change=0.0)],
        group[1].pk: [],
        group[2].pk: [{"game": 9, "score": 0.5}],  # a line of another shape keeps its keys
    }
    RatingChange.objects.bulk_create(
        RatingChange(
            rating_list=rating_list, player_id=pk, event=event, games=1, score=1, expected_score=1, change=0, details=d
        )
        for pk, d in before.items()
    )
    run(migration.line_forward)
    after = {c.player_id: c.details for c in RatingChange.objects.all()}
    assert after[group[0].pk][0] == NEW_LINE
    assert after[group[0].pk][1]["rating_change"] is None
    assert after[group[0].pk][1]["rated"] is False
    assert after[group[1].pk] == []
    assert after[group[2].pk] == [{"game": 9, "score": 0.5}]
    run(migration.line_backward)
    assert {c.player_id: c.details for c in RatingChange.objects.all()} == before
    if connection.vendor == "postgresql":  # still json (migration 0010), not text
        with connection.cursor() as cursor:
            cursor.execute("SELECT DISTINCT pg_typeof(details)::text FROM ratings_ratingchange")
            assert cursor.fetchall() == [("json",)]
