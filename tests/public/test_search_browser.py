"""The players search and the calculator in real Chromium at 390 and 1280 px, in English and Spanish (issue 32):
a phone sees the name and the ratings first (no column that matters off-screen), no page scrolls sideways, and the
menu marks the section. Screenshots go to $SHOTS (default: the test's temporary directory)."""

import os
from pathlib import Path

import pytest

from tests.public.conftest import build_federation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (390, 1280)
LANGUAGES = ("en", "es")


def _page(browser, width: int, language: str):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    context.set_extra_http_headers({"Accept-Language": language})
    return context.new_page()


def _shot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def test_search_results_show_name_and_rating_first_on_a_phone(browser, live_server, tmp_path):
    build_federation(players=30)
    for width in WIDTHS:
        for language in LANGUAGES:
            page = _page(browser, width, language)
            page.goto(f"{live_server.url}/players/?q=surname001&federation=ESP&born_from=1950")
            _shot(page, tmp_path, f"search-{width}-{language}")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, language)
            first_rating = page.locator("table.search-results tbody tr").first.locator("td.num").first
            box = first_rating.bounding_box()
            assert box is not None
            assert box["x"] + box["width"] <= width, (width, language, box)
            current = page.locator('nav .nav a[aria-current="page"]')
            assert current.count() == 1
            assert current.get_attribute("href") == "/players/"
            page.context.close()


def test_the_calculator_fits_and_answers_at_both_widths(browser, live_server, tmp_path):
    for width in WIDTHS:
        for language in LANGUAGES:
            page = _page(browser, width, language)
            page.goto(f"{live_server.url}/calculator/")
            page.fill("#c-rating", "1900")
            page.fill("#c-games", "2400 1\n1800 ½\n2050 0")
            page.locator("form.calculator button[type=submit]").click()
            page.wait_for_selector("#c-result")
            _shot(page, tmp_path, f"calculator-{width}-{language}")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, language)
            assert "1910" in page.locator("#c-result").inner_text()
            page.context.close()


def test_the_404_page_fits_at_both_widths(browser, live_server, tmp_path, settings):
    settings.DEBUG = False
    for width in WIDTHS:
        for language in LANGUAGES:
            page = _page(browser, width, language)
            response = page.goto(f"{live_server.url}/no/such/page/")
            assert response is not None
            assert response.status == 404
            _shot(page, tmp_path, f"404-{width}-{language}")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, language)
            page.context.close()
