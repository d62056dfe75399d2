"""The profile's overview (recent lists, "full history" link) and the history tab (a year a page) in real
Chromium at desktop (1280 px) and phone (390 px) widths: the pages fit the screen without sideways scrolling,
the link leads to the history and its year links walk it, and the tables' captions are read whole, within the
scrolling box however far the table is scrolled (review: the history tab's was cut at 390 px in Spanish).
Screenshots are saved under var/screenshots/history/ (kept after the run)."""

from pathlib import Path

import pytest
from django.conf import settings

from public.selectors.ratings import RECENT_LISTS
from tests.browsers import BROWSER_MARKS
from tests.public.test_history_pages import long_history

SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots" / "history"

pytestmark = BROWSER_MARKS

# The captions of the tables in a scrolling box whose text runs out of the box's visible part or the window, with the
# table scrolled to its start and to its end (the box is left at its start).
CUT_CAPTIONS = """() => [...document.querySelectorAll(".table-scroll > table > caption")].flatMap((caption) => {
    const box = caption.closest(".table-scroll"), text = document.createRange(), cut = [];
    text.selectNodeContents(caption);
    for (const scrolled of [0, box.scrollWidth]) {
        box.scrollLeft = scrolled;
        const left = box.getBoundingClientRect().left + box.clientLeft, shown = text.getBoundingClientRect();
        if (shown.left < left - 1 || shown.right > Math.min(left + box.clientWidth, window.innerWidth) + 1) {
            cut.push(`${caption.textContent} (scrolled ${box.scrollLeft} px)`);
        }
    }
    box.scrollLeft = 0;
    return cut;
})"""


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("language", ["en", "es"])
def test_overview_and_history_tab_fit_and_walk_the_years(browser, live_server, transactional_db, width, language):
    federation = long_history()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}])
    page = context.new_page()
    assert page.goto(f"{live_server.url}/players/{federation.star.id_number}/").status == 200
    page.screenshot(path=str(SCREENSHOTS / f"overview-{language}-{width}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the overview scrolls sideways"
    assert page.evaluate(CUT_CAPTIONS) == []
    assert page.locator("table.history tbody tr").count() == RECENT_LISTS
    page.click("a[href$='?tab=history']:not(nav a)")  # the "full history" link under the recent lists
    assert "tab=history" in page.url
    years = []
    while True:
        current = page.locator("nav.years [aria-current=page]").inner_text()
        years.append(int(current))
        rows = page.locator("table.history tbody tr td:first-child").all_inner_texts()
        assert rows
        assert all(day.startswith(current) for day in rows)
        page.screenshot(path=str(SCREENSHOTS / f"history-{current}-{language}-{width}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{current} scrolls sideways"
        assert page.locator("table.history caption").count() == 1
        assert page.evaluate(CUT_CAPTIONS) == [], f"{current}'s caption is cut"
        older = page.locator("nav.years a[rel=next]")
        if older.count() == 0:
            break
        older.click()
    assert years == sorted({rl.list_date.year for rl in federation.lists["standard"]}, reverse=True)
    context.close()
