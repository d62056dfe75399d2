"""Real Chromium (Playwright, the Debian binary) enters a whole 9-round Swiss of 30 players on the round entry
screen with the keyboard only, and pastes a round's pairings; at the venue (390 px) and at a desk (1280 px), in
English and Spanish, every board shows white, the result with its tap buttons and black on screen, and one keyboard
model holds: a result key sets the focused board's result and moves to the next board without one, Tab and the
arrows move, Enter saves. Screenshots are saved under var/screenshots/round_entry/ and /tmp/shots/roundentry/."""

import itertools
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


def page_for(browser, live_server, session: str, width: int, language: str = "en"):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
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
            page.keyboard.press("Tab")
            page.keyboard.type(str(black))
            page.keyboard.press("Tab")
            if board == 3 and round_ == 1:  # the running count: a paired board without result
                assert page.locator("#pending-count").inner_text() == "1"
            page.keyboard.press(key)
            expected[(round_, board)] = (white, black, KEYS[key])
        assert page.locator("#pending-count").inner_text() == "0"
        assert page.locator("#round-problems").is_hidden()
        if round_ == ROUNDS:
            page.screenshot(path=str(SCREENSHOTS / "round9-desktop-before-save.png"), full_page=True)
        with page.expect_navigation():
            page.keyboard.press("Enter")
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
        page.keyboard.press("Enter")
    stored = sorted(
        Game.objects.filter(event=event).values_list("board", "white__start_rank", "black__start_rank", "result")
    )
    assert stored == [(n, w, b, Result.DRAW) for n, (w, b) in enumerate(pairs, 1)]


def test_a_problem_is_named_in_the_page_before_saving(browser, live_server, swiss):
    event, session = swiss
    page = page_for(browser, live_server, session, 800)
    page.goto(round_url(live_server, event, 1))
    page.keyboard.type("1")
    page.keyboard.press("Tab")
    page.keyboard.type("2")
    page.keyboard.press("Tab")
    page.keyboard.press("1")
    page.keyboard.type("2")  # player 2 again, on board 2
    page.keyboard.press("Tab")
    page.keyboard.type("99")
    problems = page.locator("#round-problems")
    assert "Board 2: Player02, Test is paired twice in this round." in problems.inner_text()
    assert "Board 2: no player with start rank or ID number 99 in this event." in problems.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "problem-tablet.png"), full_page=True)
    assert not Game.objects.filter(event=event).exists()


# --- at the venue: a phone and a desk, in English and Spanish ---

SHOTS = Path("/tmp/shots/roundentry")
WIDTHS = [390, 1280]
LANGUAGES = ["en", "es"]
PLAYED, PAIRED = ROUNDS - 1, 12  # rounds 1-8 played, 12 of round 9's 15 boards paired, 3 boards still empty
LONG_NAMES = {3: ("Fernández-Castellanos", "María José"), 8: ("Vandersteenhoven", "Maximilian Alexander")}


@pytest.fixture
def round_nine(transactional_db):
    """Round 9 of a 30-player Swiss: eight rounds played (a wide standings table), twelve boards paired and
    waiting for their result, three boards still to pair."""
    arbiter = make_arbiter()
    event = make_event(name="Venue Open", chief_arbiter=arbiter, rounds=ROUNDS)
    players = []
    for n in range(1, PLAYERS + 1):
        surname, given = LONG_NAMES.get(n, (f"Player{n:02d}", "Test"))
        players.append(make_player(surname=surname, given_names=given, id_number=4_500_000 + n))
    participants = {p.start_rank: p for p in make_participants(event, players)}
    chance = random.Random(9)
    games = []
    for round_ in range(1, ROUNDS + 1):
        for board, (white, black) in enumerate(circle_pairings(PLAYERS, round_), 1):
            if round_ == ROUNDS and board > PAIRED:
                continue
            result = chance.choice([Result.WHITE_WIN, Result.DRAW, Result.BLACK_WIN])
            games.append(
                Game(
                    event=event,
                    round=round_,
                    board=board,
                    white=participants[white],
                    black=participants[black],
                    result=Result.PENDING if round_ == ROUNDS else result,
                )
            )
    Game.objects.bulk_create(games)
    client = Client()
    client.force_login(arbiter)
    return event, client.cookies[settings.SESSION_COOKIE_NAME].value


def active_name(page) -> str:
    return page.evaluate("document.activeElement.name || document.activeElement.id")


def result_of(page, index: int) -> str:
    return page.locator(f"select[name='b{index}-result']").input_value()


# Scrolls the page (only the page: a clipped or sideways-scrolled element stays where it is) to bring the element's
# row to mid-screen, then asks what a finger at the element's centre would touch.
HIT = """(element) => {
  let box = element.getBoundingClientRect();
  window.scrollTo(0, window.scrollY + box.top - window.innerHeight / 2);
  box = element.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return {left: box.left, right: box.right, width: box.width, hit: hit === element || element.contains(hit)};
}"""

NAME_SHOWN = """(name) => {
  const box = name.getBoundingClientRect(), cell = name.closest("td").getBoundingClientRect();
  const styles = [name, name.parentElement].map((e) => getComputedStyle(e));
  return {text: name.textContent, nowrap: styles[0].whiteSpace === "nowrap",
          oneLine: box.height < 1.9 * parseFloat(styles[0].fontSize),
          ellipsis: styles.some((s) => s.textOverflow === "ellipsis"),
          visible: Math.min(box.right, cell.right) - Math.max(box.left, cell.left)};
}"""


# 1800 px: the one width with the standings beside the boards.
@pytest.mark.parametrize(("width", "language"), [*itertools.product(WIDTHS, LANGUAGES), (1800, "en")])
def test_every_board_shows_white_result_taps_and_black_on_screen_and_the_taps_take_a_tap(
    browser, live_server, round_nine, width, language
):
    event, session = round_nine
    page = page_for(browser, live_server, session, width, language)
    page.goto(round_url(live_server, event, ROUNDS))
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"round-{width}-{language}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing that matters off-screen
    parts = ["input[name$='-white']", "select.result", "button[data-r]", "input[name$='-black']"]
    rows = page.locator("tr.board")
    assert rows.count() == PLAYERS // 2
    for index in range(rows.count()):
        for selector in parts:
            for element in rows.nth(index).locator(selector).all():
                seen = element.evaluate(HIT)
                where = f"board {index + 1}, {selector} at {width} px ({language}): {seen}"
                assert seen["left"] >= 0, where
                assert seen["right"] <= width, where
                assert seen["hit"], where  # not covered by the standings or the save bar
    # A name stays on one line, truncated with an ellipsis, never broken mid-word; a long one stays readable in part.
    names = page.locator("tr.board .who .nm").all()
    assert len(names) == 2 * PAIRED
    for name in names:
        seen = name.evaluate(NAME_SHOWN)
        assert (seen["nowrap"], seen["ellipsis"], seen["oneLine"]) == (True, True, True), seen
        assert seen["visible"] >= 90, seen
    # A tap is a result: the board's select and the pressed button say so.
    board = rows.nth(2)
    tap = board.locator("button[data-r='1/2-1/2']")
    tap.evaluate(HIT)
    box = tap.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert result_of(page, 2) == Result.DRAW
    assert tap.get_attribute("aria-pressed") == "true"
    assert board.locator("button[data-r='1-0']").get_attribute("aria-pressed") == "false"
    assert page.locator("#pending-count").inner_text() == str(PAIRED - 1)
    # The standings put rank, name and points first: a phone sees the points without scrolling sideways.
    points = page.locator("#standings thead th.pts")
    assert points.evaluate(HIT)["right"] <= width
    page.screenshot(path=str(SHOTS / f"round-{width}-{language}-tapped.png"), full_page=True)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("width", WIDTHS)
def test_one_keyboard_model_result_keys_set_and_move_on_tab_moves_enter_saves(
    browser, live_server, round_nine, width, language
):
    event, session = round_nine
    page = page_for(browser, live_server, session, width, language)
    page.goto(round_url(live_server, event, ROUNDS))
    legend = page.locator("p.keys").inner_text()
    enter, tab = ("Intro", "Tab") if language == "es" else ("Enter", "Tab")
    for said in (enter, tab, "="):
        assert said in legend
    # The page starts on the first board without a result.
    assert active_name(page) == "b0-result"
    page.keyboard.press("1")  # a result key sets the focused board's result and goes to the next unfinished board
    assert (result_of(page, 0), active_name(page)) == (Result.WHITE_WIN, "b1-result")
    page.keyboard.press("=")
    assert (result_of(page, 1), active_name(page)) == (Result.DRAW, "b2-result")
    page.keyboard.press("5")
    assert (result_of(page, 2), active_name(page)) == (Result.DRAW, "b3-result")
    page.keyboard.press("ArrowUp")  # arrows move between boards and change nothing
    assert (result_of(page, 2), active_name(page)) == (Result.DRAW, "b2-result")
    page.keyboard.press("0")  # a correction moves on to the next board still without a result: board 4
    assert (result_of(page, 2), active_name(page)) == (Result.BLACK_WIN, "b3-result")
    page.keyboard.press("q")  # no type-ahead: a key that is not a result changes nothing
    assert (result_of(page, 3), active_name(page)) == (Result.PENDING, "b3-result")
    page.keyboard.press("-")
    assert (result_of(page, 3), active_name(page)) == (Result.BLACK_FORFEIT_WIN, "b4-result")
    for _board in range(4, PAIRED):
        page.keyboard.press("1")
    assert active_name(page) == f"b{PAIRED}-white"  # the first board still to pair
    white, black = circle_pairings(PLAYERS, ROUNDS)[PAIRED]
    page.keyboard.type(str(white))
    page.keyboard.press("Tab")  # Tab moves field by field: white, black, result (the taps are for fingers)
    assert active_name(page) == f"b{PAIRED}-black"
    page.keyboard.type(str(black))
    page.keyboard.press("Tab")
    assert active_name(page) == f"b{PAIRED}-result"
    page.keyboard.press("+")
    assert (result_of(page, PAIRED), active_name(page)) == (Result.WHITE_FORFEIT_WIN, f"b{PAIRED + 1}-white")
    page.keyboard.press("Shift+Tab")
    assert active_name(page) == f"b{PAIRED}-result"
    assert page.locator("#pending-count").inner_text() == "0"
    page.screenshot(path=str(SHOTS / f"keys-{width}-{language}.png"), full_page=True)
    with page.expect_navigation():
        page.keyboard.press("Enter")  # Enter saves the round, from any field
    stored = dict(Game.objects.filter(event=event, round=ROUNDS).values_list("board", "result"))
    assert stored == {
        1: Result.WHITE_WIN,
        2: Result.DRAW,
        3: Result.BLACK_WIN,
        4: Result.BLACK_FORFEIT_WIN,
        **dict.fromkeys(range(5, PAIRED + 1), Result.WHITE_WIN),
        PAIRED + 1: Result.WHITE_FORFEIT_WIN,
    }
    # After the save the page starts again where the work is; Enter in a player's field saves too.
    assert active_name(page) == f"b{PAIRED + 1}-white"
    white, black = circle_pairings(PLAYERS, ROUNDS)[PAIRED + 1]
    page.keyboard.type(str(white))
    page.keyboard.press("Tab")
    page.keyboard.type(str(black))
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert Game.objects.get(event=event, round=ROUNDS, board=PAIRED + 2).result == Result.PENDING
