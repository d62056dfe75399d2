"""Public league pages and the read-only API: what they show, in English and Spanish, and their query counts."""

import datetime

import pytest
from django.urls import reverse

from leagues.models import Match
from leagues.services import match_card_save
from tests.leagues.conftest import build_league, schedule

pytestmark = pytest.mark.django_db
D = datetime.date


@pytest.fixture
def season(db):
    league = build_league(boards=2, squad=3)
    rounds = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])
    results = iter([["1-0", "1-0"], ["1/2-1/2", "1/2-1/2"], ["0-1", "1-0"], ["1-0", "1/2-1/2"]])
    for matches in rounds[:2]:
        for match in matches:
            match_card_save(match, league.card(match, next(results)), user=league.user)
    return league


def test_the_index_competition_and_season_pages(client, season):
    assert "Metropolitan League" in client.get("/leagues/").content.decode()
    assert "2025-26" in client.get("/leagues/metro/").content.decode()
    page = client.get("/leagues/metro/2025-26/")
    html = page.content.decode()
    assert page.status_code == 200
    assert page["Cache-Control"].startswith("public")
    assert "Division 1" in html
    assert "Club A\u00a01" in html
    assert "Round 3" in html
    assert "1.5 – 0.5" in html  # A–B in round 2, game points
    assert client.get("/leagues/metro/1999/").status_code == 404
    assert client.get("/leagues/nothing/").status_code == 404


def test_the_match_card_and_team_pages(client, season):
    match = Match.objects.filter(boards__isnull=False).first()
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert match.home.label in html
    assert "Board" in html
    assert "2 – 0" in html
    team = season.teams[0]
    html = client.get(f"/teams/{team.pk}/").content.decode()
    assert "Squad" in html
    assert season.squads[team.pk][0].name in html
    assert client.get("/matches/999999999999999999/").status_code == 404
    assert client.get("/teams/0/").status_code == 404


def test_pages_in_spanish_use_the_comma(client, season):
    client.cookies["django_language"] = "es"
    html = client.get("/leagues/metro/2025-26/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "1,5 – 0,5" in html
    assert "Ronda 3" in html
    assert "Equipo" in html


def test_query_counts_of_the_table_and_the_match_card_do_not_grow(client, season, django_assert_num_queries):
    match = Match.objects.filter(boards__isnull=False).first()
    # season: season, divisions, teams, rounds, matches, boards, penalties
    with django_assert_num_queries(7):
        client.get("/leagues/metro/2025-26/")
    with django_assert_num_queries(2):
        client.get(f"/matches/{match.pk}/")
    # team: team, squad, matches, their game points, its players' boards
    with django_assert_num_queries(5):
        client.get(f"/teams/{season.teams[0].pk}/")
    more = build_league(boards=2, squad=3, teams=8, slug="bigger")
    for matches in schedule(more, [D(2025, 9, 10) + datetime.timedelta(days=7 * i) for i in range(7)]):
        for m in matches:
            match_card_save(m, more.card(m, ["1-0", "0-1"]), user=more.user)
    with django_assert_num_queries(7):
        client.get("/leagues/bigger/2025-26/")
    with django_assert_num_queries(5):
        client.get(f"/teams/{more.teams[0].pk}/")
    bigger_match = Match.objects.filter(home__division=more.division).first()
    with django_assert_num_queries(2):
        client.get(f"/matches/{bigger_match.pk}/")


def test_the_api_gives_tables_matches_and_teams(client, season):
    competitions = client.get("/api/v1/leagues/").json()
    assert competitions[0]["slug"] == "metro"
    assert competitions[0]["seasons"][0]["slug"] == "2025-26"
    body = client.get("/api/v1/leagues/metro/2025-26/").json()
    table = body["divisions"][0]["table"]
    assert [row["rank"] for row in table] == sorted(row["rank"] for row in table)
    assert set(table[0]) >= {
        "name",
        "rank",
        "match_points",
        "game_points",
        "wins",
        "draws",
        "losses",
        "sonneborn_berger",
        "buchholz",
        "direct_encounter",
    }
    assert len(body["divisions"][0]["matches"]) == 6
    match = Match.objects.filter(boards__isnull=False).first()
    card = client.get(f"/api/v1/leagues/matches/{match.pk}/").json()
    assert card["home"]["name"] == match.home.name
    assert len(card["boards"]) == 2
    team = client.get(f"/api/v1/leagues/teams/{season.teams[0].pk}/").json()
    assert len(team["squad"]) == 3
    assert len(team["matches"]) == 3
    assert client.get(reverse("api-league", args=["nothing"])).status_code == 404


def test_a_season_of_many_divisions_shows_one_at_a_time(client, season, django_assert_num_queries):
    from leagues.models import Division

    others = [Division.objects.create(season=season.season, name=f"Division {n}", level=n) for n in range(2, 9)]
    with django_assert_num_queries(7):
        html = client.get("/leagues/metro/2025-26/").content.decode()
    assert 'aria-current="page">Division 1</a>' in html
    assert "Club A" in html
    html = client.get(f"/leagues/metro/2025-26/?division={others[-1].pk}").content.decode()
    assert f'href="?division={others[-1].pk}" aria-current="page"' in html
    assert "No team yet." in html
    assert client.get("/leagues/metro/2025-26/?division=99999999999999999999999").status_code == 200


def test_points_are_written_with_the_languages_one_separator():
    from django.utils import translation

    from leagues.templatetags.league_tags import points

    assert (points(3.0), points(None), points(0)) == ("3", "", "0")
    with translation.override("en"):
        assert points(2.5) == "2.5"
    with translation.override("es"):
        assert points(2.5) == "2,5"
        assert points(15.25) == "15,25"
