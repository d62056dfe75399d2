"""Issue 32, house rule 8: the player and list pages in real Chromium at 390 px (a phone) and 1280 px, in English
and Spanish. The columns that matter (the profile's Live, the games tab's Opponent, Result and Change, the
calculation's Score and Change, the lists' rank, name, rating and change) lie inside the viewport with the page at
rest, no number is clipped (its text fits its cell), and no date breaks at its hyphens. Screenshots are saved under
var/screenshots/playerpages/."""

from pathlib import Path

import pytest
from django.conf import settings

from tests.browsers import BROWSER_MARKS
from tests.public.conftest import build_federation

SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots" / "playerpages"

pytestmark = BROWSER_MARKS

# For each header cell named by its column's position: whether the column's cells lie within the window (the right
# edge of the header and of every cell at most the window's width) and whether a cell's text overflows its box.
COLUMNS_IN_VIEW = """([selector, columns]) => {
    const table = document.querySelector(selector);
    if (!table) return [`no ${selector}`];
    const problems = [];
    for (const index of columns) {
        for (const row of table.querySelectorAll("thead tr, tbody tr")) {
            const cell = row.children[index];
            if (!cell) continue;
            const box = cell.getBoundingClientRect();
            if (box.width === 0) { problems.push(`${selector} column ${index} hidden`); break; }
            if (box.right > window.innerWidth + 1 || box.left < -1) {
                problems.push(`${selector} column ${index} (${cell.textContent.trim()}) off-screen at ${box.right}`);
                break;
            }
            if (cell.scrollWidth > cell.clientWidth + 1) {
                problems.push(`${selector} column ${index} (${cell.textContent.trim()}) clipped`);
                break;
            }
        }
    }
    return problems;
}"""

# Dates (YYYY-MM-DD) shown on more than one line: a date broken at its hyphens.
BROKEN_DATES = """() => [...document.querySelectorAll("td, th")].filter((cell) => {
    if (!/^\\d{4}-\\d\\d-\\d\\d$/.test(cell.textContent.trim()) || !cell.getClientRects().length) return false;
    const text = document.createRange();
    text.selectNodeContents(cell);
    return new Set([...text.getClientRects()].map((line) => Math.round(line.top))).size > 1;
}).map((cell) => cell.textContent.trim())"""


def _pages(federation) -> list[tuple[str, str, str, list[int]]]:
    star, latest = federation.star, federation.latest
    day = f"{latest.list_date:%Y-%m-%d}"
    return [
        # name, url, table, the columns that must be in sight
        ("profile-live", f"/players/{star.id_number}/", "table.live", [0, 1, 2, 3]),
        ("games", f"/players/{star.id_number}/?tab=games", "table.games", [0, 1, 2, 3]),
        ("calculation", f"/players/{star.id_number}/calculations/{day}/standard/", "table.calc", [0, 1, 3, 6, 9]),
        ("list", f"/lists/{day}/standard/", "table.list", [0, 1, 3, 4]),
        ("top", "/top/", "table.list", [0, 1, 3, 4]),
        ("history", f"/players/{star.id_number}/", "table.history", [0, 1, 2, 3]),
    ]


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("language", ["en", "es"])
def test_key_columns_are_in_sight_and_numbers_whole(browser, live_server, transactional_db, width, language):
    federation = build_federation(players=12, event_players=6)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}])
    page = context.new_page()
    problems = []
    for name, url, table, columns in _pages(federation):
        assert page.goto(live_server.url + url).status == 200, url
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{language}-{width}.png"), full_page=True)
        problems += [f"{name}: {problem}" for problem in page.evaluate(COLUMNS_IN_VIEW, [table, columns])]
        problems += [f"{name}: date broken {day}" for day in page.evaluate(BROKEN_DATES)]
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{name} scrolls sideways"
    context.close()
    assert problems == [], "\n".join(problems)
