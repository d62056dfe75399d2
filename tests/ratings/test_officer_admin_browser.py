"""The rating officer's admin in real Chromium, at a phone's 390 px and a desk's 1280 px, in English and Spanish:
the "Preview or publish" page (every card's buttons in view, nothing wider than the screen), a draft list's
entries (rank, name, new rating and change in view on a phone), and the merge comparison (no value broken
mid-word). Screenshots go to var/screenshots/officer/ (kept after the run)."""

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from ratings.services import rating_list_compute_preview
from tests.browsers import BROWSER_MARKS
from tests.events.test_admin_roles import make_officer
from tests.factories import make_participants, make_player
from tests.ratings.scenarios import MAR, build_federation

SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots" / "officer"
SIZES = [(390, "es"), (390, "en"), (1280, "es"), (1280, "en")]

pytestmark = [*BROWSER_MARKS, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def officer_session(transactional_db):
    client = Client()
    client.force_login(make_officer())
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def open_page(browser, live_server, session: str, width: int, language: str, path: str):
    context = browser.new_context(
        viewport={"width": width, "height": 900}, locale=language, extra_http_headers={"Accept-Language": language}
    )
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}])
    page = context.new_page()
    response = page.goto(live_server.url + path)
    assert response is not None, path
    assert response.status == 200, path
    return page


def shot(page, name: str, width: int, language: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{language}-{width}.png"), full_page=True)


def overflow(page) -> int:
    """How far the page is wider than the screen (a phone scrolls sideways when this is positive)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


BROKEN_WORDS = """(selector) => {
    // the words (split at spaces) of every text under the selector that are drawn on more than one line
    const broken = [];
    for (const root of document.querySelectorAll(selector)) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let text = walker.nextNode(); text; text = walker.nextNode()) {
            let start = 0;
            for (const word of text.textContent.split(/\\s/)) {
                const range = document.createRange();
                range.setStart(text, start);
                range.setEnd(text, start + word.length);
                start += word.length + 1;
                if (word.trim() && range.getClientRects().length > 1) broken.push(word);
            }
        }
    }
    return broken;
}"""


def broken_words(page, selector: str) -> list[str]:
    """Words or dates broken across two lines (at a hyphen or anywhere) under ``selector``."""
    return page.evaluate(BROKEN_WORDS, selector)


def in_view(page, selector: str, width: int) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


@pytest.mark.parametrize(("width", "language"), SIZES)
def test_preview_or_publish_has_its_own_page_with_every_button_in_view(
    browser, live_server, officer_session, width, language
):
    build_federation()
    page = open_page(
        browser, live_server, officer_session, width, language, reverse("admin:ratings_ratinglist_publish")
    )
    shot(page, "publish", width, language)
    assert overflow(page) <= 0
    for rating_type in ("standard", "rapid", "blitz"):
        assert in_view(page, f"#publish-{rating_type} button[value=preview]", width)
        assert in_view(page, f"#publish-{rating_type} button[value=publish]", width)
    assert broken_words(page, ".officer-facts dd, .officer-table td") == []  # no date or slug split over lines
    heading = page.locator("h1").inner_text()
    assert heading == (
        "Previsualizar o publicar una lista de Elo" if language == "es" else "Preview or publish a rating list"
    )
    assert "select" not in page.locator("#content-main").inner_html().split("<form")[0]  # no action drop-down


@pytest.mark.parametrize(("width", "language"), SIZES)
def test_a_draft_list_shows_its_entries_with_rank_name_rating_and_change_first(
    browser, live_server, officer_session, width, language
):
    build_federation()
    draft = rating_list_compute_preview("standard", MAR)
    page = open_page(
        browser,
        live_server,
        officer_session,
        width,
        language,
        reverse("admin:ratings_ratinglist_change", args=[draft.pk]),
    )
    shot(page, "draft", width, language)
    rows = page.locator(".officer-entries-table tbody tr")
    assert rows.count() == draft.rated_count
    assert "{" not in page.locator("#content-main").inner_text()  # no JSON blob
    first = page.locator(".officer-entries-table tbody tr").first
    for column in (1, 2, 3, 4):  # rank, name, new rating, change
        assert in_view(page, f".officer-entries-table tbody tr:first-child td:nth-child({column})", width)
    assert first.locator("td").nth(3).inner_text().strip()[0] in "+−0"
    assert overflow(page) <= 0  # the table scrolls inside its box, not the page


@pytest.mark.parametrize(("width", "language"), SIZES)
def test_the_merge_comparison_breaks_no_value_mid_word(browser, live_server, officer_session, width, language):
    kept = make_player(surname="Fernandez-Castellanos", given_names="Maria Isabel", birth_year=1990, id_number=31000017)
    duplicate = make_player(surname="Fernandez Castellanos", given_names="M. Isabel", birth_year=1990)
    make_participants(build_event(), [duplicate])
    url = reverse("admin:players_player_merge", args=[duplicate.pk]) + f"?kept={kept.id_number}"
    page = open_page(browser, live_server, officer_session, width, language, url)
    shot(page, "merge", width, language)
    assert page.locator(".merge-compare").count() == 1
    broken = broken_words(page, ".merge-compare td, .merge-compare th")
    assert broken == []
    assert overflow(page) <= 0  # a wide comparison scrolls inside its box
    assert in_view(page, ".merge-compare tbody tr:first-child th", width)  # the row's label stays in view
    assert in_view(page, ".submit-row input[name=apply]", width)


def build_event():
    from tests.factories import make_event

    return make_event(name="Madrid Open")
