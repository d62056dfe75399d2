"""A long rating history, bounded a page at a time (issue 17): the profile's overview shows the newest lists and
links the history tab (a year a page, newest first), the API pages the history by lists, the statistics tab
pages its events. Every list and event stays reachable."""

import re

import pytest

from public.selectors.ratings import RECENT_LISTS
from public.views.record import STATISTICS_EVENTS_PAGE_SIZE
from ratings.models import RatingList, RatingListStatus
from tests.factories import make_rated_event, make_rating_change
from tests.public.conftest import build_federation

pytestmark = pytest.mark.django_db

LIST_LINK = re.compile(r'<a href="/lists/(\d{4}-\d\d-\d\d)/(standard|rapid|blitz)/">')
EVENT_LINK = re.compile(r'<a href="/events/\d+/">([^<]+)</a>')


def long_history(standard: int = 20, rapid: int = 4):
    """The star on ``standard`` bimonthly standard lists (over four years) and ``rapid`` rapid lists, with an
    event of their own rated on every standard list but the newest (which rates the fixture's Spring Closed)."""
    federation = build_federation(players=8, lists=standard, rapid_lists=rapid, event_players=4)
    star = federation.star
    for rating_list in federation.lists["standard"][:-1]:
        event = make_rated_event(rating_list, name=f"Open {rating_list.list_date:%Y-%m}")
        make_rating_change(
            rating_list,
            star,
            event,
            details=[{"round": 1, "colour": "w", "opponent": federation.players[1].id_number, "score": 1.0}],
        )
    return federation


def every_list(federation) -> list[tuple[str, str]]:
    """The star's lists as the history orders them: newest first, then by rating type."""
    lists = [rl for kind in ("standard", "rapid") for rl in federation.lists[kind]]
    return [
        (f"{rl.list_date:%Y-%m-%d}", rl.rating_type)
        for rl in sorted(lists, key=lambda rl: (-rl.list_date.toordinal(), rl.rating_type))
    ]


def history_table(page: str) -> str:
    return page[page.index('<table class="history">') : page.index("</table>", page.index('<table class="history">'))]


def test_overview_shows_the_newest_lists_and_links_the_full_history(client):
    federation = long_history()
    page = client.get(f"/players/{federation.star.id_number}/").content.decode()
    shown = LIST_LINK.findall(history_table(page))
    assert shown == every_list(federation)[:RECENT_LISTS]
    assert f'href="/players/{federation.star.id_number}/?tab=history">Full history, year by year' in page
    # the chart (a document of its own) keeps one point a published rating, the whole history
    svg = client.get(f"/players/{federation.star.id_number}/chart.svg").content.decode()
    assert svg.count("<circle") == len(every_list(federation))
    # events of the rows shown and their calculations
    assert "Spring Closed" in page
    assert f"/players/{federation.star.id_number}/calculations/2026-03-01/standard/" in page


def test_a_short_history_has_no_full_history_link(client, federation):
    page = client.get(f"/players/{federation.star.id_number}/").content.decode()
    assert len(LIST_LINK.findall(history_table(page))) == len(every_list(federation)) < RECENT_LISTS
    assert "Full history" not in page


def test_history_tab_pages_by_year_newest_first_and_reaches_every_list_and_event(client):
    federation = long_history()
    url = f"/players/{federation.star.id_number}/"
    page = client.get(url, {"tab": "history"}).content.decode()
    assert 'aria-current="page">History<' in page
    years = [int(y) for y in re.findall(r'(?:<span aria-current="page">|year=\d{4}">)(\d{4})<', page)]
    assert years == sorted({int(day[:4]) for day, _ in every_list(federation)}, reverse=True)
    seen, events, year = [], [], years[0]
    while True:
        table = history_table(page)
        assert f"Published lists of {year}, newest first" in table
        rows = LIST_LINK.findall(table)
        assert rows
        assert {day[:4] for day, _ in rows} == {str(year)}
        seen += rows
        events += EVENT_LINK.findall(table)
        older = re.search(r'<a rel="next" href="\?tab=history&amp;year=(\d{4})"', page)
        if older is None:
            break
        year = int(older.group(1))
        page = client.get(url, {"tab": "history", "year": year}).content.decode()
    assert seen == every_list(federation)  # each list once, newest first across the pages
    assert events == ["Spring Closed"] + [f"Open {rl.list_date:%Y-%m}" for rl in federation.lists["standard"][-2::-1]]


def test_history_tab_filters_by_type_and_takes_the_newest_year_for_any_other(client):
    federation = long_history()
    url = f"/players/{federation.star.id_number}/"
    rapid = client.get(url, {"tab": "history", "rating_type": "rapid"}).content.decode()
    assert {kind for _, kind in LIST_LINK.findall(history_table(rapid))} == {"rapid"}
    newest = history_table(client.get(url, {"tab": "history"}).content.decode())
    assert "Published lists of 2026" in newest
    for year in ("1999", "x", "20266", ""):
        assert history_table(client.get(url, {"tab": "history", "year": year}).content.decode()) == newest
    nobody = federation.players[-1]  # unrated: on every list without a rating
    assert client.get(f"/players/{nobody.id_number}/", {"tab": "history"}).status_code == 200


def test_history_tab_speaks_spanish(client):
    federation = long_history()
    page = client.get(
        f"/players/{federation.star.id_number}/", {"tab": "history"}, HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert ">Historial<" in page
    assert "Listas publicadas de 2026, de la más reciente a la más antigua" in page
    overview = client.get(f"/players/{federation.star.id_number}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Historial completo, año por año" in overview
    assert "Listas recientes" in overview


@pytest.mark.parametrize("lists", [8, 24])
def test_history_pages_read_the_same_whatever_the_history(client, django_assert_num_queries, lists):
    federation = long_history(standard=lists, rapid=lists // 4)
    url = f"/players/{federation.star.id_number}/"
    with django_assert_num_queries(3):  # player, the player's lines (years and the year's rows), their events
        assert client.get(url, {"tab": "history"}).status_code == 200
    with django_assert_num_queries(3):  # player, the player's lines (count and page), the page's events
        assert client.get(f"/api/v1/players/{federation.star.id_number}/history/").status_code == 200


def test_api_history_pages_the_lists_newest_first_and_keeps_its_keys(client):
    federation = long_history()
    url = f"/api/v1/players/{federation.star.id_number}/history/"
    first = client.get(url).json()
    assert set(first) == {"id_number", "name", "count", "next", "previous", "history"}
    assert first["count"] == len(every_list(federation))
    assert first["previous"] is None
    assert len(first["history"]) == RECENT_LISTS
    rows, data = [], first
    while True:
        rows += data["history"]
        if data["next"] is None:
            break
        data = client.get(data["next"]).json()
    assert [(row["list_date"], row["rating_type"]) for row in rows] == every_list(federation)
    events = [event["event_name"] for row in rows for event in row["events"]]
    assert events[0] == "Spring Closed"
    assert len(events) == len(federation.lists["standard"])
    whole = client.get(url, {"page_size": 500}).json()
    assert whole["history"] == rows
    assert whole["next"] is None
    assert client.get(url, {"page": 99}).status_code == 404
    assert client.get(url, {"page_size": "x"}).status_code == 400


def test_statistics_tab_pages_the_events_newest_first(client):
    federation = long_history()
    url = f"/players/{federation.star.id_number}/"
    names = []
    for number in (1, 2):
        page = client.get(url, {"tab": "statistics", "page": number}).content.decode()
        table = page[page.index('<table class="events">') :]
        names += EVENT_LINK.findall(table[: table.index("</table>")])
    assert len(names) == len(federation.lists["standard"]) > STATISTICS_EVENTS_PAGE_SIZE
    assert names[0] == "Spring Closed"
    assert names[1:] == [f"Open {rl.list_date:%Y-%m}" for rl in federation.lists["standard"][-2::-1]]
    assert "page 1 of 2" in client.get(url, {"tab": "statistics"}).content.decode()


def test_only_current_lists_are_in_the_history(client):
    """A list that is not current (here back to a draft) is on no page of the history."""
    federation = long_history()
    old = federation.lists["standard"][5]
    RatingList.objects.filter(pk=old.pk).update(status=RatingListStatus.DRAFT)
    data = client.get(f"/api/v1/players/{federation.star.id_number}/history/", {"page_size": 100}).json()
    assert (f"{old.list_date:%Y-%m-%d}", "standard") not in [
        (r["list_date"], r["rating_type"]) for r in data["history"]
    ]


def test_overview_reads_the_newest_lists_partitions_only(client):
    """The overview's lines come from the newest RECENT_LISTS lists of each type (public.selectors.ratings
    .recent_lists): on PostgreSQL the planner visits those lists' partitions, not one a list kept (issue 17)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from public.selectors.ratings import recent_lists

    if connection.vendor != "postgresql":
        pytest.skip("partitions are PostgreSQL's storage of the entries; SQLite keeps one table")
    federation = long_history()
    window, older = recent_lists()
    newest = [rl.pk for kind in ("standard", "rapid") for rl in federation.lists[kind][::-1][:RECENT_LISTS]]
    assert sorted(window) == sorted(newest)
    assert older
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/players/{federation.star.id_number}/").status_code == 200
    reads = [q["sql"] for q in queries.captured_queries if 'FROM "ratings_ratinglistentry"' in q["sql"]]
    assert len(reads) == 1, reads
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {reads[0]}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    visited = {int(name) for name in re.findall(r" on ratings_ratinglistentry_(\d+)", plan)}  # not the aliases
    assert visited == set(window), plan
    assert federation.lists["standard"][0].pk not in visited


def test_the_newest_lists_are_read_without_building_every_list_kept(client):
    """latest_current_lists (home, lists, top lists, federation pages) answers the newest current list of each
    type by reading those headers only: building a model of every list kept, rules and all, made the federation
    page 1.2x slower from list 13 to list 60 of bench/history.py (issue 17)."""
    from django.db.models.signals import post_init

    from public.selectors.ratings import latest_current_lists

    federation = long_history(standard=20, rapid=4)
    built: list[RatingList] = []

    def count(sender, instance, **kwargs):
        built.append(instance)

    post_init.connect(count, sender=RatingList)
    try:
        newest = latest_current_lists()
    finally:
        post_init.disconnect(count, sender=RatingList)
    assert newest == [federation.lists["standard"][-1], federation.lists["rapid"][-1]]
    assert sorted(rl.pk for rl in built) == sorted(rl.pk for rl in newest)  # a header a type, not a list kept
    # a list superseded by its correction is not current: its correction is the newest
    old = federation.lists["standard"][-1]
    RatingList.objects.filter(pk=old.pk).update(status=RatingListStatus.DRAFT)
    assert latest_current_lists()[0] == federation.lists["standard"][-2]
