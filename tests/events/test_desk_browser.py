"""The admin in real Chromium at desktop (1280 px) and tablet (800 px) widths: the start pages, the event page
and stock admin pages fit the screen without sideways scrolling. Screenshots are saved under
var/screenshots/desk/ (kept after the run)."""

import datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.browsers import BROWSER_MARKS
from tests.events.test_admin_roles import make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots" / "desk"

pytestmark = BROWSER_MARKS


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.fixture
def scene(transactional_db):
    arbiter, officer = make_arbiter(), make_officer()
    event = make_event(name="Tablet Open", chief_arbiter=arbiter, rounds=5, start_date=datetime.date(2026, 3, 2))
    people = make_participants(event, [make_player(surname=f"Venue{n:02d}") for n in range(1, 41)])
    for board in range(20):
        make_game(event, 1, people[board], people[board + 20], result="1-0" if board % 2 else "*", board=board + 1)
    return arbiter, officer, event


@pytest.mark.parametrize("width", [1280, 800])
@pytest.mark.parametrize("language", ["en", "es"])
def test_the_admin_pages_fit_desktop_and_tablet(browser, live_server, scene, width, language):
    arbiter, officer, event = scene
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pages = {
        "arbiter-start": (arbiter, "/admin/"),
        "event": (arbiter, f"/admin/events/event/{event.pk}/change/"),
        "round": (arbiter, f"/admin/events/event/{event.pk}/round/1/"),
        "officer-start": (officer, "/admin/"),
        "players": (officer, "/admin/players/player/"),
    }
    for name, (user, path) in pages.items():
        context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
        context.add_cookies(
            [
                {"name": settings.SESSION_COOKIE_NAME, "value": session_of(user), "url": live_server.url},
                {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url},
            ]
        )
        page = context.new_page()
        response = page.goto(live_server.url + path)
        assert response.status == 200, (name, response.status)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{language}-{width}.png"), full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width, f"{name} at {width} px scrolls sideways ({overflow} px)"
        assert (
            page.locator("#site-name")
            .inner_text()
            .startswith("Federation ratings" if language == "en" else "Elo de la federación")
        )
        context.close()
