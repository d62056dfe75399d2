"""Pages and API lists run a fixed number of queries: N rows and 3N rows cost the same (house rule 2)."""

import datetime

import pytest

from events.models import Event, EventStatus, Participant
from ratings.models import current_lists_check_queries
from tests.public.conftest import build_federation

pytestmark = pytest.mark.django_db

N = 20


def add_events(federation, count: int) -> None:
    events = Event.objects.bulk_create(
        [
            Event(
                name=f"Club night {i}",
                start_date=datetime.date(2026, 1, 1) + datetime.timedelta(days=i),
                end_date=datetime.date(2026, 1, 1) + datetime.timedelta(days=i),
                status=EventStatus.RATED,
            )
            for i in range(count)
        ]
    )
    Participant.objects.bulk_create(
        [
            Participant(event=event, player=player, start_rank=rank)
            for event in events
            for rank, player in enumerate(federation.players[:3], 1)
        ]
    )


@pytest.fixture(params=[N, 3 * N], ids=["N", "3N"])
def sized(request, db):
    """A federation with ``size`` players, ``size // 4`` lists of history, ``size`` extra events."""
    size = request.param
    federation = build_federation(players=size, lists=size // 4, rapid_lists=size // 8, event_players=6)
    add_events(federation, size)
    return federation


def test_profile_query_count_does_not_grow_with_history(client, sized, django_assert_num_queries):
    # player, ratings (with the ranks stored on them), the newest lists' ids, the player's lines on them, their
    # changes, the events awaiting rating, live games, opponents' ratings, rules policy, shadow ratings
    # (templates/players/_shadow.html), title awards and the norms made (templates/players/_titles.html, issue 33);
    # on PostgreSQL each of the two reads of current ratings checks its bound
    with django_assert_num_queries(12 + 2 * current_lists_check_queries()):
        response = client.get(f"/players/{sized.star.id_number}/")
    assert response.status_code == 200
    with django_assert_num_queries(2):  # the chart it embeds: player, the player's lines on every list
        assert client.get(f"/players/{sized.star.id_number}/chart.svg").status_code == 200


def test_list_page_query_count_does_not_grow_with_entries(client, sized, django_assert_num_queries):
    # list, page of entries (stored count, no COUNT), the fifth biggest gain and loss, gains, losses,
    # federations, other types of the date, the rating distribution (the first time: then it is in the cache),
    # the new titles: awards of the period and the list's candidates (templates/ratings/_list_new_titles.html)
    with django_assert_num_queries(10):
        response = client.get("/lists/2026-03-01/standard/")
    assert response.status_code == 200
    with django_assert_num_queries(10):  # a filter needs the COUNT; the distribution was kept
        assert client.get("/lists/2026-03-01/standard/", {"sex": "F", "sort": "name"}).status_code == 200


def test_calculation_and_event_pages_query_count(client, sized, django_assert_num_queries):
    with django_assert_num_queries(5):  # player, list, entry, changes, opponents
        assert client.get(f"/players/{sized.star.id_number}/calculations/2026-03-01/standard/").status_code == 200
    with django_assert_num_queries(5):  # event, changes, participants, games, status timeline
        assert client.get(f"/events/{sized.rated_event.pk}/").status_code == 200


def test_home_and_index_query_count(client, sized, django_assert_num_queries):
    with django_assert_num_queries(3):  # latest lists, top standard, top rapid
        assert client.get("/").status_code == 200
    with django_assert_num_queries(1):
        assert client.get("/lists/").status_code == 200
    with django_assert_num_queries(2):  # count, page
        assert client.get("/events/").status_code == 200


@pytest.mark.parametrize(
    ("url", "queries"),
    [
        ("/api/v1/players/", 3),  # count, page, prefetched ratings (+ their bound's check)
        ("/api/v1/rating-lists/", 2),  # count, page
        ("/api/v1/rating-lists/2026-03-01/standard/entries/", 2),  # list, page (count stored on the list)
        ("/api/v1/rating-lists/2026-03-01/standard/entries/?federation=ESP&active=1", 3),
        ("/api/v1/events/", 2),  # count, page
    ],
)
def test_api_list_endpoints_query_count(client, sized, django_assert_num_queries, url, queries):
    if url == "/api/v1/players/":
        queries += current_lists_check_queries()  # current ratings: the bound's check (ratings.models)
    with django_assert_num_queries(queries):
        response = client.get(url)
    assert response.status_code == 200
    assert response.json()["count"] >= N // 4


def test_api_detail_endpoints_query_count(client, sized, django_assert_num_queries):
    # player, ratings (with the ranks stored on them; on PostgreSQL their bound's check), title awards (issue 33)
    with django_assert_num_queries(3 + current_lists_check_queries()):
        assert client.get(f"/api/v1/players/{sized.star.id_number}/").status_code == 200
    with django_assert_num_queries(3):  # player, the player's lines (count and page), the page's changes
        assert client.get(f"/api/v1/players/{sized.star.id_number}/history/").status_code == 200
    with django_assert_num_queries(5):  # event, changes, participants, games, status timeline
        assert client.get(f"/api/v1/events/{sized.rated_event.pk}/").status_code == 200
