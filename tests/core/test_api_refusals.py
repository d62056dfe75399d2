"""The API never answers 500 to hostile requests: lone surrogates in JSON, NUL in Basic credentials, chunked
bodies and methods an endpoint does not have are refused with a status and a message of their own."""

from __future__ import annotations

import base64
import io
import json
import wsgiref.util

import pytest
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.security import SafeJSONRenderer, lone_surrogate_at

pytestmark = pytest.mark.django_db

VALID = {
    "rules": "fide-2024",
    "rating_type": "standard",
    "rating": 2000,
    "games": [{"opponent_rating": 2100, "score": 1}],
}


def post_calculator(client, body: str):
    return client.post("/api/v1/calculator/", data=body, content_type="application/json")


@pytest.mark.parametrize(
    ("body", "place"),
    [
        ('{"rules": "\\ud800", "rating_type": "\\ud800", "games": []}', "rules"),
        ('{"rating_type": "stan\\udfffdard", "games": [{"opponent_rating": 2100, "score": 1}]}', "rating_type"),
        ('{"games": [{"opponent_rating": 2100, "score": "\\udc00"}]}', "games[0].score"),
        ('{"\\ud800": 1, "games": []}', "<key>"),
        ('"\\ud83d"', "the body"),
    ],
)
def test_a_lone_surrogate_in_json_is_refused_with_400_naming_the_field(client, body, place):
    response = post_calculator(client, body)
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "lone UTF-16 surrogate" in detail
    assert place in detail
    detail.encode("utf-8")  # the refusal does not echo the value (a surrogate would not encode)


def test_the_refusal_is_in_spanish_for_a_spanish_client(client):
    response = client.post(
        "/api/v1/calculator/", data='{"rules": "\\ud800"}', content_type="application/json", HTTP_ACCEPT_LANGUAGE="es"
    )
    assert response.status_code == 400
    assert "sustituto UTF-16 aislado" in response.json()["detail"]


def test_a_surrogate_pair_is_a_character_and_accepted(client):
    body = json.dumps({**VALID, "rules": "\U0001f600"})  # json.dumps writes it as the pair \ud83d\ude00
    response = post_calculator(client, body)
    assert response.status_code == 400
    assert "rules" in response.json()
    assert "surrogate" not in response.content.decode()


def test_lone_surrogate_at_names_the_place_without_recursion():
    assert lone_surrogate_at({"a": [1, {"b": "x\ud800"}]}) == "a[1].b"
    assert lone_surrogate_at({"a": ["ok", "é", "\U0001f600"]}) is None
    deep: object = "\udc00"
    for _ in range(100_000):
        deep = [deep]
    assert lone_surrogate_at(deep) == "[0]" * 100_000


def test_the_json_renderer_never_fails_on_a_surrogate():
    rendered = SafeJSONRenderer().render({"detail": "bad \ud800"})
    assert json.loads(rendered) == {"detail": "bad \ud800"}
    assert SafeJSONRenderer().render({"name": "Ñúñez"}).decode() == '{"name":"Ñúñez"}'  # UTF-8 otherwise


API_GETS = ["/api/v1/players/", "/api/v1/rating-lists/", "/api/v1/events/", "/api/v1/players/1/", "/api/v1/events/1/"]


@given(
    name=st.text(max_size=40).map(lambda s: s[: len(s) // 2] + "\x00" + s[len(s) // 2 :]),
    password=st.text(max_size=20),
    url=st.sampled_from([*API_GETS, "/api/v1/calculator/", "/api/v1/schema/"]),
)
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_a_basic_authorization_user_name_with_nul_is_never_a_server_error(client, name, password, url):
    """Header values are input too: the decoded Basic credentials may hold NUL, which PostgreSQL refuses in
    text (the failed-sign-in record). Refused (403) or ignored, never 500, on every endpoint."""
    credentials = f"{name}:{password}".encode("utf-8", "surrogatepass")
    token = base64.b64encode(credentials).decode()
    response = client.get(url, HTTP_AUTHORIZATION=f"Basic {token}")
    assert response.status_code in (200, 403, 404, 405), response.content[:300]


@pytest.mark.parametrize("url", API_GETS)
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_method_an_endpoint_does_not_have_is_405_with_allow(client, url, method):
    response = getattr(client, method)(url, data="{}", content_type="application/json")
    assert response.status_code == 405, response.content[:300]
    assert "GET" in response["Allow"]
    assert method.upper() not in response["Allow"]
    assert response.json()["detail"]


def test_the_calculator_answers_get_with_405_and_allow_post(client):
    response = client.get("/api/v1/calculator/")
    assert response.status_code == 405
    assert "POST" in response["Allow"]


def wsgi_call(method: str, path: str, body: bytes, **headers: str) -> tuple[str, dict[str, str], bytes]:
    """A request as a WSGI server hands it over (no test client filling in Content-Length)."""
    environ: dict = {"REQUEST_METHOD": method, "PATH_INFO": path, "SERVER_NAME": "testserver"}
    wsgiref.util.setup_testing_defaults(environ)
    environ["HTTP_HOST"] = "testserver"
    environ["wsgi.input"] = io.BytesIO(body)
    environ.update(headers)
    captured = {}

    def start_response(status, response_headers, exc_info=None):
        captured["status"], captured["headers"] = status, dict(response_headers)

    content = b"".join(get_wsgi_application()(environ, start_response))
    return captured["status"], captured["headers"], content


def test_a_chunked_body_without_content_length_is_answered_411_not_read_as_empty():
    body = json.dumps(VALID).encode()
    # a server (gunicorn) de-chunks the body and passes Transfer-Encoding on, with no CONTENT_LENGTH
    status, _, content = wsgi_call(
        "POST", "/api/v1/calculator/", body, CONTENT_TYPE="application/json", HTTP_TRANSFER_ENCODING="chunked"
    )
    assert status.startswith("411"), (status, content[:300])
    assert b"Content-Length" in content
    status, _, content = wsgi_call(
        "POST", "/api/v1/calculator/", body, CONTENT_TYPE="application/json", CONTENT_LENGTH=str(len(body))
    )
    assert status.startswith("200"), content[:300]
