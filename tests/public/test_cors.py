"""CORS (django-cors-headers): other sites may read the public API from the browser; pages are not shared,
and no method but GET, HEAD and OPTIONS is offered."""

import pytest

pytestmark = pytest.mark.django_db

ORIGIN = "https://chess-club.example"


def test_api_reads_are_open_to_any_origin_without_credentials(client, federation):
    response = client.get("/api/v1/rating-lists/", HTTP_ORIGIN=ORIGIN)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    assert client.head("/api/v1/players/", HTTP_ORIGIN=ORIGIN)["Access-Control-Allow-Origin"] == "*"


def test_preflight_offers_only_reads(client, db):
    response = client.options("/api/v1/rating-lists/", HTTP_ORIGIN=ORIGIN, HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert response.status_code == 200
    methods = {m.strip() for m in response["Access-Control-Allow-Methods"].split(",")}
    assert methods == {"GET", "HEAD", "OPTIONS"}


def test_pages_and_the_admin_are_not_shared(client, federation):
    for url in ("/", "/top/", "/admin/login/"):
        response = client.get(url, HTTP_ORIGIN=ORIGIN)
        assert "Access-Control-Allow-Origin" not in response, url
