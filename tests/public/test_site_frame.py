"""The site's frame (issue 32): 404 and 500 pages inside the site's navigation (the 500 without the database), the
menu marking the current section, the API docs linking back; the calculator page; the players page's filters."""

import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext

from tests.factories import make_federation, make_player

pytestmark = pytest.mark.django_db


def test_an_unknown_address_is_a_404_page_with_the_sites_navigation_and_search(client, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    page = response.content.decode()
    assert response.status_code == 404
    assert 'class="nav"' in page
    assert "Page not found" in page
    assert 'name="q"' in page


def test_the_500_page_renders_with_no_request_and_no_database_access():
    with CaptureQueriesContext(connection) as queries:
        page = render_to_string("500.html")  # as django.views.defaults.server_error does: an empty context
    assert not queries.captured_queries
    assert 'class="nav"' in page
    assert "Something went wrong" in page
    assert "aria-current" not in page


def test_the_spanish_404_page_is_in_spanish(client, settings):
    settings.DEBUG = False
    page = client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Página no encontrada" in page
    assert "Page not found" not in page


@pytest.mark.parametrize(
    ("url", "label"),
    [("/players/", "Players"), ("/events/", "Events"), ("/calculator/", "Calculator"), ("/top/", "Top lists")],
)
def test_the_menu_marks_the_current_section_and_only_it(client, url, label):
    page = client.get(url).content.decode()
    assert page.count('aria-current="page"') == 1
    assert f'aria-current="page">{label}</a>' in page


def test_the_api_docs_link_back_to_the_site(client):
    page = client.get("/api/v1/docs/").content.decode()
    assert 'href="/"' in page
    assert 'href="/players/"' in page
    assert "swagger-ui" in page


def test_the_calculator_page_shows_a_rated_players_change_line_by_line(client):
    response = client.get("/calculator/", {"rules": "fide-2024", "rating": "1900", "games": "2400 1\n1800 ½"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "+16" in page
    assert "1916" in page
    assert "2300" in page  # the 400-point rule: 2400 counted as 2300


def test_the_calculator_page_explains_an_initial_rating(client):
    games = "\n".join(["2000 1", "1800 ½", "1900 0", "2100 ½", "1950 1"])
    page = client.get("/calculator/", {"games": games}).content.decode()
    assert "Initial rating" in page
    assert "hypothetical draws against 1800" in page


def test_the_calculator_page_names_a_bad_line_and_calculates_nothing(client):
    page = client.get("/calculator/", {"rating": "1900", "games": "2100 1\n2100 2"}).content.decode()
    assert "Games, line 2" in page
    assert "Rating change" not in page
    page = client.get("/calculator/", {"rating": "99999", "games": "2100 1"}).content.decode()
    assert 'role="alert"' in page
    assert "Rating change" not in page


def test_the_players_page_filters_by_federation_sex_title_and_birth_years(client):
    esp, fra = make_federation("ESP", "Spain"), make_federation("FRA", "France")
    make_player(surname="García", given_names="Ana", federation=esp, sex="F", birth_year=1990, women_title="WGM")
    make_player(surname="Garcia", given_names="Luis", federation=fra, sex="M", birth_year=1970, title="GM")
    make_player(surname="Moreno", given_names="Elena", federation=esp, sex="F", birth_year=2005)

    def names(**params) -> list[str]:
        page = client.get("/players/", params).content.decode()
        return [name for name in ("García, Ana", "Garcia, Luis", "Moreno, Elena") if f">{name}</a>" in page]

    assert names(q="garcia") == ["García, Ana", "Garcia, Luis"]
    assert names(q="garcia", federation="ESP") == ["García, Ana"]
    assert names(sex="F") == ["García, Ana", "Moreno, Elena"]
    assert names(title="GM") == ["Garcia, Luis"]
    assert names(title="WGM") == ["García, Ana"]
    assert names(born_from="1980", born_to="2000") == ["García, Ana"]
    page = client.get("/players/", {"born_from": "12x", "federation": "Spain"}).content.decode()
    assert 'role="alert"' in page
    assert "born_from" in page
    assert "federation" in page


def test_the_players_page_filters_by_a_rating_range_of_one_type(client, federation):
    rated = {e.player.name: e.rating for e in federation.latest.entries.select_related("player") if e.rating}
    low, high = sorted(rated.values())[len(rated) // 2], 4000
    page = client.get("/players/", {"rating_type": "standard", "rating_min": low, "rating_max": high})
    text = page.content.decode()
    assert all((f">{name}</a>" in text) == (rating >= low) for name, rating in rated.items())
