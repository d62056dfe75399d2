"""The fresh try of issue 32 in real Chromium, at 390 px and 1280 px, in English and Spanish: the events index and
the events awaiting rating keep the event, its dates and its status in sight on a phone (no sideways scrolling,
no date broken at its hyphens) and fold their filters away; the calculator's table fits a phone with PD in
sight. Screenshots go to TRYOUT_SHOTS when it is set (the engineer's look at them)."""

import datetime
import os

import pytest

from events.models import EventStatus, EventSystem
from tests.browsers import BROWSER_MARKS
from tests.factories import make_event, make_participants, make_player

pytestmark = [*BROWSER_MARKS, pytest.mark.django_db(transaction=True)]
SHOTS = os.environ.get("TRYOUT_SHOTS")
SIZES = [(390, "en"), (390, "es"), (1280, "en"), (1280, "es")]


@pytest.fixture
def events(transactional_db):
    players = [make_player(surname=f"Fernández-Villaverde{n}", given_names="María") for n in range(6)]
    for n in range(4):
        start = datetime.date(2026, 3 + n, 10)
        event = make_event(
            name=f"Open Internacional Ciudad de Alcalá de Henares {n}",
            city="Alcalá de Henares",
            start_date=start,
            end_date=start + datetime.timedelta(days=6),
            status=EventStatus.SUBMITTED,
            system=EventSystem.ROUND_ROBIN if n % 2 else EventSystem.SWISS,
        )
        make_participants(event, players)


def open_page(browser, url: str, width: int, language: str, name: str):
    context = browser.new_context(
        viewport={"width": width, "height": 900}, extra_http_headers={"Accept-Language": language}
    )
    page = context.new_page()
    page.goto(url)
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}-{width}-{language}.png", full_page=True)
    return page


def table_fits(page, selector: str) -> bool:
    """The table needs no sideways scrolling inside its box."""
    return page.eval_on_selector(
        selector, "el => el.closest('.table-scroll').scrollWidth <= el.closest('.table-scroll').clientWidth + 1"
    )


def inside_viewport(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"] + 0.5


def dates_unbroken(page, selector: str) -> bool:
    """Each date is on one line (a date broken at its hyphens reads "2026-" / "03-10")."""
    return page.eval_on_selector_all(
        selector,
        """els => els.every(el => {
            const range = document.createRange(); range.selectNodeContents(el);
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size === 1;
        })""",
    )


@pytest.mark.parametrize(("width", "language"), SIZES)
@pytest.mark.parametrize(("name", "path"), [("events", "/events/"), ("awaiting", "/events/awaiting-rating/")])
def test_event_tables_keep_event_dates_and_status_in_sight(browser, live_server, events, name, path, width, language):
    page = open_page(browser, f"{live_server.url}{path}", width, language, name)
    assert table_fits(page, "table.events")
    assert inside_viewport(page, "table.events thead th:last-child")  # the status
    assert inside_viewport(page, "table.events tbody th.name")
    assert dates_unbroken(page, "table.events td .nowrap")
    if width == 1280:  # a desk shows everything the table has
        assert page.locator("table.events thead th:visible").count() == page.locator("table.events thead th").count()


@pytest.mark.parametrize(("width", "language"), SIZES)
def test_event_filters_fold_on_a_phone_and_stay_open_on_a_desk(browser, live_server, events, width, language):
    page = open_page(browser, f"{live_server.url}/events/", width, language, "events-filters")
    form = page.locator("form.event-filters")
    if width == 390:
        assert not form.is_visible()
        page.locator("details.filters-fold > summary").click()
        assert form.is_visible()
        # the first row of the table starts within the first screen: the filters no longer push it down
        page.goto(f"{live_server.url}/events/")
        assert page.locator("table.events tbody tr").first.bounding_box()["y"] < 400
    else:
        assert form.is_visible()
        assert not page.locator("details.filters-fold > summary").is_visible()


CALCULATION = "/calculator/?rating_type=standard&rating=1850&games=2450+0%0A1700+1%0A1810+%C2%BD%0A2300+0"


@pytest.mark.parametrize(("width", "language"), SIZES)
def test_calculator_table_fits_a_phone_with_pd_in_sight(browser, live_server, width, language):
    page = open_page(browser, f"{live_server.url}{CALCULATION}", width, language, "calculator")
    assert table_fits(page, "table.calc")
    assert inside_viewport(page, "table.calc thead th:last-child")  # PD
    change = page.locator("table.calc tbody tr").first.locator("td").nth(2).inner_text()
    assert change.startswith("−")  # a minus sign, not a hyphen (the site's signed filter)
