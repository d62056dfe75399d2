"""The arbiter's event admin in real Chromium at 1280 and 390 px, in English and Spanish (issue 32, slice 6): the
events list shows the status whole, the event page holds no select of every staff member and folds the record,
many participants are pasted at once and the player box tells namesakes apart, and the corrections page shows
one round. Screenshots of every page are saved under var/screenshots/event_admin/ (kept after the run)."""

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from events.models import EventStatus, Participant
from events.roles import ARBITERS
from tests.browsers import BROWSER_MARKS
from tests.events.test_admin_roles import make_arbiter, make_officer
from tests.factories import make_event, make_federation, make_game, make_participants, make_player

SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots" / "event_admin"
WIDTHS = [1280, 390]
LANGUAGES = ["en", "es"]
TEXT = {
    "en": {"paste": "Add many participants at once", "added": "participant(s) added", "record": "Record"},
    "es": {
        "paste": "Añadir muchos participantes a la vez",
        "added": "participante(s) añadido(s)",
        "record": "Registro",
    },
}

pytestmark = BROWSER_MARKS


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.fixture
def scene(transactional_db):
    arbiter, officer = make_arbiter(), make_officer()
    users = get_user_model().objects.bulk_create(
        [get_user_model()(username=f"staff{n:03d}", is_staff=True) for n in range(200)]
    )
    Group.objects.get(name=ARBITERS).user_set.add(*users)
    spain, france = make_federation(), make_federation("FRA", "France")
    draft = make_event(
        name="Campeonato Regional Absoluto de Ajedrez Clásico",
        city="Villanueva de la Serena",
        chief_arbiter=arbiter,
        rounds=9,
        federation=spain,
    )
    draft.arbiters.add(*users[:3])
    make_participants(draft, [make_player(surname=f"Seed{n:02d}", id_number=8_800_000 + n) for n in range(1, 31)])
    for n in range(1, 5):
        make_player(surname=f"Pasted{n}", given_names="Ana", id_number=8_900_000 + n, birth_year=1990 + n)
    make_player(surname="Moreno", given_names="Elena", id_number=2_400_001, birth_year=1990)
    make_player(surname="Moreno", given_names="Elena", id_number=2_400_002, birth_year=2004, federation=france)
    for n in range(8):
        status = [EventStatus.SUBMITTED, EventStatus.CORRECTED, EventStatus.DRAFT][n % 3]
        make_event(name=f"Open Internacional de Primavera {n}", chief_arbiter=arbiter, status=status, federation=spain)
    rated = make_event(name="Rated Swiss", rounds=9, status=EventStatus.RATED, chief_arbiter=arbiter)
    people = make_participants(rated, [make_player(surname=f"Rated{n:03d}") for n in range(1, 61)])
    for round_ in range(1, 10):
        for board in range(30):
            make_game(rated, round_, people[(board + round_) % 60], people[(board + round_ + 30) % 60], board=board + 1)
    return arbiter, officer, draft, rated


def open_page(browser, live_server, user, width: int, language: str):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    context.add_cookies(
        [
            {"name": settings.SESSION_COOKIE_NAME, "value": session_of(user), "url": live_server.url},
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url},
        ]
    )
    return context, context.new_page()


def shot(page, name: str, language: str, width: int) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{language}-{width}.png"), full_page=True)


def autocomplete_choices(page, typed: str) -> list[str]:
    """The open select2 box's choices for ``typed``, once loaded (it shows "Searching…" while its request is out)."""
    page.locator(".select2-search__field").fill(typed)
    page.locator(".select2-results__option:not(.loading-results)").first.wait_for()
    page.wait_for_function("!document.querySelector('.select2-results__option.loading-results')")
    return page.locator(".select2-results__option").all_inner_texts()


def no_sideways_scroll(page, width: int, name: str) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= width, f"{name} at {width} px scrolls sideways ({overflow} px)"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_events_list_shows_each_status_whole(browser, live_server, scene, width, language):
    _arbiter, officer, _draft, _rated = scene
    context, page = open_page(browser, live_server, officer, width, language)
    page.goto(f"{live_server.url}/admin/events/event/")
    shot(page, "event-list", language, width)
    no_sideways_scroll(page, width, "the events list")
    # The results box scrolls sideways on its own; the status cells sit inside its visible part, unclipped.
    box = page.locator("#changelist .results").bounding_box()
    for cell in page.locator("#result_list td.field-event_status").all():
        area = cell.bounding_box()
        assert area["x"] + area["width"] <= box["x"] + box["width"] + 1, (cell.inner_text(), area, box)
        assert cell.evaluate("c => c.scrollWidth <= c.clientWidth"), cell.inner_text()
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_event_page_is_light_and_takes_many_participants_at_once(browser, live_server, scene, width, language):
    arbiter, officer, draft, _rated = scene
    words = TEXT[language]
    # The official's page: with 200 staff members the selects of every one of them (400+ options) are gone.
    context, page = open_page(browser, live_server, officer, width, language)
    page.goto(f"{live_server.url}/admin/events/event/{draft.pk}/change/")
    options = page.locator("option").count()
    timing = page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
    print(f"event page as official, {language} {width} px: {options} <option>s, DOMContentLoaded {timing:.0f} ms")
    assert options < 60, options
    assert page.locator("#id_arbiters_from").count() == 0  # no two-box select of every staff member
    record = page.locator("fieldset.collapse", has_text=words["record"])
    assert record.count() == 1
    assert not record.locator("details").get_attribute("open")
    shot(page, "event-official", language, width)
    no_sideways_scroll(page, width, "the event page")
    # a rated event: its participants and its timeline scroll inside their boxes, never the page
    page.goto(f"{live_server.url}/admin/events/event/{_rated.pk}/change/")
    assert page.locator("#event-timeline").count() == 1
    no_sideways_scroll(page, width, "a rated event's page")
    context.close()

    # The arbiter pastes four players (two by ID number, two by name) and finds them on the page of their ranks.
    context, page = open_page(browser, live_server, arbiter, width, language)
    page.goto(f"{live_server.url}/admin/events/event/{draft.pk}/change/")
    assert (
        page.locator(
            "#participants-group .deletelink, #participants-group .related-widget-wrapper-link.delete-related"
        ).count()
        == 0
    )
    shot(page, "event-arbiter", language, width)
    no_sideways_scroll(page, width, "the arbiter's event page")
    page.get_by_role("link", name=words["paste"]).click()
    page.locator("#id_players").fill("8900001\nPasted2, Ana\n8900003\nnobody, at all\n")
    with page.expect_navigation():
        page.locator("input[type=submit].default").click()
    errors = page.locator(".errorlist").inner_text()
    assert "4" in errors
    assert "nobody, at all" in errors
    assert Participant.objects.filter(event=draft).count() == 30  # nothing written
    shot(page, "participants-paste-refused", language, width)
    no_sideways_scroll(page, width, "the paste page")
    page.locator("#id_players").fill("8900001\nPasted2, Ana\n8900003\npasted4, ana\n")
    with page.expect_navigation():
        page.locator("input[type=submit].default").click()
    assert words["added"] in page.locator(".messagelist").inner_text()
    assert list(
        Participant.objects.filter(event=draft, start_rank__gt=30)
        .order_by("start_rank")
        .values_list("player__id_number", flat=True)
    ) == [8_900_001, 8_900_002, 8_900_003, 8_900_004]

    # A new row's player box labels each choice with ID number, federation, birth year and rating.
    page.locator("#participants-group .add-row a").click()
    page.locator("#participants-group tr.dynamic-participants .select2-selection").last.click()
    labels = autocomplete_choices(page, "moreno")
    born = "b." if language == "en" else "n."
    assert any("2400001" in label and "ESP" in label and f"{born} 1990" in label for label in labels), labels
    assert any("2400002" in label and "FRA" in label and f"{born} 2004" in label for label in labels), labels
    shot(page, "participants-autocomplete", language, width)
    no_sideways_scroll(page, width, "the event page")
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_corrections_page_shows_one_round(browser, live_server, scene, width, language):
    _arbiter, officer, _draft, rated = scene
    context, page = open_page(browser, live_server, officer, width, language)
    page.goto(f"{live_server.url}/admin/events/event/{rated.pk}/correct/")
    height = page.evaluate("document.documentElement.scrollHeight")
    assert page.locator("select[name$='-result']").count() == 31  # round 1's 30 games and one new row, of 270
    assert height < 4000 if width == 1280 else height < 6000, height
    shot(page, "correct-round", language, width)
    no_sideways_scroll(page, width, "the corrections page")
    page.locator("#correct-player").fill("7")
    with page.expect_navigation():
        page.locator("#correct-player").press("Enter")
    assert page.locator("select[name$='-result']").count() == 9
    shot(page, "correct-player", language, width)
    context.close()
