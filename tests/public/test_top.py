"""Top lists (/top/), the entries endpoint's category, age and rank, and the list page's histogram."""

import re

import pytest

from public.selectors.top import rating_histogram
from tests.public.conftest import build_federation

pytestmark = pytest.mark.django_db

ENTRIES = "/api/v1/rating-lists/2026-03-01/standard/entries/"


@pytest.fixture
def big(db):
    return build_federation(players=60, lists=2, rapid_lists=1, event_players=4, submitted=False)


def rated(data, **filters):
    """The latest standard list's rated entries matching ``filters``, best first (the expected selection)."""
    return list(data.latest.entries.filter(rating__isnull=False, **filters).order_by("position"))


def ids_on_page(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'href="/players/(\d+)/"', html)]


def test_top_page_is_the_open_list_of_active_players_ranked_by_rating(client, big):
    response = client.get("/top/")
    assert response.status_code == 200
    expected = rated(big, inactive=False)
    assert ids_on_page(response.content.decode()) == [e.player.id_number for e in expected]
    ranks = re.findall(r'<td class="num rank-col">(\d+)</td>', response.content.decode())
    assert [int(r) for r in ranks] == list(range(1, len(expected) + 1))
    assert big.players[3].id_number not in ids_on_page(response.content.decode())  # inactive


@pytest.mark.parametrize(
    ("category", "condition"),
    [
        ("women", lambda e: e.sex == "F"),
        ("juniors", lambda e: e.birth_year >= 2006),
        ("girls", lambda e: e.sex == "F" and e.birth_year >= 2006),
        ("seniors50", lambda e: 0 < e.birth_year <= 1976),
        ("seniors65", lambda e: 0 < e.birth_year <= 1961),
    ],
)
def test_top_page_categories_select_the_right_players(client, big, category, condition):
    html = client.get("/top/", {"category": category}).content.decode()
    expected = [e.player.id_number for e in rated(big, inactive=False) if condition(e)]
    assert expected
    assert ids_on_page(html) == expected
    assert len(expected) < len(rated(big, inactive=False))


def test_top_page_any_age_range_sex_federation_title_and_inactive_players(client, big):
    html = client.get(
        "/top/", {"min_age": "30", "max_age": "60", "sex": "M", "federation": "ESP", "active": "0"}
    ).content.decode()
    expected = [
        e.player.id_number for e in rated(big, sex="M", federation="ESP", birth_year__gte=1966, birth_year__lte=1996)
    ]
    assert expected
    assert ids_on_page(html) == expected
    titled = ids_on_page(client.get("/top/", {"title": "GM"}).content.decode())
    assert titled == [e.player.id_number for e in rated(big, title="GM", inactive=False)]


def test_top_page_pages_without_counting(client, db):
    federation = build_federation(players=130, lists=1, rapid_lists=1, event_players=4, submitted=False)
    first = client.get("/top/", {"active": "0"}).content.decode()
    second = client.get("/top/", {"active": "0", "page": "2"}).content.decode()
    expected = [e.player.id_number for e in rated(federation)]
    assert ids_on_page(first) == expected[:100]
    assert ids_on_page(second) == expected[100:]
    assert 'rel="next"' in first
    assert 'rel="next"' not in second
    assert 'rel="prev"' in second
    assert re.search(r'<td class="num rank-col">101</td>', second)


def test_top_page_rapid_and_other_list_dates(client, big):
    html = client.get("/top/", {"rating_type": "rapid"}).content.decode()
    rapid = big.lists["rapid"][-1]
    assert ids_on_page(html)[:3] == [
        e.player.id_number for e in rapid.entries.filter(inactive=False, rating__isnull=False).order_by("position")[:3]
    ]
    older = big.lists["standard"][0]
    response = client.get("/top/", {"list_date": older.list_date.isoformat()})
    assert response.status_code == 200
    assert older.list_date.isoformat() in response.content.decode()
    assert client.get("/top/", {"list_date": "2001-01-01"}).status_code == 404


def test_top_page_names_bad_parameters_and_never_fails(client, big):
    response = client.get(
        "/top/", {"category": "kids", "min_age": "abc", "rating_type": "bullet", "list_date": "2026-13-01"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    for field in ("category", "min_age", "rating_type", "list_date"):
        assert f"<strong>{field}</strong>" in html
    # contradictory filters are an empty selection (as the API schema allows), not a refusal
    response = client.get("/top/", {"category": "women", "sex": "M"})
    assert response.status_code == 200
    assert not response.context["page"].rows
    assert client.get("/top/", {"min_age": "60", "max_age": "20"}).status_code == 200
    assert client.get("/top/", {"page": "99999999999999999999"}).status_code == 200


def test_top_page_in_spanish(client, big):
    html = client.get("/top/", {"category": "girls"}, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Clasificaciones" in html
    assert "Niñas (sub-20)" in html
    assert "Solo jugadores activos" in html


def test_top_page_without_lists(client, db):
    response = client.get("/top/")
    assert response.status_code == 200


@pytest.mark.parametrize("size", [20, 60])
def test_top_page_query_count_is_fixed(client, db, django_assert_num_queries, size):
    build_federation(players=size, lists=2, rapid_lists=1, event_players=4, submitted=False)
    # list dates, the list, the page of entries, federations
    with django_assert_num_queries(4):
        assert client.get("/top/", {"category": "women", "federation": "ESP"}).status_code == 200


# --- the entries endpoint ----------


def test_entries_category_shortcuts_rank_within_the_selection(client, big):
    data = client.get(ENTRIES, {"category": "women"}).json()
    expected = rated(big, sex="F", inactive=False)
    assert [row["id_number"] for row in data["results"]] == [e.player.id_number for e in expected]
    assert [row["rank"] for row in data["results"]] == list(range(1, len(expected) + 1))
    assert data["results"][0]["world_rank"] == expected[0].rank
    # a category leaves inactive players out unless asked
    everyone = client.get(ENTRIES, {"category": "open", "active": "0"}).json()
    assert everyone["count"] == len(rated(big))
    assert client.get(ENTRIES, {"category": "open"}).json()["count"] == len(rated(big, inactive=False))


def test_entries_age_range_filters(client, big):
    data = client.get(ENTRIES, {"min_age": "30", "max_age": "60", "page_size": "5"}).json()
    expected = rated(big, birth_year__gte=1966, birth_year__lte=1996)
    assert data["count"] == len(expected) > 5
    second = client.get(data["next"]).json()
    assert [row["rank"] for row in second["results"]] == list(range(6, 6 + len(second["results"])))
    ascending = client.get(ENTRIES, {"max_age": "20", "sort": "rating"}).json()["results"]
    assert ascending[0]["rank"] == len(ascending)
    assert ascending[-1]["rank"] == 1
    by_name = client.get(ENTRIES, {"max_age": "20", "sort": "name"}).json()["results"]
    assert {row["rank"] for row in by_name} == {None}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"category": "kids"}, "category"),
        ({"min_age": "-3"}, "min_age"),
        ({"max_age": "500"}, "max_age"),
    ],
)
def test_entries_reject_bad_selection_with_the_field(client, big, params, field):
    response = client.get(ENTRIES, params)
    assert response.status_code == 400
    assert field in response.json()


@pytest.mark.parametrize("params", [{"min_age": "50", "max_age": "20"}, {"category": "girls", "sex": "M"}])
def test_contradictory_selections_select_nobody(client, big, params):
    # Each value is valid alone (the schema describes it), so the request is answered: nobody matches both.
    response = client.get(ENTRIES, params)
    assert response.status_code == 200
    assert response.json()["results"] == []


def test_entries_filtered_query_count(client, big, django_assert_num_queries):
    with django_assert_num_queries(3):  # list, count, page
        assert client.get(ENTRIES, {"category": "seniors50", "federation": "ESP"}).status_code == 200


def test_openapi_documents_the_selection(client, db):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").content.decode()
    for name in ("category", "min_age", "max_age", "world_rank", "seniors65"):
        assert name in schema


# --- histogram ----------


def test_list_page_shows_the_rating_distribution(client, big):
    bands = rating_histogram(big.latest)
    assert sum(band["players"] for band in bands) == len(rated(big))
    for band in bands:
        assert band["players"] == len(rated(big, rating__gte=band["low"], rating__lt=band["low"] + 100))
    html = client.get("/lists/2026-03-01/standard/", {"category": "juniors"}).content.decode()
    assert html.count('<rect class="bar"') >= len(bands)
    assert 'value="juniors" selected' in html
    spanish = client.get("/lists/2026-03-01/standard/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Distribución de Elo" in spanish


def test_histogram_is_read_once_per_list(big, django_assert_num_queries):
    with django_assert_num_queries(1):
        rating_histogram(big.latest)
    with django_assert_num_queries(0):
        rating_histogram(big.latest)


def test_provisional_ratings_are_marked_in_top_lists_list_pages_and_the_api(client, big):
    established = big.players[0]
    big.latest.entries.filter(player=established).update(rated_games_total=200)
    top = client.get("/top/", {"active": "0"}).content.decode()
    row = re.search(rf'href="/players/{established.id_number}/">[^<]*</a>(.*?)</td>', top).group(1)
    assert "provisional" not in row
    other = big.players[1]
    row = re.search(rf'href="/players/{other.id_number}/">[^<]*</a>(.*?)</td>', top).group(1)
    assert 'class="provisional"' in row
    assert 'class="provisional"' in client.get("/lists/2026-03-01/standard/").content.decode()
    data = {r["id_number"]: r for r in client.get(ENTRIES).json()["results"]}
    assert data[established.id_number]["provisional"] is False
    assert data[other.id_number]["provisional"] is True


def test_a_selections_count_is_taken_once_and_its_pages_stay_right(client, db, django_assert_num_queries):
    federation = build_federation(players=130, lists=1, rapid_lists=1, event_players=4, submitted=False)
    params = {"category": "open", "active": "0", "federation": "ESP", "page_size": "20"}
    with django_assert_num_queries(3):  # list, COUNT, page
        first = client.get(ENTRIES, params).json()
    with django_assert_num_queries(2):  # list, page: the count was kept
        second = client.get(ENTRIES, {**params, "page": "2"}).json()
    expected = [e.player.id_number for e in rated(federation, federation="ESP")]
    assert first["count"] == second["count"] == len(expected)
    assert [r["id_number"] for r in first["results"] + second["results"]] == expected[:40]
    assert [r["rank"] for r in second["results"]] == list(range(21, 41))
    with django_assert_num_queries(2):  # and the same selection sorted otherwise: no COUNT either
        by_name = client.get(ENTRIES, {**params, "sort": "name"}).json()
    assert by_name["count"] == len(expected)


@pytest.mark.parametrize(("name", "value"), [("max_age", ""), ("min_age", " "), ("max_age", "x"), ("active", "")])
def test_the_api_refuses_an_age_or_active_that_is_not_what_the_schema_says_even_empty(client, big, name, value):
    # The schema says integer (0..120) and boolean; the list page's form may still send an empty box (no filter).
    response = client.get(ENTRIES, {name: value})
    assert response.status_code == 400
    assert name in response.json()
