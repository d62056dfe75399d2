"""Hostile requests are refused with a message, never a server error.

Property-based (hypothesis): the calculator fed mutated JSON, public URLs fed hostile query strings, bodies and
uploads past the request ceiling. The hostile files have their own tests: tests/events/test_hostile_trf.py and
tests/ratings/test_fide_list_fuzzing.py.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.cache import cache
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.mutations import SMALL_TRF, fuzz

# -------------------------------------------------------------------------------------------- the API

CALCULATOR = "/api/v1/calculator/"
VALID_CALCULATION = {
    "rules": "fide-2024",
    "rating": 2000,
    "k_factor": 20,
    "games": [{"opponent_rating": 2100, "score": 1}, {"opponent_rating": 1900, "score": 0.5}],
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.sampled_from(["1e309", "NaN", "-Infinity", "½", "\u0000", "2000", ""]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


@st.composite
def mutated_calculation(draw):
    payload = json.loads(json.dumps(VALID_CALCULATION))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "drop", "add", "game", "games", "whole"]))
        key = draw(
            st.sampled_from(["rules", "rating", "k_factor", "games", "rating_type", "rated_games_total", "birth_year"])
        )
        if kind == "replace" and isinstance(payload, dict):
            payload[key] = draw(json_values)
        elif kind == "drop" and isinstance(payload, dict):
            payload.pop(key, None)
        elif kind == "add" and isinstance(payload, dict):
            payload[draw(st.text(max_size=10))] = draw(json_values)
        elif kind == "game" and isinstance(payload, dict) and isinstance(payload.get("games"), list):
            games = payload["games"]
            if games and isinstance(games[0], dict):
                games[0][draw(st.sampled_from(["opponent_rating", "score", "extra"]))] = draw(json_values)
        elif kind == "games" and isinstance(payload, dict):
            payload["games"] = [
                {
                    "opponent_rating": draw(st.integers(-5000, 5000)),
                    "score": draw(st.sampled_from([0, 0.5, 1, 2, -1, 0.25])),
                }
            ] * draw(st.integers(0, 300))
        elif kind == "whole":
            payload = draw(json_values)
    return payload


def post_json(client, body: bytes | str):
    cache.clear()  # the anonymous API throttle counts in the cache
    return client.post(CALCULATOR, data=body, content_type="application/json")


def test_calculator_endpoint_exists_and_answers_a_valid_request(client, db):
    response = post_json(client, json.dumps(VALID_CALCULATION))
    assert response.status_code == 200, response.content
    assert response.json()["mode"] == "change"


@fuzz(300)
@given(payload=mutated_calculation())
def test_calculator_answers_mutated_json_with_200_or_400_naming_the_fields(client, db, payload):
    response = post_json(client, json.dumps(payload))
    assert response.status_code in (200, 400), (response.status_code, payload)
    body = response.json()
    if response.status_code == 400:
        assert isinstance(body, (dict, list)), payload
        assert body, payload
        if isinstance(body, dict):
            assert all(isinstance(k, str) and k for k in body), body


@fuzz(200)
@given(body=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_calculator_answers_malformed_bodies_with_400(client, db, body):
    response = post_json(client, body)
    assert response.status_code == 400 or (response.status_code == 200 and json.loads(body)), body
    assert response.json()


@pytest.mark.parametrize(
    "body",
    [
        "[" * 5000 + "]" * 5000,  # nesting deeper than the JSON parser's recursion limit
        '{"rating": 1' + "0" * 5000 + "}",  # a number too long to convert
        json.dumps({**VALID_CALCULATION, "games": [{"opponent_rating": 2000, "score": 1}] * 100_000}),
    ],
)
def test_calculator_refuses_pathological_json_with_400(client, db, body):
    assert post_json(client, body).status_code == 400


# ---------------------------------------------------------------------------------------- public URLs

PUBLIC_QUERIES = {
    "/players/": ["q", "federation", "page"],
    "/api/v1/players/": ["q", "federation", "page", "page_size"],
    "/api/v1/rating-lists/": ["rating_type", "page"],
    "/lists/": ["page"],
    "/events/": ["page"],
    "/api/v1/events/": ["page", "page_size"],
}
hostile_text = st.text(max_size=30) | st.sampled_from(
    [
        "\u0000",
        "a\u0000b",
        "x" * 5000,
        "-1",
        "0",
        "99999999999999999999999",
        "1e9",
        "' OR 1=1 --",
        "%",
        "_",
        "\\",
        "../../etc/passwd",
        "<script>alert(1)</script>",
        "\ud7ff\ue000",
        "NaN",
    ]
)


@fuzz(300)
@given(url=st.sampled_from(sorted(PUBLIC_QUERIES)), data=st.data())
def test_public_pages_and_api_never_answer_500_to_hostile_query_strings(client, db, url, data):
    params = {name: data.draw(hostile_text) for name in PUBLIC_QUERIES[url] if data.draw(st.booleans())}
    assume(params)
    cache.clear()
    response = client.get(url, params)
    assert response.status_code < 500, (url, params)


def test_nul_character_in_a_query_string_is_refused_with_400_naming_the_parameter(client, db):
    response = client.get("/players/", {"q": "Carl\u0000sen"})
    assert response.status_code == 400
    assert "The query parameter 'q' contains a NUL character" in response.content.decode()


# --------------------------------------------------------------------------------------- request sizes


def test_request_body_above_the_ceiling_is_refused_with_413_before_it_is_read(client, db, settings):
    settings.REQUEST_MAX_BYTES = 64 * 1024
    body = "x" * (64 * 1024 + 1)
    for url in (CALCULATOR, "/admin/login/"):
        response = client.post(url, data=body, content_type="application/json")
        assert response.status_code == 413, url
        assert f"Request too large: {len(body)} bytes; the limit is 65536 bytes." in response.content.decode()


def test_file_upload_above_the_ceiling_is_refused_with_413(client, db, settings):
    settings.REQUEST_MAX_BYTES = 64 * 1024
    upload = io.BytesIO(SMALL_TRF.encode() * 1000)
    upload.name = "huge.trf"
    response = client.post("/admin/login/", {"file": upload, "username": "x", "password": "y"})
    assert response.status_code == 413


def test_form_body_above_data_upload_max_memory_size_is_refused_with_400_not_500(client, db, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    response = client.post("/admin/login/", {"username": "u" * 5000, "password": "p"})
    assert response.status_code == 400


def test_oversized_json_to_the_api_is_refused(client, db, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    body = json.dumps({**VALID_CALCULATION, "padding": "x" * 10_000})
    assert post_json(client, body).status_code in (400, 413)


@pytest.mark.parametrize("length", ["abc", "-5", "1e3"])
def test_malformed_content_length_is_refused_with_400(client, db, length):
    response = client.generic("POST", CALCULATOR, b"{}", content_type="application/json", CONTENT_LENGTH=length)
    assert response.status_code == 400
    assert "Malformed Content-Length" in response.content.decode()


def test_settings_keep_the_trf_upload_limit_within_the_request_ceiling():
    from django.conf import settings as project

    assert project.TRF_UPLOAD_MAX_BYTES < project.REQUEST_MAX_BYTES
    assert project.DATA_UPLOAD_MAX_MEMORY_SIZE < project.REQUEST_MAX_BYTES
