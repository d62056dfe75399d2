"""The OpenAPI schema describes the API that is served: who may call, every status with its body, the
constraints the server enforces; and the server enforces what the schema says."""

import json

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

VALID_GAME = {"opponent_rating": 2100, "score": 1}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    import io

    with django_db_blocker.unblock():
        out = io.StringIO()
        call_command("spectacular", "--format", "openapi-json", stdout=out)
    return json.loads(out.getvalue())


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield method, path, operation


def parameter(operation, name):
    return next(p for p in operation["parameters"] if p["name"] == name)


# The arbiters' operations (issue 15): a personal token (or the admin's session) is required.
AUTHENTICATED = {("post", "/api/v1/events/check-trf/"), ("post", "/api/v1/events/{id}/transitions/")}


def test_public_operations_are_declared_open_to_anonymous_callers(schema):
    for method, path, operation in operations(schema):
        if (method, path) in AUTHENTICATED:
            assert {} not in operation["security"], (method, path)
            assert {"tokenAuth": []} in operation["security"], (method, path)
        else:
            assert {} in operation["security"], (method, path)


def resolved(schema, body):
    while "$ref" in body:
        body = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    return body


def test_every_status_the_server_answers_is_documented_with_a_json_body(schema):
    for method, path, operation in operations(schema):
        responses = operation["responses"]
        expected = {"200", "403", "429"}
        if operation.get("parameters") or "requestBody" in operation:
            expected.add("400")
        if "{" in path or any(p["name"] == "page" for p in operation.get("parameters", [])):
            expected.add("404")
        assert expected <= set(responses), (method, path, set(responses))
        for status in expected - {"200"}:
            body = resolved(schema, responses[status]["content"]["application/json"]["schema"])
            assert body["type"] == "object", (path, status)


def test_the_constraints_the_server_enforces_are_in_the_schema(schema):
    components = schema["components"]["schemas"]
    body = (
        components["CalculatorInputRequest"]
        if "CalculatorInputRequest" in components
        else components["CalculatorInput"]
    )
    assert (body["properties"]["games"]["minItems"], body["properties"]["games"]["maxItems"]) == (1, 200)
    score = components["CalculatorGame"]["properties"]["score"]
    score_enum = components[score["allOf"][0]["$ref"].rsplit("/", 1)[1]]["enum"] if "allOf" in score else score["enum"]
    assert sorted(score_enum) == [0, 0.5, 1]
    assert "not" in body  # an unrated player has no K
    players = schema["paths"]["/api/v1/players/"]["get"]
    assert parameter(players, "federation")["schema"]["pattern"]
    for name in ("page", "page_size"):
        assert parameter(players, name)["schema"] == {"type": "integer", "minimum": 1}
    calculator = schema["paths"]["/api/v1/calculator/"]["post"]
    assert list(calculator["requestBody"]["content"]) == ["application/json"]  # the only body it can read


@pytest.mark.parametrize(
    ("query", "field"),
    [("page=abc", "page"), ("page=0", "page"), ("page_size=1.5", "page_size"), ("page_size=-3", "page_size")],
)
def test_pages_are_whole_numbers_or_a_400_naming_the_parameter(client, query, field):
    response = client.get(f"/api/v1/players/?{query}")
    assert response.status_code == 400
    assert field in response.json()


def test_a_page_past_the_last_is_404_with_a_detail(client):
    response = client.get("/api/v1/players/?page=999")
    assert response.status_code == 404
    assert response.json()["detail"]


@pytest.mark.parametrize("code", ["ÉSP", "E1P", "ES", "ESPA"])
def test_a_federation_that_is_not_three_ascii_letters_is_a_400(client, code):
    for url in ("/api/v1/players/", "/api/v1/rating-lists/2026-03-01/standard/entries/"):
        response = client.get(url, {"federation": code})
        assert response.status_code in (400, 404), url  # 404: no list of that date in this test
        if response.status_code == 400:
            assert "federation" in response.json()
    assert client.get("/api/v1/players/", {"federation": " esp "}).status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rating": "2000", "games": [VALID_GAME]}, "rating"),
        ({"rating": True, "games": [VALID_GAME]}, "rating"),
        ({"rating": 2000, "games": [{"opponent_rating": 2100, "score": "1"}]}, "games"),
        ({"rating": 2000, "games": [{"opponent_rating": 2100, "score": True}]}, "games"),
        ({"rating": 2000, "rules": 7, "games": [VALID_GAME]}, "rules"),
        ({"rating": 2000, "games": {"0": VALID_GAME}}, "games"),
    ],
)
def test_the_calculator_holds_json_input_to_the_documented_types(client, body, field):
    response = client.post("/api/v1/calculator/", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert field in response.json()


def test_the_calculator_reads_only_json(client):
    response = client.post("/api/v1/calculator/", {"rating": "2000", "games": "x"})  # a form
    assert response.status_code == 415
    assert response.json()["detail"]
    ok = client.post(
        "/api/v1/calculator/", data=json.dumps({"rating": 2000, "games": [VALID_GAME]}), content_type="application/json"
    )
    assert ok.status_code == 200


def test_the_request_screenings_refusals_under_the_api_are_json(client):
    response = client.get("/api/v1/players/", {"q": "a\x00b"})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "NUL" in response.json()["detail"]
    page = client.get("/players/", {"q": "a\x00b"})
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/plain")
