"""A player's record: the profile's games, opponents and statistics tabs, the head-to-head page, their API
twins, and the provisional mark."""

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from events.models import RESULT_POINTS, Event, EventStatus, Game, Result
from events.services import event_correct
from players.services import player_merge
from public.selectors.record import RecordGames, game_rows, player_rating_changes
from ratings.engine.performance import fide_performance
from ratings.models import RatingChange, RatingList, RatingListStatus, current_lists_check_queries
from tests.events.test_admin_roles import make_officer
from tests.events.test_entry_services import edit_of
from tests.factories import make_rated_event, make_rating_change

pytestmark = pytest.mark.django_db


def star_changes(federation):
    return list(RatingChange.objects.filter(player=federation.star))


def test_games_tab_lists_every_rated_game_with_opponent_rating_result_and_change(client, federation):
    star = federation.star
    html = client.get(f"/players/{star.id_number}/", {"tab": "games"}).content.decode()
    (change,) = star_changes(federation)
    assert f"{len(change.details)} rated games" in html
    for line in change.details:
        assert f'href="/players/{line["opponent"]}/"' in html
        assert f'href="/players/{star.id_number}/vs/{line["opponent"]}/"' in html
    assert "Spring Closed" in html
    assert 'aria-current="page">Games<' in html
    # the changes shown per game add up to the event's change
    shown = [float(v.replace("−", "-")) for v in re.findall(r'<span class="(?:up|down)">([+−]\d+\.\d\d)</span>', html)]
    assert sum(shown) == pytest.approx(change.change, abs=0.05)


def test_games_tab_pages(client, federation, monkeypatch):
    monkeypatch.setattr("public.views.record.RECORD_PAGE_SIZE", 2)
    star = federation.star
    first = client.get(f"/players/{star.id_number}/", {"tab": "games"}).content.decode()
    third = client.get(f"/players/{star.id_number}/", {"tab": "games", "page": "3"}).content.decode()
    assert "page 1 of 3" in first
    assert 'rel="next"' in first
    assert "page 3 of 3" in third
    assert 'rel="next"' not in third
    assert len(re.findall(r'<td class="date">\d{4}-\d\d-\d\d</td>', third)) == 1
    assert client.get(f"/players/{star.id_number}/", {"tab": "games", "page": "x"}).status_code == 200


def test_opponents_tab_has_games_score_and_performance(client, federation):
    star = federation.star
    html = client.get(f"/players/{star.id_number}/", {"tab": "opponents"}).content.decode()
    (change,) = star_changes(federation)
    assert f"{len(change.details)} opponents" in html
    line = change.details[0]
    expected = fide_performance([line["opponent_rating"]], line["score"]).rating
    assert f'<td class="num">{expected}</td>' in html


def test_statistics_tab_has_colours_peaks_and_events(client, federation):
    star = federation.star
    html = client.get(f"/players/{star.id_number}/", {"tab": "statistics"}).content.decode()
    entries = star.list_entries.filter(rating__isnull=False, rating_list__rating_type="standard")
    peak = max(entries, key=lambda e: (e.rating, -e.rating_list.list_date.toordinal()))
    assert f"<strong>{peak.rating}</strong> (list of {peak.rating_list.list_date:%Y-%m-%d})" in html
    (change,) = star_changes(federation)
    whites = sum(1 for line in change.details if line["colour"].startswith("w"))
    assert re.search(rf'<th scope="row">White</th><td class="num">{whites}</td>', html)
    performance = fide_performance([line["opponent_rating"] for line in change.details], change.score).rating
    assert f'<td class="num">{performance}</td>' in html


def test_record_tabs_filter_by_rating_type_and_speak_spanish(client, federation):
    star = federation.star
    html = client.get(f"/players/{star.id_number}/", {"tab": "games", "rating_type": "rapid"}).content.decode()
    assert "0 rated games" in html
    assert "No rated game yet." in html
    spanish = client.get(f"/players/{star.id_number}/", {"tab": "statistics"}, HTTP_ACCEPT_LANGUAGE="es")
    assert "Elo máximo" in spanish.content.decode()
    assert "Rendimiento por torneo" in spanish.content.decode()


def test_head_to_head_page_lists_the_games_and_the_score(client, federation):
    star, other = federation.players[0], federation.players[1]
    games = [
        g
        for g in Game.objects.select_related("white__player", "black__player").filter(event=federation.rated_event)
        if {g.white.player_id, g.black.player_id} == {star.pk, other.pk}
    ]
    assert len(games) == 1
    game = games[0]
    points = RESULT_POINTS[game.result][0 if game.white.player_id == star.pk else 1]
    html = client.get(f"/players/{star.id_number}/vs/{other.id_number}/").content.decode()
    assert f"<strong>{points:g} – {1 - points:g}</strong>".replace("0.5", "½") in html
    assert "Spring Closed" in html
    none = client.get(f"/players/{star.id_number}/vs/{federation.players[-1].id_number}/").content.decode()
    assert "These players have not met in a rated game." in none
    assert client.get(f"/players/{star.id_number}/vs/999999999/").status_code == 404
    spanish = client.get(f"/players/{star.id_number}/vs/{other.id_number}/", HTTP_ACCEPT_LANGUAGE="es")
    assert "Blancas" in spanish.content.decode()


def test_provisional_ratings_are_marked(client, federation):
    star = federation.star
    assert "provisional" in client.get(f"/players/{star.id_number}/").content.decode()  # no games counted
    star.list_entries.update(rated_games_total=120)
    html = client.get(f"/players/{star.id_number}/").content.decode()
    assert 'class="badge provisional"' not in html


@pytest.mark.parametrize("size", [8, 24])
@pytest.mark.parametrize(
    ("params", "first", "again"),
    [
        # player, record_version, the changes' line counts (then cached), the page's changes, opponents of the page
        ({"tab": "games"}, 5, 4),
        ({"tab": "opponents"}, 4, 3),  # player, record_version, the changes (then cached), opponents of the page
        ({"tab": "statistics"}, 4, 2),  # player, record_version, the changes and the peaks (then cached)
    ],
)
def test_record_query_counts(client, db, django_assert_num_queries, params, first, again, size):
    from tests.public.conftest import build_federation

    federation = build_federation(players=size, lists=size // 4, event_players=size // 2)
    url = f"/players/{federation.star.id_number}/"
    with django_assert_num_queries(first):
        assert client.get(url, params).status_code == 200
    with django_assert_num_queries(again):
        assert client.get(url, params).status_code == 200
    vs = f"/players/{federation.star.id_number}/vs/{federation.players[1].id_number}/"
    with django_assert_num_queries(5):  # both players, record_version, their participations, the games
        assert client.get(vs).status_code == 200
    with django_assert_num_queries(3):  # both players, record_version (the games from the cache)
        assert client.get(vs).status_code == 200


def give_history(federation, lists: int, skip: int = 0) -> list[RatingChange]:
    """The star's record over ``lists`` more standard lists before the fixture's (a rated event on each, its
    change holding the same game lines as the star's change of the fixture), as a long history gives it."""
    change = RatingChange.objects.get(player=federation.star, event=federation.rated_event)
    made = []
    first = federation.lists["standard"][0].list_date
    for n in range(skip + 1, skip + lists + 1):
        day = datetime.date(first.year - (n + 5) // 6, 1 + 2 * ((-n) % 6), 1)
        rating_list = RatingList.objects.create(
            rating_type="standard",
            list_date=day,
            closing_date=day - datetime.timedelta(days=7),
            status=RatingListStatus.PUBLISHED,
            rules_preset="fide-2024",
            rules={},
            published_at=datetime.datetime(day.year, day.month, 1, tzinfo=datetime.UTC),
        )
        event = make_rated_event(rating_list, name=f"Old Open {n}")
        made.append(
            make_rating_change(
                rating_list,
                federation.star,
                event,
                rating_before=change.rating_before,
                k_factor=change.k_factor,
                games=change.games,
                score=change.score,
                expected_score=change.expected_score,
                change=change.change,
                details=change.details,
            )
        )
    return made


def test_a_page_of_games_is_the_slice_of_the_whole_record(federation):
    give_history(federation, 9)
    every = game_rows(player_rating_changes(federation.star))
    games = RecordGames(federation.star)
    assert games.count() == len(every) == 50
    for start in range(0, 50, 7):  # pages that begin and end inside a change's lines
        assert [vars(row) for row in games[start : start + 7]] == [vars(row) for row in every[start : start + 7]]
    assert [vars(row) for row in games] == [vars(row) for row in every]
    assert vars(games[-1]) == vars(every[-1])
    assert games[60:70] == []


@pytest.mark.parametrize("path", ["/players/{}/?tab=games", "/api/v1/players/{}/games/?page_size=5"])
def test_page_one_reads_the_same_whatever_the_history(client, federation, monkeypatch, path):
    """Issue 17: the first page of games reads the details of the changes it shows, not of the whole record."""
    monkeypatch.setattr("public.views.record.RECORD_PAGE_SIZE", 5)
    read: list[int] = []

    def counted(changes):
        read.append(len(changes))
        return game_rows(changes)

    monkeypatch.setattr("public.selectors.record.game_rows", counted)
    url = path.format(federation.star.id_number)
    seen = []
    for more, skip in ((1, 0), (18, 1)):  # the star on 2 lists, then on 20
        give_history(federation, more, skip=skip)
        read.clear()
        with CaptureQueriesContext(connection) as queries:
            body = client.get(url).content.decode()
        seen.append((len(queries), read[:], body.count("Spring Closed")))
    assert RatingChange.objects.filter(player=federation.star).count() == 20
    # the newest change only: its 5 games fill the page (player, record_version, line counts, the page's changes,
    # its opponents)
    assert seen[0] == seen[1] == (5, [1], 5)


def test_second_visit_reads_no_rating_change(client, federation):
    star = federation.star
    for path, params in (
        (f"/players/{star.id_number}/", {"tab": "statistics"}),
        (f"/players/{star.id_number}/", {"tab": "opponents"}),
        (f"/api/v1/players/{star.id_number}/statistics/", {}),
        (f"/api/v1/players/{star.id_number}/opponents/", {}),
        (f"/players/{star.id_number}/vs/{federation.players[1].id_number}/", {}),
    ):
        first = client.get(path, params).content
        with CaptureQueriesContext(connection) as queries:
            assert client.get(path, params).content == first
        sql = " ".join(query["sql"] for query in queries)
        assert "ratings_ratingchange" not in sql
        assert "ratings_ratinglistentry" not in sql
        assert "events_game" not in sql


def _publish_change(
    federation, name: str, months: int = 2, supersede: RatingList | None = None, score: float = 1.0
) -> RatingList:
    """A list published now ``months`` after the fixture's latest (or a correction of ``supersede``) rating the
    star in a new event."""
    latest = federation.latest.list_date
    day = (
        supersede.list_date
        if supersede
        else datetime.date(latest.year + (latest.month + months - 1) // 12, (latest.month + months - 1) % 12 + 1, 1)
    )
    rating_list = RatingList.objects.create(
        rating_type="standard",
        list_date=day,
        version=2 if supersede else 1,
        closing_date=day - datetime.timedelta(days=7),
        status=RatingListStatus.DRAFT,
        rules_preset="fide-2024",
        rules={},
    )
    if supersede:
        RatingList.objects.filter(pk=supersede.pk).update(superseded_by=rating_list, superseded_at=timezone.now())
    RatingList.objects.filter(pk=rating_list.pk).update(status=RatingListStatus.PUBLISHED, published_at=timezone.now())
    event = Event.objects.create(
        name=name, start_date=day - datetime.timedelta(days=20), end_date=day - datetime.timedelta(days=15)
    )
    opponent = federation.players[-2]
    make_rating_change(
        rating_list,
        federation.star,
        event,
        score=score,
        change=10 * (score - 0.5),
        details=[{"round": 1, "colour": "w", "opponent": opponent.id_number, "opponent_rating": 2000, "score": score}],
    )
    return rating_list


def test_a_publication_or_a_correction_shows_at_once(client, federation):
    star = federation.star
    pages = [
        (f"/players/{star.id_number}/", {"tab": "statistics"}),
        (f"/players/{star.id_number}/", {"tab": "opponents"}),
        (f"/api/v1/players/{star.id_number}/statistics/", {}),
    ]
    before = [client.get(path, params).content.decode() for path, params in pages]
    assert not any("Autumn Open" in body for body in before)
    (change,) = star_changes(federation)
    published = _publish_change(federation, "Autumn Open")
    after = [client.get(path, params).content.decode() for path, params in pages]
    assert "Autumn Open" in after[0]
    assert "Autumn Open" in after[2]
    assert f"{len(change.details) + 1} opponents" in after[1]
    # a correction: a new version of that list, the event rated again with another score
    _publish_change(federation, "Autumn Open (corrected)", supersede=published, score=0.0)
    corrected = client.get(*pages[0]).content.decode()
    assert "Autumn Open (corrected)</a>" in corrected
    assert "Autumn Open</a>" not in corrected
    # a draft computed before another list and published after it, as it is (rating_list_write's promote):
    # the newest list's key would not change
    draft = _publish_change(federation, "Promoted Open", months=4)
    RatingList.objects.filter(pk=draft.pk).update(status=RatingListStatus.DRAFT, published_at=None)
    _publish_change(federation, "Later Open", months=6)
    shown = client.get(*pages[0]).content.decode()
    assert "Later Open" in shown
    assert "Promoted Open" not in shown
    RatingList.objects.filter(pk=draft.pk).update(status=RatingListStatus.PUBLISHED, published_at=timezone.now())
    assert "Promoted Open" in client.get(*pages[0]).content.decode()


def test_a_merge_shows_at_once(client, federation):
    star, duplicate = federation.star, federation.players[-1]
    url = f"/players/{star.id_number}/"
    assert "Duplicate Open" not in client.get(url, {"tab": "statistics"}).content.decode()
    event = Event.objects.create(name="Duplicate Open", end_date=federation.latest.list_date, status=EventStatus.RATED)
    RatingChange.objects.create(
        rating_list=federation.latest,
        player=duplicate,
        event=event,
        games=0,
        score=0,
        expected_score=0,
        change=0,
        details=[],
    )
    player_merge(star, duplicate, user=make_officer(), reason="same person")
    assert "Duplicate Open" in client.get(url, {"tab": "statistics"}).content.decode()


def test_a_corrected_game_shows_at_once_on_the_head_to_head(client, federation):
    star, other = federation.players[0], federation.players[1]
    url = f"/players/{star.id_number}/vs/{other.id_number}/"
    game = next(
        g
        for g in Game.objects.select_related("white", "black").filter(event=federation.rated_event)
        if {g.white.player_id, g.black.player_id} == {star.pk, other.pk}
    )
    new_result = Result.BLACK_WIN if game.result != Result.BLACK_WIN else Result.WHITE_WIN
    before = client.get(url).content.decode()
    event_correct(
        federation.rated_event, user=make_officer(), reason="wrong result", edits=[edit_of(game, result=new_result)]
    )
    after = client.get(url).content.decode()
    star_points = RESULT_POINTS[new_result][0 if game.white.player_id == star.pk else 1]
    assert after != before
    assert f"<strong>{star_points:g} – {1 - star_points:g}</strong>" in after


# --- API ----------


def test_api_games_and_opponents(client, federation):
    star = federation.star
    data = client.get(f"/api/v1/players/{star.id_number}/games/").json()
    (change,) = star_changes(federation)
    assert data["count"] == len(change.details)
    row = data["results"][0]
    assert row["event_name"] == "Spring Closed"
    assert row["opponent"]["name"]
    assert row["colour"] in ("white", "black")
    assert sum(r["rating_change"] for r in data["results"]) == pytest.approx(change.change, abs=0.05)
    assert client.get(f"/api/v1/players/{star.id_number}/games/", {"rating_type": "blitz"}).json()["count"] == 0
    assert client.get(f"/api/v1/players/{star.id_number}/games/", {"rating_type": "x"}).status_code == 400
    opponents = client.get(f"/api/v1/players/{star.id_number}/opponents/").json()
    assert opponents["count"] == len(change.details)
    assert {r["games"] for r in opponents["results"]} == {1}
    assert client.get("/api/v1/players/999999999/games/").status_code == 404


def test_api_statistics_and_head_to_head(client, federation):
    star, other = federation.players[0], federation.players[1]
    data = client.get(f"/api/v1/players/{star.id_number}/statistics/").json()
    assert {r["rating_type"] for r in data["ratings"]} == {"standard", "rapid"}
    assert all(r["provisional"] for r in data["ratings"])
    assert [c["colour"] for c in data["colours"]] == ["white", "black", "all"]
    assert data["colours"][2]["games"] == data["colours"][0]["games"] + data["colours"][1]["games"]
    assert data["events"][0]["event_name"] == "Spring Closed"
    assert data["events"][0]["performance"]
    vs = client.get(f"/api/v1/players/{star.id_number}/vs/{other.id_number}/").json()
    assert len(vs["games"]) == 1
    assert vs["first_score"] + vs["second_score"] == 1
    assert vs["first"]["id_number"] == star.id_number


def test_api_record_query_counts(client, federation, django_assert_num_queries):
    star = federation.star
    # player, record_version, the changes' line counts (then cached), the page's changes, opponents
    with django_assert_num_queries(5):
        assert client.get(f"/api/v1/players/{star.id_number}/games/").status_code == 200
    with django_assert_num_queries(4):
        assert client.get(f"/api/v1/players/{star.id_number}/games/").status_code == 200
    # player, record_version, changes, ratings (on PostgreSQL their bound's check), peaks
    with django_assert_num_queries(5 + current_lists_check_queries()):
        assert client.get(f"/api/v1/players/{star.id_number}/statistics/").status_code == 200
    # player, record_version, ratings (+ check; the rest from the cache)
    with django_assert_num_queries(3 + current_lists_check_queries()):
        assert client.get(f"/api/v1/players/{star.id_number}/statistics/").status_code == 200
    with django_assert_num_queries(5):  # both players, record_version, their participations, the games
        assert client.get(f"/api/v1/players/{star.id_number}/vs/{federation.players[2].id_number}/").status_code == 200


def test_openapi_documents_the_record(client, db):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").content.decode()
    for path in ("/games/", "/opponents/", "/statistics/", "/vs/{other_id_number}/"):
        assert path in schema
