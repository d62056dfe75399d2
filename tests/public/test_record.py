"""A player's record: the profile's games, opponents and statistics tabs, the head-to-head page, their API
twins, and the provisional mark."""

import re

import pytest

from events.models import RESULT_POINTS, Game
from ratings.engine.performance import fide_performance
from ratings.models import RatingChange

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
    assert "Spring Closed" in html and 'aria-current="page">Games<' in html
    # the changes shown per game add up to the event's change
    shown = [float(v.replace("−", "-")) for v in re.findall(r'<span class="(?:up|down)">([+−]\d+\.\d\d)</span>', html)]
    assert sum(shown) == pytest.approx(change.change, abs=0.05)


def test_games_tab_pages(client, federation, monkeypatch):
    monkeypatch.setattr("public.views.record.RECORD_PAGE_SIZE", 2)
    star = federation.star
    first = client.get(f"/players/{star.id_number}/", {"tab": "games"}).content.decode()
    third = client.get(f"/players/{star.id_number}/", {"tab": "games", "page": "3"}).content.decode()
    assert "page 1 of 3" in first and 'rel="next"' in first
    assert "page 3 of 3" in third and 'rel="next"' not in third
    assert len(re.findall(r"<td>\d{4}-\d\d-\d\d</td>", third)) == 1
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
    assert "0 rated games" in html and "No rated game yet." in html
    spanish = client.get(f"/players/{star.id_number}/", {"tab": "statistics"}, HTTP_ACCEPT_LANGUAGE="es")
    assert "Rating máximo" in spanish.content.decode() and "Rendimiento por torneo" in spanish.content.decode()


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
    ("params", "queries"),
    [
        ({"tab": "games"}, 3),  # player, changes, opponents of the page
        ({"tab": "opponents"}, 3),
        ({"tab": "statistics"}, 3),  # player, changes, peaks
    ],
)
def test_record_query_counts(client, db, django_assert_num_queries, params, queries, size):
    from tests.public.conftest import build_federation

    federation = build_federation(players=size, lists=size // 4, event_players=size // 2)
    with django_assert_num_queries(queries):
        assert client.get(f"/players/{federation.star.id_number}/", params).status_code == 200
    with django_assert_num_queries(4):  # both players, their participations, the games
        url = f"/players/{federation.star.id_number}/vs/{federation.players[1].id_number}/"
        assert client.get(url).status_code == 200


# --- API ----------


def test_api_games_and_opponents(client, federation):
    star = federation.star
    data = client.get(f"/api/v1/players/{star.id_number}/games/").json()
    (change,) = star_changes(federation)
    assert data["count"] == len(change.details)
    row = data["results"][0]
    assert row["event_name"] == "Spring Closed" and row["opponent"]["name"] and row["colour"] in ("white", "black")
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
    assert data["events"][0]["event_name"] == "Spring Closed" and data["events"][0]["performance"]
    vs = client.get(f"/api/v1/players/{star.id_number}/vs/{other.id_number}/").json()
    assert len(vs["games"]) == 1 and vs["first_score"] + vs["second_score"] == 1
    assert vs["first"]["id_number"] == star.id_number


def test_api_record_query_counts(client, federation, django_assert_num_queries):
    star = federation.star
    with django_assert_num_queries(3):  # player, changes, opponents
        assert client.get(f"/api/v1/players/{star.id_number}/games/").status_code == 200
    with django_assert_num_queries(4):  # player, changes, ratings, peaks
        assert client.get(f"/api/v1/players/{star.id_number}/statistics/").status_code == 200
    with django_assert_num_queries(4):  # both players, their participations, the games
        assert client.get(f"/api/v1/players/{star.id_number}/vs/{federation.players[2].id_number}/").status_code == 200


def test_openapi_documents_the_record(client, db):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").content.decode()
    for path in ("/games/", "/opponents/", "/statistics/", "/vs/{other_id_number}/"):
        assert path in schema
