"""League pages drawn by real Chromium at phone (390 px) and desktop (1280 px) widths, in English and Spanish: the
page never scrolls sideways, the table's rank, team, match points and game points stay in sight; the match card is
entered with the keyboard only. Screenshots are kept under /tmp/shots/leagues/ to be looked at."""

import datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from leagues.models import Board, Match, MatchStatus
from leagues.services import match_card_save
from tests.browsers import BROWSER_MARKS
from tests.leagues.conftest import build_league, schedule

SHOTS = Path("/tmp/shots/leagues")
D = datetime.date

pytestmark = BROWSER_MARKS


@pytest.fixture
def league(transactional_db):
    league = build_league(teams=6, boards=4, squad=5, slug="metro")
    for team in league.teams:  # long club names, as real ones are
        team.club.name = f"{team.club.name} Ajedrez Universitario"
        team.club.save()
    rounds = schedule(league, [D(2025, 9, 10) + datetime.timedelta(days=7 * i) for i in range(5)])
    results = ["1-0", "1/2-1/2", "0-1", "+-"]
    for matches in rounds[:3]:
        for n, match in enumerate(matches):
            match_card_save(match, league.card(match, results[n:] + results[:n]), user=league.user)
    return league


def open_page(browser, live_server, url: str, width: int, language: str, session: str | None = None):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    cookies = [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}]
    if session:
        cookies.append({"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url})
    context.add_cookies(cookies)
    page = context.new_page()
    page.goto(live_server.url + url)
    return page


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("language", ["en", "es"])
def test_league_pages_fit_the_screen_in_both_languages(browser, live_server, league, width, language):
    SHOTS.mkdir(parents=True, exist_ok=True)
    match = Match.objects.filter(status=MatchStatus.ENTERED).first()
    pages = {
        "index": "/leagues/",
        "season": "/leagues/metro/2025-26/",
        "match": f"/matches/{match.pk}/",
        "team": f"/teams/{league.teams[0].pk}/",
    }
    for name, url in pages.items():
        page = open_page(browser, live_server, url, width, language)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width, language)
        page.screenshot(path=str(SHOTS / f"{name}-{width}-{language}.png"), full_page=True)
        if name in ("match", "team"):
            # every column of the card and of the team's matches in sight: nothing to scroll for on a phone
            last = page.locator("table.match-card thead th, table.fixtures thead th").last.bounding_box()
            assert last is not None
            assert last["x"] + last["width"] <= width, (name, width, language)
        if name == "season":
            page.locator("details.league-crosstable summary").first.click()
            page.screenshot(path=str(SHOTS / f"season-crosstable-{width}-{language}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, ("crosstable", width, language)
            # the away team of every fixture, played or to come, in sight (a status word pushed it off a phone)
            for cell in page.locator("table.fixtures td:nth-child(3)").all():
                box = cell.bounding_box()
                assert box is not None
                assert box["x"] + box["width"] <= width, ("fixtures", width, language, cell.inner_text())
            header = page.locator("table.league-table thead th")
            visible = [h.inner_text() for h in header.all() if h.is_visible()]
            first_row = page.locator("table.league-table tbody tr").first
            box = first_row.bounding_box()
            assert box is not None
            assert box["width"] <= width
            assert visible[:2] == ["#", "Team" if language == "en" else "Equipo"]
            assert ("MP" if language == "en" else "PE") in visible
            assert ("GP" if language == "en" else "PP") in visible
            # the columns that matter are on screen without scrolling
            for label in ("MP", "GP") if language == "en" else ("PE", "PP"):
                cell = page.locator("table.league-table thead th", has_text=label).first.bounding_box()
                assert cell is not None
                assert cell["x"] + cell["width"] <= width, (label, width)
        page.context.close()


def test_a_match_card_is_entered_with_the_keyboard_only(browser, live_server, league):
    client = Client()
    client.force_login(league.user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    match = Match.objects.filter(status=MatchStatus.SCHEDULED).first()
    home, away = league.squads[match.home_id], league.squads[match.away_id]
    for width in (390, 1280):
        for language in ("en", "es"):
            page = open_page(browser, live_server, f"/admin/leagues/match/{match.pk}/card/", width, language, session)
            page.screenshot(path=str(SHOTS / f"admin-card-{width}-{language}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, language)
            page.context.close()
    page = open_page(browser, live_server, f"/admin/leagues/match/{match.pk}/card/", 1280, "en", session)
    page.locator("input[name=b1-home]").focus()  # autofocus puts the cursor here
    for board in range(1, 5):
        page.keyboard.type(str(home[board - 1].id_number))
        page.keyboard.press("Tab")
        page.keyboard.type(str(away[board - 1].id_number))
        page.keyboard.press("Tab")
        page.keyboard.type("1" if board % 2 else "0")  # "1-0" / "0-1" picked by their first key
        if board < 4:
            page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_load_state()
    page.screenshot(path=str(SHOTS / "admin-card-saved-1280-en.png"), full_page=True)
    results = list(Board.objects.filter(match=match).order_by("number").values_list("result", flat=True))
    assert results == ["1-0", "0-1", "1-0", "0-1"]
    page.context.close()


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_division_actions_say_what_they_will_do(browser, live_server, league, language):
    client = Client()
    client.force_login(league.user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    for width in (390, 1280):
        for action in ("rate_complete_slices", "draw_fixtures"):
            page = open_page(browser, live_server, "/admin/leagues/division/", width, language, session)
            page.locator("input[name=_selected_action]").first.check()
            page.select_option("select[name=action]", action)
            page.locator("button[name=index]").click()
            page.wait_for_load_state()
            page.screenshot(path=str(SHOTS / f"admin-{action}-{width}-{language}.png"), full_page=True)
            assert page.locator("button[name=_apply]").count() == 1
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (action, width, language)
            page.context.close()
