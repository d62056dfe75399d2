"""Real Chromium (Playwright, the system binary) on the admin's TRF upload (issue 32), at 390 and 1280 px, in
English and Spanish: a file that names no rating type is checked, the rating type chosen on the report and the
checked file imported with one click, no second upload; onto an event in entry, the report of what changes is
confirmed. Screenshots go to /tmp/shots/trfadmin/ (looked at by the engineer; kept after the run)."""

import dataclasses
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from events.models import Event, Game
from tests.browsers import BROWSER_MARKS
from tests.events.test_admin_roles import make_arbiter
from tests.events.test_trf_import import build_trf, four_players
from tests.events.test_trf_upload_flow import hand_entered_event

SHOTS = Path("/tmp/shots/trfadmin")
TEXT = {
    "en": {"check": "Check only", "import": "Import this file", "imported": "Imported", "rating": "Rapid"},
    "es": {"check": "Solo comprobar", "import": "Importar este archivo", "imported": "Importado", "rating": "Rápido"},
}

pytestmark = [*BROWSER_MARKS, pytest.mark.django_db(transaction=True)]


def page_for(browser, live_server, user, width: int, language: str):
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    context.set_extra_http_headers({"Accept-Language": language})
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
    return context.new_page()


def page_width(page) -> int:
    """How wide the page lays out: more than the viewport means the reader must scroll sideways."""
    return page.evaluate("document.documentElement.scrollWidth")


def fits(page, selector: str, width: int) -> bool:
    """The element's right edge is inside the viewport (reachable without scrolling sideways)."""
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("width", [390, 1280])
def test_check_choose_the_rating_type_and_import_without_a_second_upload(
    browser, live_server, tmp_path, width, language
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    words = TEXT[language]
    arbiter = make_arbiter()
    players = four_players()
    players[2] = dataclasses.replace(players[2], name="Gus Gamma")  # a name without a comma: a warning
    source = tmp_path / "open.trf"
    source.write_bytes(build_trf(players, tournament_type="Swiss"))  # no rating type named
    page = page_for(browser, live_server, arbiter, width, language)

    page.goto(f"{live_server.url}/admin/events/event/upload-trf/")
    page.set_input_files("#id_file", str(source))
    page.get_by_label(words["check"]).check()
    page.locator("#content-main form input[type=submit]").last.click()
    page.wait_for_selector("#trf-checked")
    page.screenshot(path=SHOTS / f"check-report-{language}-{width}.png", full_page=True)
    assert not Event.objects.exists()
    assert page_width(page) <= width  # wide report tables scroll inside their box

    button = "#trf-import-checked button[type=submit]"
    assert fits(page, button, width)
    assert page.locator(button).inner_text().strip().lower() == words["import"].lower()
    page.select_option("#trf-import-checked select[name=rating_type]", "rapid")
    page.locator(button).click()
    page.wait_for_selector("#trf-imported")
    page.screenshot(path=SHOTS / f"imported-{language}-{width}.png", full_page=True)

    event = Event.objects.get()
    assert (event.rating_type, Game.objects.filter(event=event).count()) == ("rapid", 4)
    assert words["imported"] in page.locator("#trf-imported").inner_text()


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("width", [390, 1280])
def test_a_file_onto_an_event_in_entry_is_confirmed_after_its_report(browser, live_server, tmp_path, width, language):
    SHOTS.mkdir(parents=True, exist_ok=True)
    arbiter = make_arbiter()
    event = hand_entered_event(arbiter)
    source = tmp_path / "open.trf"
    source.write_bytes(build_trf(four_players(ids=("101", "102", "", ""))))
    page = page_for(browser, live_server, arbiter, width, language)

    page.goto(f"{live_server.url}/admin/events/event/{event.pk}/upload-trf/")
    page.set_input_files("#id_file", str(source))
    page.locator("#content-main form input[type=submit]").last.click()
    page.wait_for_selector("#trf-replacement")
    page.screenshot(path=SHOTS / f"replace-report-{language}-{width}.png", full_page=True)
    assert Game.objects.filter(event=event).count() == 2  # nothing replaced before the confirmation
    assert page_width(page) <= width

    confirm = "#trf-import-checked button[type=submit]"
    assert fits(page, confirm, width)
    page.locator(confirm).click()
    page.wait_for_selector("#trf-imported")
    page.screenshot(path=SHOTS / f"replaced-{language}-{width}.png", full_page=True)
    assert Game.objects.filter(event=event).count() == 4
