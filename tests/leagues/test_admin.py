"""The admin's match card screen and division actions: problems named before saving, nothing written on refusal."""

import datetime

import pytest

from leagues.models import Board, LeagueRound, Match, MatchStatus
from tests.leagues.conftest import build_league, schedule

pytestmark = pytest.mark.django_db
D = datetime.date


@pytest.fixture
def desk(client):
    league = build_league()
    client.force_login(league.user)
    match = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])[0][0]
    return league, match, client, f"/admin/leagues/match/{match.pk}/card/"


def card_data(league, match, results, **extra):
    home, away = league.squads[match.home_id], league.squads[match.away_id]
    data = {}
    for n, result in enumerate(results, 1):
        data |= {f"b{n}-home": home[n - 1].id_number, f"b{n}-away": away[n - 1].id_number, f"b{n}-result": result}
    return data | extra


def test_the_card_screen_offers_squad_autocomplete_and_saves(desk):
    league, match, client, url = desk
    page = client.get(url).content.decode()
    assert 'list="squad-home"' in page
    assert str(league.squads[match.home_id][0].id_number) in page
    response = client.post(url, card_data(league, match, ["1-0", "0-1"], _save="1"))
    assert response.status_code == 302
    assert Match.objects.get(pk=match.pk).status == MatchStatus.ENTERED
    assert Board.objects.filter(match=match).count() == 2


def test_breaches_are_shown_and_saved_only_when_accepted(desk):
    league, match, client, url = desk
    data = card_data(league, match, ["1-0", "0-1"], _save="1")
    data["b1-home"], data["b2-home"] = data["b2-home"], data["b1-home"]  # out of squad order
    page = client.post(url, data).content.decode()
    assert "Board order (" in page
    assert "accept_breaches" in page
    assert not Board.objects.exists()
    assert client.post(url, data | {"accept_breaches": "1"}).status_code == 302
    assert Board.objects.count() == 2


def test_a_bad_row_is_named_and_nothing_written(desk):
    league, match, client, url = desk
    data = card_data(league, match, ["1-0", "0-1"], _save="1") | {"b2-away": "12ab"}
    page = client.post(url, data).content.decode()
    assert "Board 2: the away ID &#x27;12ab&#x27; is not an ID number." in page
    assert not Board.objects.exists()


def test_pasted_lineups_fill_the_rows_without_saving(desk):
    league, match, client, url = desk
    home, away = league.squads[match.home_id], league.squads[match.away_id]
    text = f"1\t{home[0].id_number}\t{away[0].id_number}\t1-0\n2\t{home[1].id_number}\t{away[1].id_number}\t½-½"
    page = client.post(url, {"_paste": "1", "lineups": text}).content.decode()
    assert f'value="{away[1].id_number}"' in page
    assert '<option value="1/2-1/2" selected>' in page
    assert not Board.objects.exists()
    page = client.post(url, {"_paste": "1", "lineups": text + "\n9\t1\t2\t1-0"}).content.decode()
    assert "Board 9: a match of Metropolitan League has boards 1 to 2." in page
    assert 'name="lineups" rows="6">' in page  # the pasted text is kept to be fixed


def test_the_fixtures_action_says_what_it_will_do_then_draws(client):
    league = build_league(slug="fixtures")
    client.force_login(league.user)
    url = "/admin/leagues/division/"
    base = {"action": "draw_fixtures", "_selected_action": [league.division.pk]}
    page = client.post(url, base).content.decode()
    assert "4 teams, 3 rounds and 6 matches" in page
    assert not LeagueRound.objects.exists()
    client.post(url, base | {"_apply": "1", "first_date": "2025-09-10", "days_between": "7", "home_and_away": "on"})
    assert LeagueRound.objects.filter(division=league.division).count() == 6


def test_the_slices_action_says_which_slices_go_now_and_which_wait(client):
    from leagues.services import match_card_save

    league = build_league(slug="slices")
    client.force_login(league.user)
    rounds = schedule(league, [D(2026, 1, 8), D(2026, 1, 22), D(2026, 2, 26)])
    for match in rounds[0] + rounds[1]:
        match_card_save(match, league.card(match, ["1-0", "0-1"]), user=league.user)
    base = {"action": "rate_complete_slices", "_selected_action": [league.division.pk]}
    page = client.post("/admin/leagues/division/", base).content.decode()
    assert '2026-01-08</span> – <span class="nowrap">2026-01-22</span>:' in page
    assert "4 matches complete: submitted now" in page
    assert "2 matches not rated yet, not all complete: wait" in page
    client.post("/admin/leagues/division/", base | {"_apply": "1"})
    page = client.post("/admin/leagues/division/", base).content.decode()
    assert "4 matches rated already" in page


def test_many_divisions_are_queued_one_task_each(client):
    from leagues.models import Division
    from leagues.services import match_card_save
    from leagues.tasks import RATE_DIVISION_TASK, rate_division_slices_task
    from outbox.models import PendingTask

    league = build_league(slug="many")
    client.force_login(league.user)
    rounds = schedule(league, [D(2026, 1, 8), D(2026, 1, 22), D(2026, 2, 26)])
    for match in rounds[0]:
        match_card_save(match, league.card(match, ["1-0", "0-1"]), user=league.user)
    extra = [Division.objects.create(season=league.season, name=f"Division {n}", level=n) for n in range(2, 8)]
    selected = [league.division.pk, *(d.pk for d in extra)]
    client.post(
        "/admin/leagues/division/", {"action": "rate_complete_slices", "_selected_action": selected, "_apply": "1"}
    )
    queued = PendingTask.objects.filter(name=RATE_DIVISION_TASK)
    assert sorted(task.args[0] for task in queued) == sorted(selected)
    assert rate_division_slices_task(league.division.pk, league.user.pk) == {
        "division": league.division.pk,
        "slices": 0,
        "submitted": 0,
        "games": 0,
    }  # round 2 is not entered: the first slice (8–22 January) waits
    for match in rounds[1]:
        match_card_save(match, league.card(match, ["1-0", "0-1"]), user=league.user)
    assert rate_division_slices_task(league.division.pk, league.user.pk)["submitted"] == 1
    assert rate_division_slices_task(league.division.pk, league.user.pk)["slices"] == 0  # idempotent
