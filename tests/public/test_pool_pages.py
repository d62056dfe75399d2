"""The pool page and API: the ledger of the list, charts across every list, English and Spanish."""

import re

import pytest

from ratings.models import RatingList
from ratings.services.pool import pool_ledgers

EXPECTED_KEYS = {
    "list_date",
    "rating_type",
    "previous_list_date",
    "previous_total",
    "from_games",
    "newcomers",
    "leavers",
    "adjustments",
    "total",
    "rated",
    "mean",
    "median",
    "at_least_2000",
    "at_least_2200",
    "at_least_2400",
    "stable_players",
    "stable_mean_change",
    "newcomer_players",
    "leaver_players",
}


def latest():
    return RatingList.objects.current("standard").order_by("-list_date").first()


def test_the_api_returns_the_ledger(client, simulated):
    rating_list = latest()
    response = client.get(f"/api/v1/rating-lists/{rating_list.list_date}/standard/pool/")
    assert response.status_code == 200
    data = response.json()
    assert set(data) == EXPECTED_KEYS
    ledger = pool_ledgers([rating_list])[0]
    assert data["total"] == ledger.total
    assert data["list_date"] == rating_list.list_date.isoformat()
    assert (
        data["previous_total"] + data["from_games"] + data["newcomers"] - data["leavers"] + data["adjustments"]
        == data["total"]
    )
    assert "public" in response["Cache-Control"]


@pytest.mark.parametrize("url", ["/api/v1/rating-lists/2001-01-01/standard/pool/", "/lists/2001-01-01/standard/pool/"])
def test_a_list_that_does_not_exist_is_a_404(client, db, url):
    assert client.get(url).status_code == 404


def test_the_page_shows_the_ledger_and_four_charts(client, simulated, django_assert_max_num_queries):
    rating_list = latest()
    ledger = pool_ledgers([rating_list])[0]
    with django_assert_max_num_queries(8):
        response = client.get(f"/lists/{rating_list.list_date}/standard/pool/")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count("<svg") == 4
    assert str(ledger.total) in html
    assert str(ledger.previous_total) in html
    assert "Pool health" in html
    assert "Newcomers" in html
    # every list of the type has a row linking to its own pool page
    for other in RatingList.objects.current("standard"):
        assert f"/lists/{other.list_date}/standard/pool/" in html
    assert (
        f"/lists/{rating_list.list_date}/standard/pool/"
        in client.get(f"/lists/{rating_list.list_date}/standard/").content.decode()
    )


def test_the_page_in_spanish(client, simulated):
    rating_list = latest()
    html = client.get(f"/lists/{rating_list.list_date}/standard/pool/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Salud del conjunto" in html
    assert "Recién llegados" in html
    # SVG coordinates are numbers with a decimal point in every language (1234.5, never 1234,5)
    coordinates = re.findall(r' (?:x|y|x1|x2|y1|y2|cx|cy|width|height)="([^"]*)"', html)
    assert coordinates, coordinates[:20]
    assert all(re.fullmatch(r"-?[0-9.]+", value) for value in coordinates), coordinates[:20]
