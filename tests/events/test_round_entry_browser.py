"""Real Chromium (Playwright, the Debian binary) enters a whole 9-round Swiss of 30 players on the round entry
screen with the keyboard only, and pastes a round's pairings. Screenshots at desktop and tablet widths are
saved under var/screenshots/round_entry/ (kept after the run)."""

import random
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from events.models import Game, Result
from events.selectors import event_standings
from tests.browsers import BROWSER_MARKS
from tests.events.test_admin_roles import make_arbiter
from tests.factories import make_event, make_participants, make_player

SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots" / "round_entry"
KEYS = {"1": Result.WHITE_WIN, "5": Result.DRAW, "0": Result.BLACK_WIN, "+": Result.WHITE_FORFEIT_WIN}
PLAYERS, ROUNDS = 30, 9

pytestmark = BROWSER_MARKS


def circle_pairings(players: int, round_: int) -> list[tuple[int, int]]:
    """Round ``round_`` of the circle method (every pair at most once): (white, black) start ranks."""
    others = list(range(2, players + 1))
    shift = (round_ - 1) % len(others)
    ring = [1, *others[shift:], *others[:shift]]
    half = players // 2
    pairs = [(ring[i], ring[players - 1 - i]) for i in range(half)]
    return [(b, a) if (round_ + n) % 2 else (a, b) for n, (a, b) in enumerate(pairs)]


@pytest.fixture
def swiss(transactional_db):
    arbiter = make_arbiter()
    event = make_event(name="Keyboard Swiss", chief_arbiter=arbiter, rounds=ROUNDS)
    players = [
        make_player(surname=f"Player{n:02d}", given_names="Test", id_number=4_400_000 + n)
        for n in range(1, PLAYERS + 1)
    ]
    make_participants(event, players)
    client = Client()
    client.force_login(arbiter)
    return event, client.cookies[settings.SESSION_COOKIE_NAME].value


def page_for(browser, live_server, session: str, width: int):
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}])
    return context.new_page()


def round_url(live_server, event, round_: int) -> str:
    return f"{live_server.url}/admin/events/event/{event.pk}/round/{round_}/"


def test_a_whole_swiss_is_entered_with_the_keyboard_only(browser, live_server, swiss):
    event, session = swiss
    page = page_for(browser, live_server, session, 1280)
    chance = random.Random(18)
    expected = {}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for round_ in range(1, ROUNDS + 1):
        page.goto(round_url(live_server, event, round_))
        assert page.locator("#pending-count").inner_text() == "0"
        for board, (white, black) in enumerate(circle_pairings(PLAYERS, round_), 1):
            key = chance.choice("1115500+")
            page.keyboard.type(str(white))
            page.keyboard.press("Enter")
            page.keyboard.type(str(black))
            page.keyboard.press("Enter")
            if board == 3 and round_ == 1:  # the running count: a paired board without result
                assert page.locator("#pending-count").inner_text() == "1"
            page.keyboard.press(key)
            expected[(round_, board)] = (white, black, KEYS[key])
        assert page.locator("#pending-count").inner_text() == "0"
        assert page.locator("#round-problems").is_hidden()
        if round_ == ROUNDS:
            page.screenshot(path=str(SCREENSHOTS / "round9-desktop-before-save.png"), full_page=True)
        with page.expect_navigation():
            page.keyboard.press("Control+Enter")
        assert "saved" in page.locator(".messagelist").inner_text()
    page.screenshot(path=str(SCREENSHOTS / "round9-desktop.png"), full_page=True)
    tablet = page_for(browser, live_server, session, 800)
    tablet.goto(round_url(live_server, event, ROUNDS))
    tablet.screenshot(path=str(SCREENSHOTS / "round9-tablet.png"), full_page=True)
    assert tablet.evaluate("document.documentElement.scrollWidth") <= 800  # no sideways scrolling on a tablet

    stored = {
        (g.round, g.board): (g.white.start_rank, g.black.start_rank, g.result)
        for g in Game.objects.filter(event=event).select_related("white", "black")
    }
    assert stored == expected
    standings = event_standings(event)
    assert standings.pending_games == 0
    assert sum(row.points for row in standings.rows) == pytest.approx(ROUNDS * PLAYERS / 2 - 0)
    shown = page.locator("#standings tbody tr").first.locator("td").nth(2).inner_text()
    assert shown == standings.rows[0].name


def test_pasted_pairings_are_read_then_results_keyed_and_saved(browser, live_server, swiss):
    event, session = swiss
    page = page_for(browser, live_server, session, 1280)
    page.goto(round_url(live_server, event, 1))
    pairs = circle_pairings(PLAYERS, 1)
    # As a pairing program copies them: board, white, black by name, ID number or start rank, tab-separated.
    lines = ["Bo.\tWhite\tBlack"]
    for board, (white, black) in enumerate(pairs, 1):
        white_token = (
            f"Player{white:02d}, Test" if board % 3 == 0 else str(4_400_000 + white) if board % 3 == 1 else str(white)
        )
        lines.append(f"{board}\t{white_token}\t{black}")
    page.locator("details.paste summary").click()
    page.locator("#pairings").fill("\n".join(lines))
    with page.expect_navigation():
        page.locator("#read-pairings").click()
    assert "15 board(s) read" in page.locator(".messagelist").inner_text()
    assert page.locator("#pending-count").inner_text() == "15"
    assert not Game.objects.filter(event=event).exists()  # nothing saved until the round is saved
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "pasted-desktop.png"), full_page=True)
    # Focus starts on the first board without a result: one key per board.
    for _ in pairs:
        page.keyboard.press("5")
    assert page.locator("#pending-count").inner_text() == "0"
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    stored = sorted(
        Game.objects.filter(event=event).values_list("board", "white__start_rank", "black__start_rank", "result")
    )
    assert stored == [(n, w, b, Result.DRAW) for n, (w, b) in enumerate(pairs, 1)]


def test_a_problem_is_named_in_the_page_before_saving(browser, live_server, swiss):
    event, session = swiss
    page = page_for(browser, live_server, session, 800)
    page.goto(round_url(live_server, event, 1))
    page.keyboard.type("1")
    page.keyboard.press("Enter")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    page.keyboard.press("1")
    page.keyboard.type("2")  # player 2 again, on board 2
    page.keyboard.press("Enter")
    page.keyboard.type("99")
    problems = page.locator("#round-problems")
    assert "Board 2: Player02, Test is paired twice in this round." in problems.inner_text()
    assert "Board 2: no player with start rank or ID number 99 in this event." in problems.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "problem-tablet.png"), full_page=True)
    assert not Game.objects.filter(event=event).exists()
