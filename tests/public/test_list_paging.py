"""List pages and the entries endpoint page an unfiltered list by stored position (no OFFSET, so page 12,000
of a FIDE-sized list costs what page 1 costs) and show exactly the lines OFFSET paging would show."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ratings.models import RatingListEntry
from ratings.services.list_order import list_order_store
from tests.public.conftest import build_federation

pytestmark = pytest.mark.django_db

PLAYERS = 230  # 229 rated: pages of 100, 100 and 29


@pytest.fixture
def big(db):
    federation = build_federation(players=PLAYERS, lists=2, rapid_lists=1, event_players=4)
    # ties across page boundaries: forty players on 2000 (lines about 110 to 150)
    latest = federation.latest.entries.filter(rating__isnull=False).order_by("-rating")
    tied = list(latest.values_list("pk", flat=True)[110:150])
    RatingListEntry.objects.filter(pk__in=tied).update(rating=2000)
    list_order_store([federation.latest.pk])
    return federation


def in_order(rating_list, **filters) -> list[int]:
    """ID numbers of the list's rated lines by rating, highest first, then player (the published order)."""
    return list(
        RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False, **filters)
        .order_by("-rating", "player_id")
        .values_list("player__id_number", flat=True)
    )


def page_rows(client, path, **params) -> tuple[list[int], list[str]]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, params)
    assert response.status_code == 200
    if path.startswith("/api/"):
        rows = [row["id_number"] for row in response.json()["results"]]
    else:
        rows = [entry.player.id_number for entry in response.context["page"].object_list]
    return rows, [query["sql"] for query in queries]


def read_by_position(sqls: list[str]) -> bool:
    """The page's lines were read as a range of positions, without OFFSET."""
    pages = [sql for sql in sqls if 'FROM "ratings_ratinglistentry"' in sql and '"position" >' in sql]
    return bool(pages) and not any("OFFSET" in sql.upper() for sql in pages)


def test_each_page_shows_the_lines_offset_paging_would_in_both_rating_orders(client, big):
    rating_list = big.latest
    best_first = in_order(rating_list)
    assert len(best_first) == PLAYERS - 1
    assert RatingListEntry.objects.filter(rating_list=rating_list, rating=2000).count() == 40
    path = f"/lists/{rating_list.list_date}/standard/"
    for page in (1, 2, 3):
        rows, sqls = page_rows(client, path, page=page)
        assert rows == best_first[(page - 1) * 100 : page * 100]
        assert read_by_position(sqls)
        rows, _ = page_rows(client, path, page=page, sort="rating")
        assert rows == best_first[::-1][(page - 1) * 100 : page * 100]
    assert page_rows(client, path, page=99)[0] == best_first[200:]  # past the end: the last page
    assert page_rows(client, path, page="x")[0] == best_first[:100]


def test_the_entries_endpoint_pages_by_position_with_any_page_size(client, big):
    rating_list = big.latest
    best_first = in_order(rating_list)
    path = f"/api/v1/rating-lists/{rating_list.list_date}/standard/entries/"
    for page in (1, 5, 17, 33):  # 33 is the last page of 7: one line
        rows, sqls = page_rows(client, path, page=page, page_size=7)
        assert rows == best_first[(page - 1) * 7 : page * 7]
        assert read_by_position(sqls)
    rows, _ = page_rows(client, path, page=2, page_size=50, sort="rating")
    assert rows == best_first[::-1][50:100]
    response = client.get(path, {"page": 34, "page_size": 7})
    assert response.status_code == 404  # DRF: a page past the end is not found
    assert client.get(path, {"page_size": 7}).json()["count"] == PLAYERS - 1


def test_filtered_and_other_sorts_page_in_the_same_order(client, big):
    rating_list = big.latest
    path = f"/lists/{rating_list.list_date}/standard/"
    spanish = in_order(rating_list, federation="ESP")
    assert len(spanish) > 100
    rows, sqls = page_rows(client, path, federation="ESP", page=2)
    assert rows == spanish[100:200]
    assert not read_by_position(sqls)  # a filtered list counts its own lines
    active = in_order(rating_list, inactive=False)
    api = f"/api/v1/rating-lists/{rating_list.list_date}/standard/entries/"
    assert page_rows(client, api, active=1, page=3, page_size=40)[0] == active[80:120]
    by_games = list(
        RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False)
        .order_by("-games", "-rating", "player_id")
        .values_list("player__id_number", flat=True)
    )
    assert page_rows(client, path, sort="-games", page=2)[0] == by_games[100:200]
