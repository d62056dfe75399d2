"""The event pages in real Chromium at 390 px and 1280 px, in English and Spanish (issue 32): on a phone the
crosstable keeps the name and the points in sight whatever the number of rounds, names never break mid-word,
and every event page renders. Screenshots go to SHOTS when it is set (the engineer's look at them)."""

import os
from pathlib import Path

import pytest

from events.models import EventStatus, EventSystem, Result
from tests.browsers import BROWSER_MARKS
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = [*BROWSER_MARKS, pytest.mark.django_db(transaction=True)]
SHOTS = os.environ.get("EVENT_SHOTS")  # a folder: keep the screenshots for a look
ROUNDS = 9
ENGLISH = ("Standings", "Pairings", "Starting list", "Last update", "Chief arbiter", "bye", "Games round", "Search")
CAPTIONS = {"en": "Final standings", "es": "Clasificación final"}


def circle(players: int, round_: int) -> list[tuple[int, int]]:
    others = list(range(2, players + 1))
    shift = (round_ - 1) % len(others)
    ring = [1, *others[shift:], *others[:shift]]
    return [(ring[i], ring[players - 1 - i]) for i in range(players // 2)]


@pytest.fixture
def swiss(transactional_db):
    """A 9-round event of 10 players with long double-barrelled names: wider than any phone."""
    event = make_event(
        name="Open Internacional Ciudad de Alcalá de Henares",
        rounds=ROUNDS,
        status=EventStatus.SUBMITTED,
        system=EventSystem.SWISS,
        chief_arbiter_name="IA María José Fernández-Villaverde",
    )
    players = [
        make_player(surname=f"Fernández-Villaverde{n}", given_names="María Inmaculada", title="WIM" if n % 3 else "")
        for n in range(10)
    ]
    participants = make_participants(event, players)
    for round_ in range(1, ROUNDS + 1):
        for board, (white, black) in enumerate(circle(10, round_), 1):
            result = (Result.WHITE_WIN, Result.DRAW, Result.BLACK_WIN)[(white + black + round_) % 3]
            make_game(event, round_, participants[white - 1], participants[black - 1], result, board=board)
    return event


def open_page(browser, url: str, width: int, language: str):
    context = browser.new_context(
        viewport={"width": width, "height": 900}, extra_http_headers={"Accept-Language": language}
    )
    page = context.new_page()
    page.goto(url)
    return page


def inside_viewport(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"] + 0.5


def no_word_broken(page, selector: str) -> bool:
    """Each element has no more line boxes than words: a word split over two lines would make one more. A line
    may end after the hyphen of a compound surname (Fernández-Villaverde), as typesetting allows."""
    return page.eval_on_selector_all(
        selector,
        """els => els.every(el => {
            const range = document.createRange(); range.selectNodeContents(el);
            const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
            return lines <= el.textContent.trim().split(/[\\s-]+/).length;
        })""",
    )


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("width", [390, 1280])
def test_crosstable_keeps_name_and_points_in_sight(browser, live_server, swiss, width, language):
    page = open_page(browser, f"{live_server.url}/events/{swiss.pk}/", width, language)
    assert CAPTIONS[language] in page.locator("table.crosstable caption").inner_text()
    # the points of the first row and its name are on screen before any scrolling
    assert inside_viewport(page, "table.crosstable tbody tr:first-child td.pts")
    assert inside_viewport(page, "table.crosstable tbody tr:first-child th.name")
    assert no_word_broken(page, "table.crosstable tbody th.name a")
    # scrolled to the last column, the rank and name stay where they were (sticky)
    before = page.locator("table.crosstable tbody tr:first-child th.name").bounding_box()
    page.eval_on_selector(".table-scroll", "el => { el.scrollLeft = el.scrollWidth; }")
    after = page.locator("table.crosstable tbody tr:first-child th.name").bounding_box()
    assert abs(after["x"] - before["x"]) < 1
    if width == 390:  # the phone's table is wider than the screen: it did scroll
        assert page.eval_on_selector(".table-scroll", "el => el.scrollLeft") > 0
    if SHOTS:
        page.eval_on_selector(".table-scroll", "el => { el.scrollLeft = 0; }")
        page.screenshot(path=str(Path(SHOTS) / f"detail-{width}-{language}.png"), full_page=True)


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("width", [390, 1280])
def test_every_event_page_renders_without_horizontal_page_scroll(browser, live_server, swiss, width, language):
    # what each page shows first, in sight without scrolling sideways: both players and the result of a board;
    # a card's opponent, result and rating change; the standings' name and points
    for name, path, first in (
        ("index", "/events/", "table.events tbody th.name"),
        ("round", f"/events/{swiss.pk}/rounds/3/", "table.pairings tbody tr:first-child td:last-child"),
        ("start", f"/events/{swiss.pk}/start-list/", "table.start-list tbody td:nth-child(3)"),
        ("player", f"/events/{swiss.pk}/players/1/", "table.player-games tbody tr:first-child td:nth-child(4)"),
        ("after", f"/events/{swiss.pk}/?round=4", "table.crosstable tbody td.pts"),
    ):
        page = open_page(browser, f"{live_server.url}{path}", width, language)
        assert inside_viewport(page, first), name
        # tables scroll inside their box; the page itself is never wider than the screen
        assert page.evaluate("document.documentElement.scrollWidth") <= width, name
        assert no_word_broken(page, "td.name a, th.name a"), name
        if language == "es":
            main = page.inner_text("main")
            left = [w for w in ENGLISH if w in main]
            assert not left, (name, left)
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / f"{name}-{width}-{language}.png"), full_page=True)
        page.context.close()
