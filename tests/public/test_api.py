"""The read-only REST API under /api/v1/ and the public calculator."""

import json

import pytest
from django.core.cache import cache
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.throttling import AnonRateThrottle

from ratings.engine.calculator import calculate_change, calculate_initial_rating
from ratings.engine.presets import get_preset
from tests.public.conftest import LATEST

pytestmark = pytest.mark.django_db


def test_players_search_by_name_prefix_and_id_number(client, federation):
    data = client.get("/api/v1/players/", {"q": "surname000"}).json()
    assert data["count"] == 10
    assert [p["name"] for p in data["results"]] == sorted(p["name"] for p in data["results"])
    one = client.get("/api/v1/players/", {"q": str(federation.star.id_number)}).json()
    assert [p["id_number"] for p in one["results"]] == [federation.star.id_number]
    star = one["results"][0]
    assert star["ratings"]["standard"]["rating"] == federation.ratings[(federation.star.pk, "standard", LATEST)]
    assert star["ratings"]["blitz"] is None
    assert "birth_date" not in star
    assert star["birth_year"] == federation.star.birth_year


def test_players_pages_cover_the_first_window_of_matches_and_say_when_more_matched(client, federation, monkeypatch):
    from core.api import WindowedPagination

    monkeypatch.setattr(WindowedPagination, "window", 7)
    everyone = client.get("/api/v1/players/", {"page_size": 3}).json()
    assert (everyone["count"], everyone["capped"]) == (7, True)  # 12 players: the first 7 by name
    assert len(client.get("/api/v1/players/", {"page_size": 3, "page": 3}).json()["results"]) == 1
    assert client.get("/api/v1/players/", {"page_size": 3, "page": 4}).status_code == 404
    first_seven = [p["name"] for p in client.get("/api/v1/players/", {"page_size": 7}).json()["results"]]
    assert first_seven == sorted(p.name for p in federation.players)[:7]
    french = client.get("/api/v1/players/", {"federation": "fra"}).json()
    expected = sum(1 for p in federation.players if p.federation_id == "FRA")
    assert expected <= 7
    assert (french["count"], french["capped"]) == (expected, False)


def test_players_filter_by_federation_and_reject_a_bad_code(client, federation):
    data = client.get("/api/v1/players/", {"federation": "fra"}).json()
    assert data["count"] == sum(1 for p in federation.players if p.federation_id == "FRA")
    response = client.get("/api/v1/players/", {"federation": "FRANCE"})
    assert response.status_code == 400
    assert "federation" in response.json()


def test_player_detail_has_ranks_k_and_class(client, federation):
    player = federation.players[1]
    data = client.get(f"/api/v1/players/{player.id_number}/").json()
    standard = data["ratings"]["standard"]
    rating = federation.ratings[(player.pk, "standard", LATEST)]
    above = federation.latest.entries.filter(rating__gt=rating, inactive=False).count()
    assert standard["rating"] == rating
    assert standard["world_rank"] == above + 1
    assert standard["k_factor"] == 10
    assert standard["rating_class"]
    assert client.get("/api/v1/players/999999999/").status_code == 404


def test_player_history_lists_every_published_list_newest_first_with_events(client, federation):
    data = client.get(f"/api/v1/players/{federation.star.id_number}/history/").json()
    dates = [(row["list_date"], row["rating_type"]) for row in data["history"]]
    assert len(dates) == len(federation.lists["standard"]) + len(federation.lists["rapid"])
    assert dates[0][0] == "2026-03-01"
    latest = next(row for row in data["history"] if row["rating_type"] == "standard")
    assert [e["event_name"] for e in latest["events"]] == ["Spring Closed"]


def test_rating_lists_newest_first_and_filtered_by_type(client, federation):
    data = client.get("/api/v1/rating-lists/").json()
    assert data["count"] == len(federation.lists["standard"]) + len(federation.lists["rapid"])
    assert data["results"][0]["list_date"] == "2026-03-01"
    assert data["results"][0]["downloads"]["txt"].endswith("/lists/2026-03-01/rapid.txt")
    rapid = client.get("/api/v1/rating-lists/", {"rating_type": "rapid"}).json()
    assert {row["rating_type"] for row in rapid["results"]} == {"rapid"}
    assert client.get("/api/v1/rating-lists/", {"rating_type": "bullet"}).status_code == 400


def test_entries_are_paginated_sorted_and_filtered_like_the_page(client, db):
    from tests.public.conftest import build_federation

    federation = build_federation(players=130, event_players=4, submitted=False)
    first = client.get("/api/v1/rating-lists/2026-03-01/standard/entries/").json()
    assert first["count"] == 129
    assert len(first["results"]) == 100
    assert first["next"]
    second = client.get(first["next"]).json()
    ratings = [e["rating"] for e in first["results"] + second["results"]]
    assert ratings == sorted(ratings, reverse=True)
    women = client.get("/api/v1/rating-lists/2026-03-01/standard/entries/", {"sex": "F", "age_group": "U20"})
    assert women.status_code == 200
    expected = federation.latest.entries.filter(rating__isnull=False, sex="F", birth_year__gte=2006).count()
    assert women.json()["count"] == expected > 0


def test_entries_reject_bad_filters_with_field_errors(client, federation):
    response = client.get(
        "/api/v1/rating-lists/2026-03-01/standard/entries/",
        {"age_group": "U7", "sort": "height", "title": "XX"},
    )
    assert response.status_code == 400
    assert set(response.json()) == {"age_group", "sort", "title"}
    # a blank value or another spelling than the schema's enum is refused too, not read as no filter
    blank = dict.fromkeys(("category", "sex", "age_group", "title", "sort"), "\n")
    response = client.get("/api/v1/rating-lists/2026-03-01/standard/entries/", blank)
    assert response.status_code == 400, response.content
    assert set(response.json()) == set(blank), response.content
    assert client.get("/api/v1/rating-lists/2026-03-01/standard/entries/", {"sex": "f"}).status_code == 400
    assert client.get("/api/v1/rating-lists/2026-05-01/standard/entries/").status_code == 404


def test_events_list_hides_drafts_and_detail_has_the_crosstable(client, federation):
    data = client.get("/api/v1/events/").json()
    assert {e["name"] for e in data["results"]} == {"Spring Closed", "Summer Open"}
    detail = client.get(f"/api/v1/events/{federation.rated_event.pk}/").json()
    assert detail["event"]["rated_on"] == "2026-03-01"
    assert detail["category"] == 5
    standings = detail["standings"]
    assert [row["rank"] for row in standings] == sorted(row["rank"] for row in standings)
    assert all(row["performance"] and row["rating_change"] is not None for row in standings)
    assert len(standings[0]["results"]) == federation.rated_event.rounds


def test_api_is_read_only_and_cacheable(client, federation):
    assert client.post("/api/v1/players/", {}).status_code in (401, 403, 405)
    assert client.delete(f"/api/v1/events/{federation.rated_event.pk}/").status_code in (401, 403, 405)
    response = client.get("/api/v1/rating-lists/")
    assert "public" in response["Cache-Control"]
    assert "max-age=300" in response["Cache-Control"]


def test_anonymous_clients_are_throttled(client, federation, monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})
    cache.clear()
    codes = [client.get("/api/v1/rating-lists/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


# --- calculator -----------------------------------------------------------------------------------------


def post(client, payload):
    return client.post("/api/v1/calculator/", json.dumps(payload), content_type="application/json")


def test_calculator_matches_the_engine_for_a_rated_player(client, db):
    payload = {
        "rules": "fide-2024",
        "rating": 2100,
        "k_factor": 20,
        "games": [
            {"opponent_rating": 2200, "score": 1},
            {"opponent_rating": 1900, "score": 0.5},
            {"opponent_rating": 2600, "score": 0},
        ],
    }
    response = post(client, payload)
    assert response.status_code == 200
    data = response.json()
    expected = calculate_change(
        2100, 20, [2200, 1900, 2600], [1, 0.5, 0], get_preset("fide-2024"), list_date=timezone.localdate()
    ).to_dict()
    assert data["mode"] == "change"
    assert data["calculation"] == expected
    assert data["calculation"]["lines"][2]["capped"] is True  # 2600 counts as 2500 (400-point rule)


def test_calculator_gives_an_initial_rating_for_an_unrated_player(client, db):
    games = [{"opponent_rating": r, "score": s} for r, s in [(1800, 1), (1900, 1), (2000, 0.5), (2100, 0), (2200, 0)]]
    data = post(client, {"games": games}).json()
    expected = calculate_initial_rating(
        [1800, 1900, 2000, 2100, 2200], [1, 1, 0.5, 0, 0], get_preset("fide-2024"), list_date=timezone.localdate()
    )
    assert data["mode"] == "initial"
    assert data["initial_rating"] == expected.to_dict()


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "games"),
        ({"games": []}, "games"),
        ({"games": "1-0"}, "games"),
        ({"games": [{"opponent_rating": 2000, "score": 2}]}, "games"),
        ({"games": [{"opponent_rating": -5, "score": 1}]}, "games"),
        ({"games": [{"score": 1}]}, "games"),
        ({"rating": 2000, "k_factor": 0, "games": [{"opponent_rating": 2000, "score": 1}]}, "k_factor"),
        ({"rating": "strong", "games": [{"opponent_rating": 2000, "score": 1}]}, "rating"),
        ({"rating": 99999, "games": [{"opponent_rating": 2000, "score": 1}]}, "rating"),
        ({"rules": "fide-1850", "games": [{"opponent_rating": 2000, "score": 1}]}, "rules"),
        ({"rating_type": "bullet", "games": [{"opponent_rating": 2000, "score": 1}]}, "rating_type"),
        ({"k_factor": 20, "games": [{"opponent_rating": 2000, "score": 1}]}, "k_factor"),
        ({"rating": 2000, "games": [{"opponent_rating": 2000, "score": 1}] * 201}, "games"),
    ],
)
def test_calculator_rejects_bad_input_with_the_field_at_fault(client, db, payload, field):
    response = post(client, payload)
    assert response.status_code == 400
    assert field in response.json()


def test_calculator_rejects_a_body_that_is_not_json(client, db):
    response = client.post("/api/v1/calculator/", "rating=2000&", content_type="application/json")
    assert response.status_code == 400


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
calculator_like = st.fixed_dictionaries(
    {},
    optional={
        "rules": st.sampled_from(["fide-2024", "fide-2009", "uscf-classic", "elo-normal", "x"]) | json_values,
        "rating": st.integers(-100, 5000) | st.none() | json_values,
        "k_factor": st.floats(-5, 900) | st.none() | json_values,
        "rated_games_total": st.integers(-5, 100) | json_values,
        "birth_year": st.integers(1800, 2200) | st.none(),
        "rating_type": st.sampled_from(["standard", "rapid", "blitz", "x"]),
        "games": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "opponent_rating": st.integers(-10, 5000) | st.none() | json_values,
                    "score": st.sampled_from([0, 0.5, 1, 1.5, -1]) | json_values,
                },
            ),
            max_size=6,
        )
        | json_values,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=calculator_like)
def test_calculator_never_answers_500(client, db, payload):
    cache.clear()
    response = client.post("/api/v1/calculator/", json.dumps(payload, allow_nan=True), content_type="application/json")
    assert response.status_code in (200, 400), response.content[:500]
