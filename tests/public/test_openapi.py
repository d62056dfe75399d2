"""The OpenAPI schema is valid, and every documented endpoint answers as documented."""

import datetime
import io
import json
import re

import jsonschema
import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema

pytestmark = pytest.mark.django_db

DOCUMENTED = {
    ("get", "/api/v1/players/"),
    ("get", "/api/v1/players/{id_number}/"),
    ("get", "/api/v1/players/{id_number}/history/"),
    ("get", "/api/v1/players/{id_number}/games/"),
    ("get", "/api/v1/players/{id_number}/opponents/"),
    ("get", "/api/v1/players/{id_number}/statistics/"),
    ("get", "/api/v1/players/{id_number}/vs/{other_id_number}/"),
    ("get", "/api/v1/federations/"),
    ("get", "/api/v1/federations/{code}/"),
    ("get", "/api/v1/clubs/{club_id}/"),
    ("get", "/api/v1/rating-lists/"),
    ("get", "/api/v1/rating-lists/{list_date}/{rating_type}/entries/"),
    ("get", "/api/v1/rating-lists/{list_date}/{rating_type}/pool/"),
    ("get", "/api/v1/rating-lists/{list_date}/{rating_type}/titles/"),
    ("get", "/api/v1/players/{id_number}/shadow-ratings/"),
    ("get", "/api/v1/rating-lists/{list_date}/{rating_type}/movers/"),
    ("get", "/api/v1/events/"),
    ("get", "/api/v1/events/{id}/"),
    ("post", "/api/v1/calculator/"),
    ("get", "/api/v1/events/{id}/norms/"),
    ("post", "/api/v1/norms/check/"),
    ("post", "/api/v1/events/check-trf/"),  # arbiters' token: answers 401 to the anonymous test client
    ("post", "/api/v1/events/{id}/transitions/"),  # the same
    ("get", "/api/v1/events/{id}/fees/"),  # membership: an event's rating-fee statement (issue 35)
    ("get", "/api/v1/arbiters/"),
    ("get", "/api/v1/trainers/"),
    ("get", "/api/v1/leagues/"),  # leagues (issue 34)
    ("get", "/api/v1/leagues/{slug}/"),
    ("get", "/api/v1/leagues/{slug}/{season}/"),
    ("get", "/api/v1/leagues/matches/{id}/"),
    ("get", "/api/v1/leagues/teams/{id}/"),
}  # the schema endpoint itself is left out (SPECTACULAR_SETTINGS["SERVE_INCLUDE_SCHEMA"] is False)


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def test_schema_validates_against_the_openapi_3_specification(schema):
    validate_schema(schema)  # drf-spectacular's own OpenAPI 3.0 JSON-schema check
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", stdout=out)
    assert json.loads(out.getvalue())["openapi"].startswith("3.")


def test_schema_documents_exactly_the_public_endpoints(schema):
    operations = {(method, path) for path, item in schema["paths"].items() for method in item}
    assert operations == DOCUMENTED


def test_schema_is_served_at_api_v1_schema(client):
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert set(json.loads(response.content)["paths"]) == {path for _, path in DOCUMENTED}


def as_json_schema(node, components):
    """OpenAPI 3.0 schema objects -> JSON Schema: resolve $ref, turn ``nullable`` into a null type."""
    if isinstance(node, list):
        return [as_json_schema(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return as_json_schema(components[node["$ref"].rsplit("/", 1)[1]], components)
    out = {
        key: as_json_schema(value, components)
        for key, value in node.items()
        if key not in ("nullable", "readOnly", "writeOnly", "format", "example")
    }
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        if "allOf" in out or "oneOf" in out:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def sample_url(path: str, federation, league=None) -> str:
    if league is not None and path.startswith("/api/v1/leagues/"):  # leagues (issue 34): its own sample rows
        match = league.division.rounds.first().matches.first()
        ids = {"matches": match.pk, "teams": league.teams[0].pk}
        values_ = {"slug": "metro", "season": "2025-26", "id": ids.get(path.split("/")[4], 0)}
        return re.sub(r"\{(\w+)\}", lambda m: str(values_[m.group(1)]), path)
    values = {
        "id_number": federation.star.id_number,
        "other_id_number": federation.players[1].id_number,
        "code": "ESP",
        "club_id": federation.club.pk,
        "list_date": "2026-03-01",
        "rating_type": "standard",
        "id": federation.rated_event.pk,
    }
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), path)


def test_every_documented_endpoint_answers_as_documented(client, federation, schema):
    from tests.leagues.conftest import build_league, schedule

    league = build_league()
    schedule(league, [datetime.date(2025, 9, 10), datetime.date(2025, 9, 17), datetime.date(2025, 9, 24)])
    components = schema["components"]["schemas"]
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            url = sample_url(path, federation, league)
            if method == "post":
                body = {"rating": 2000, "k_factor": 20, "games": [{"opponent_rating": 1900, "score": 0.5}]}
                response = client.post(url, json.dumps(body), content_type="application/json")
            else:
                response = client.get(url, HTTP_ACCEPT="application/json")
            assert str(response.status_code) in operation["responses"], (method, path, response.status_code)
            content = operation["responses"][str(response.status_code)].get("content", {})
            if "application/json" in content:
                json_schema = as_json_schema(content["application/json"]["schema"], components)
                jsonschema.validate(response.json(), json_schema)
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query" and "enum" in parameter.get("schema", {}):
                    for value in parameter["schema"]["enum"][:3]:
                        answer = client.get(url, {parameter["name"]: value})
                        assert answer.status_code == 200, (path, parameter["name"], value)


def test_docs_are_served_with_swagger_ui_from_this_site(client):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert any(s.endswith("swagger-ui-dist/swagger-ui-bundle.js") for s in sources)
    assert all(not s.startswith(("http:", "https:", "//")) for s in sources)  # no CDN
    for source in sources:
        if "drf_spectacular_sidecar" in source:
            assert finders.find(source.split("/static/", 1)[1]), f"{source} is not a static file of the site"
