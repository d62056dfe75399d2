"""POST /api/v1/calculator/ with the glicko2 preset: the same engine as rating_calc."""

import json

import pytest

from ratings.engine import get_preset
from ratings.engine.glicko2 import calculate_glicko2


def post(client, payload):
    return client.post("/api/v1/calculator/", json.dumps(payload), content_type="application/json")


EXAMPLE = {
    "rules": "glicko2",
    "rating": 1500,
    "deviation": 200,
    "volatility": 0.06,
    "games": [
        {"opponent_rating": 1400, "opponent_deviation": 30, "score": 1},
        {"opponent_rating": 1550, "opponent_deviation": 100, "score": 0},
        {"opponent_rating": 1700, "opponent_deviation": 300, "score": 0},
    ],
}


def test_the_worked_example_through_the_api(client, db):
    response = post(client, EXAMPLE)
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["mode"] == "glicko2"
    expected = calculate_glicko2(
        1500, 200, 0.06, [(1400, 30), (1550, 100), (1700, 300)], [1, 0, 0], get_preset("glicko2").glicko2
    )
    assert data["glicko2"] == expected.to_dict()
    assert round(data["glicko2"]["new_deviation"], 2) == 151.52
    assert abs(data["glicko2"]["new_rating"] - 1464.06) < 0.01


def test_an_unrated_player_starts_from_the_preset(client, db):
    payload = {"rules": "glicko2", "games": [{"opponent_rating": 1500, "opponent_deviation": 350, "score": 1}]}
    data = post(client, payload).json()
    assert data["glicko2"]["rating"] == 1500
    assert data["glicko2"]["deviation"] == 350
    assert data["glicko2"]["new_rating"] > 1500


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"deviation": 0}, "deviation"),
        ({"volatility": 0}, "volatility"),
        ({"volatility": 5}, "volatility"),
        ({"games": [{"opponent_rating": 1400, "opponent_deviation": 0, "score": 1}]}, "games"),
    ],
)
def test_bad_glicko2_input_names_the_field(client, db, change, field):
    response = post(client, {**EXAMPLE, **change})
    assert response.status_code == 400
    assert field in response.json()


def test_glicko2_takes_an_opponent_without_rating_or_deviation_as_unrated_and_ignores_k(client, db):
    # Glickman 2013, step 1: unrated = 1500 with deviation 350; every request the schema describes is answered.
    given = {
        **EXAMPLE,
        "k_factor": 20,
        "games": [{"opponent_rating": None, "score": 1}, {"opponent_rating": 1400, "score": 0}],
    }
    explicit = {
        **EXAMPLE,
        "games": [
            {"opponent_rating": 1500, "opponent_deviation": 350, "score": 1},
            {"opponent_rating": 1400, "opponent_deviation": 350, "score": 0},
        ],
    }
    assert post(client, given).json()["glicko2"] == post(client, explicit).json()["glicko2"]


def test_an_elo_preset_ignores_the_glicko2_fields(client, db):
    elo = {"rules": "fide-2024", "rating": 1500, "k_factor": 20, "games": [{"opponent_rating": 1400, "score": 1}]}
    with_glicko_fields = {
        **elo,
        "deviation": 200,
        "volatility": 0.06,
        "games": [{"opponent_rating": 1400, "opponent_deviation": 30, "score": 1}],
    }
    assert post(client, with_glicko_fields).json() == post(client, elo).json()
