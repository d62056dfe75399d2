"""A page number (or any whole-number parameter) with thousands of digits is a bad page like any other: a 400 or
404, never a 500. Python refuses to convert a string of more than 4,300 digits to an int (ValueError), so every
``int(raw)`` on a query parameter must look at its length first (core.pagination.whole_number)."""

import pytest

from core.pagination import whole_number

pytestmark = pytest.mark.django_db

HUGE = "9" * 5000  # over Python's integer-string limit (sys.get_int_max_str_digits(): 4,300)


def test_whole_number_reads_digits_and_refuses_the_rest_without_raising():
    assert whole_number("12") == 12
    assert whole_number("0") == 0
    assert whole_number(HUGE) is None
    assert whole_number("1" + "0" * 18) is None  # beyond any 64-bit column or page
    for bad in (None, "", "-1", "1.5", "¹", "12a", " 3"):
        assert whole_number(bad) is None


def _api_urls(federation) -> list[str]:
    latest = federation.latest
    star = federation.star.id_number
    base = f"/api/v1/rating-lists/{latest.list_date}/{latest.rating_type}"
    return [
        "/api/v1/players/",
        f"/api/v1/players/{star}/history/",
        f"/api/v1/players/{star}/games/",
        f"/api/v1/players/{star}/opponents/",
        "/api/v1/rating-lists/",
        f"{base}/entries/",
        "/api/v1/events/",
    ]


def test_every_paginated_endpoint_answers_a_huge_page_as_past_the_last_one(client, federation):
    for url in _api_urls(federation):
        response = client.get(url, {"page": HUGE})
        assert response.status_code == 404, (url, response.status_code)  # valid by the schema: 404, not 400


def test_a_huge_page_size_is_served_as_the_largest_page(client, federation):
    for url in _api_urls(federation):
        response = client.get(url, {"page_size": HUGE})
        assert response.status_code == 200, (url, response.status_code)


def test_huge_ages_on_the_entries_endpoint_are_a_400_naming_the_parameter(client, federation):
    latest = federation.latest
    url = f"/api/v1/rating-lists/{latest.list_date}/{latest.rating_type}/entries/"
    for name in ("min_age", "max_age"):
        response = client.get(url, {name: HUGE})
        assert response.status_code == 400, (name, response.status_code)
        assert name in response.json()


def test_every_paged_public_page_serves_a_huge_page_number_without_a_server_error(client, federation):
    latest = federation.latest
    star = federation.star.id_number
    urls = [
        "/top/",
        f"/lists/{latest.list_date}/{latest.rating_type}/",
        f"/lists/{latest.list_date}/{latest.rating_type}/events/",
        "/events/",
        "/events/awaiting-rating/",
        f"/players/{star}/",
        f"/players/{star}/?tab=games",
        f"/players/{star}/?tab=statistics",
        "/players/?q=surname",
    ]
    for url in urls:
        response = client.get(url, {"page": HUGE, "min_age": HUGE})
        assert response.status_code in (200, 400, 404), (url, response.status_code)
