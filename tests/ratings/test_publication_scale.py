"""The bulk paths of list publication (column-wise JSON details, COPY writes) store what was computed."""

import datetime
import json

import numpy as np
import pytest
from django.db import connection

from public.selectors.ratings import player_ratings
from ratings.engine.game_line import STORED_LINE_FIELDS
from ratings.fields import expand_lines
from ratings.models import PlayerRating, RatingChange, RatingList, RatingListEntry, current_lists_check_queries
from ratings.services import rating_list_publish
from ratings.services.publication import ChangeDetails
from tests.factories import make_federation
from tests.ratings.scenarios import JAN, MAR, bimonthly_policy, players, round_robin, starting_list


def detail_columns(n: int, rng) -> dict[str, np.ndarray]:
    expected = np.round(rng.random(n), 2)
    expected[3:4] = np.nan  # a pooled game of an unrated player has no PD
    return {
        "game": rng.integers(1, 10**9, n),
        "round": rng.integers(1, 12, n),
        "white": rng.random(n) < 0.5,
        "opponent": rng.integers(10**6, 10**8, n),
        "opponent_rating": np.where(rng.random(n) < 0.2, np.nan, rng.integers(1400, 2800, n).astype(float)),
        "opponent_rating_used": rng.integers(1400, 2800, n).astype(float),
        "capped": rng.random(n) < 0.1,
        "difference": rng.integers(-400, 400, n).astype(float),
        "expected_score": expected,
        "score": rng.choice([0.0, 0.5, 1.0], n),
        "weighted_change": 20 * (rng.choice([0.0, 0.5, 1.0], n) - expected),
        "rated": rng.random(n) < 0.8,
        "pooled": rng.random(n) < 0.5,
    }


def reference_line(c: dict, i: int) -> dict:
    """One line as ratings.engine.game_line names it (the calculation page and the calculator read these)."""

    def number(value):
        return None if value != value else float(value)

    return {
        "game": int(c["game"][i]),
        "round": int(c["round"][i]),
        "colour": "white" if c["white"][i] else "black",
        "opponent": int(c["opponent"][i]),
        "opponent_rating": number(c["opponent_rating"][i]),
        "opponent_rating_used": number(c["opponent_rating_used"][i]),
        "capped": bool(c["capped"][i]),
        "difference": number(c["difference"][i]),
        "expected_score": number(c["expected_score"][i]),
        "score": float(c["score"][i]),
        "rated": bool(c["rated"][i]),
        "rating_change": number(c["score"][i] - c["expected_score"][i]),
        "weighted_change": number(c["weighted_change"][i]),
        "counted": bool(c["rated"][i] or c["pooled"][i]),
    }


def test_details_json_has_every_game_line_of_each_change_exactly():
    rng = np.random.default_rng(4)
    columns = detail_columns(40, rng)
    # changes with 3, 0 (no line), 1, 9, 27 lines
    offsets = np.array([0, 3, 3, 4, 13, 40])
    details = ChangeDetails(offsets=offsets, columns=columns)
    texts = details.json_texts(0, 5)
    assert len(texts) == 5
    parsed = [expand_lines(json.loads(text)) for text in texts]
    for row, lines in enumerate(parsed):
        expected = [reference_line(columns, i) for i in range(offsets[row], offsets[row + 1])]
        assert lines == expected
        assert all(list(line) == list(STORED_LINE_FIELDS) for line in lines)
    assert parsed[1] == []
    # a slice in the middle gives the same documents as the whole
    assert details.json_texts(2, 4) == texts[2:4]
    # floats keep every digit (json.dumps spells them with repr)
    line = parsed[3][0]
    assert line["weighted_change"] == float(columns["weighted_change"][4])
    assert line["expected_score"] == columns["expected_score"][4]


def test_details_json_of_changes_without_lines():
    details = ChangeDetails(offsets=np.array([0, 0, 0]), columns=detail_columns(0, np.random.default_rng(1)))
    assert details.json_texts(0, 2) == ["[]", "[]"]


@pytest.mark.django_db
def test_a_published_list_stores_world_and_federation_ranks_of_active_rated_players():
    bimonthly_policy()
    esp, fra = make_federation("ESP", "Spain"), make_federation("FRA", "France")
    group = players(4, federation=esp) + players(3, federation=fra) + players(1, federation=None)
    ratings = dict(zip(group, [2100, 2000, 2000, None, 2300, 1900, 2000, 2200], strict=True))
    starting_list(JAN, ratings)
    resting = group[4]  # FRA's best: inactive on the new list, so ranked nowhere
    RatingListEntry.objects.filter(player=resting).update(last_game_date=JAN - datetime.timedelta(days=400))
    round_robin(group[:3], start=datetime.date(2026, 1, 10))
    rating_list_publish("standard", MAR)
    entries = {e.player_id: e for e in RatingListEntry.objects.filter(rating_list__list_date=MAR)}
    active = [e for e in entries.values() if e.rating is not None and not e.inactive]
    assert entries[resting.pk].inactive
    assert entries[resting.pk].rank is None
    assert entries[group[3].pk].rank is None  # unrated
    for entry in active:
        above = [o for o in active if o.rating > entry.rating]
        assert entry.rank == len(above) + 1
        if entry.federation:
            assert entry.federation_rank == len([o for o in above if o.federation == entry.federation]) + 1
        else:
            assert entry.federation_rank is None
    assert {(r.player_id, r.rank, r.federation_rank) for r in PlayerRating.objects.all()} == {
        (e.player_id, e.rank, e.federation_rank) for e in entries.values()
    }


@pytest.mark.django_db
def test_a_profile_reads_stored_ranks_instead_of_counting(django_assert_num_queries):
    bimonthly_policy()
    esp = make_federation("ESP", "Spain")
    group = players(5, federation=esp)
    starting_list(JAN, dict(zip(group, [2100, 2050, 2000, 1950, 1900], strict=True)))
    round_robin(group[:4], start=datetime.date(2026, 1, 10))
    rating_list_publish("standard", MAR)
    entry = RatingListEntry.objects.get(rating_list__list_date=MAR, player=group[2])
    # the PlayerRating rows with their list (on PostgreSQL after their bound's check); no count of the players above
    with django_assert_num_queries(1 + current_lists_check_queries()):
        ratings = player_ratings(group[2])
    assert ratings["standard"]["world_rank"] == entry.rank
    assert ratings["standard"]["federation_rank"] == entry.federation_rank


def test_details_json_keeps_each_key_once_per_change():
    columns = detail_columns(9, np.random.default_rng(2))
    (text,) = ChangeDetails(offsets=np.array([0, 9]), columns=columns).json_texts(0, 1)
    document = json.loads(text)
    assert document["columns"] == list(STORED_LINE_FIELDS)
    assert len(document["rows"]) == 9
    assert text.count('"expected_score"') == 1


@pytest.mark.django_db
def test_game_lines_read_back_as_the_list_of_dicts_written_in_either_storage_form():
    bimonthly_policy()
    group = players(2)
    starting_list(JAN, {group[0]: 2000, group[1]: 1900})
    event = round_robin(group, start=datetime.date(2026, 1, 10))
    rating_list = RatingList.objects.get()
    same_keys = [{"game": 1, "round": 1, "score": 0.5}, {"game": 2, "round": 2, "score": 1.0}]
    mixed_keys = [{"game": 1, "d": 12.0}, {"game": 2, "difference": 3.0, "capped": True}]
    for player, lines in zip(group, (same_keys, mixed_keys), strict=True):
        RatingChange.objects.create(
            rating_list=rating_list,
            player=player,
            event=event,
            games=2,
            score=1.5,
            expected_score=1.0,
            change=5.0,
            details=lines,
        )
    stored = {c.player_id: c.details for c in RatingChange.objects.all()}
    assert stored == {group[0].pk: same_keys, group[1].pk: mixed_keys}
    assert list(RatingChange.objects.order_by("player_id").values_list("details", flat=True)) == [
        same_keys,
        mixed_keys,
    ]
    RatingChange.objects.filter(player=group[0]).update(details=[])
    assert RatingChange.objects.get(player=group[0]).details == []
    if connection.vendor == "postgresql":  # stored as the text written, not decomposed (GameLinesField.db_type)
        with connection.cursor() as cursor:
            cursor.execute("SELECT DISTINCT pg_typeof(details)::text FROM ratings_ratingchange")
            assert cursor.fetchall() == [("json",)]
