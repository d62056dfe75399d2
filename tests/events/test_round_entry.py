"""The round entry screen: boards of one round, checks that name the problem, pasted pairings, one-transaction
save with the optimistic lock, and a fixed number of queries whatever the size of the event."""

import pytest
from django.urls import reverse

from events.models import Game, Result
from events.services_rounds import BoardEntry, RosterLine, pairings_parse, round_boards_check
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

ROSTER = {
    1: RosterLine(1, 2200001, "Alpha, Ann"),
    2: RosterLine(2, 2200002, "Bravo, Ben"),
    3: RosterLine(3, 2200003, "Charlie, Cy"),
    4: RosterLine(4, 2200004, "Bravo, Bea"),
}


@pytest.fixture
def event():
    arbiter = make_arbiter()
    event = make_event(name="Desk Open", chief_arbiter=arbiter, rounds=3)
    players = [make_player(surname=f"P{n:02d}", given_names="Test", id_number=3_300_000 + n) for n in range(1, 7)]
    make_participants(event, players)
    return event


def url(event, round_=1):
    return reverse("admin:events_event_round", args=[event.pk, round_])


def post_boards(client, event, boards, round_=1, known="", extra=None):
    data = {"rows": str(len(boards)), "known": known, "_save": "Save"}
    for index, board in enumerate(boards):
        board = dict(board)
        meta = [board.pop(key, "") for key in ("board", "game", "version", "orig")]
        data[f"b{index}-meta"] = ";".join(str(value) for value in meta)
        for key, value in board.items():
            data[f"b{index}-{key}"] = str(value)
    data.update(extra or {})
    return client.post(url(event, round_), data)


# --- the checks, without a database ---


def test_the_checks_name_a_player_twice_a_player_not_in_the_event_and_a_result_without_opponent():
    boards = [
        BoardEntry(1, 1, 2, Result.WHITE_WIN),
        BoardEntry(2, 3, 1, Result.DRAW),
        BoardEntry(3, 9, 4, Result.BLACK_WIN),
        BoardEntry(4, 4, None, Result.WHITE_WIN),
        BoardEntry(5, 3, 2, Result.HALF_POINT_BYE),
    ]
    messages = [problem.message for problem in round_boards_check(boards, ROSTER, 2)]
    assert "Board 3: no player with start rank 9 in this event." in messages
    assert any(m.startswith("Board 4: result 1-0 without an opponent") for m in messages)
    assert "Board 5: H is a bye, which has no opponent; remove the black player or enter a result." in messages
    assert (
        "Round 2: Alpha, Ann (1, ID 2200001) is paired twice (boards 1, 2); a player plays once per round." in messages
    )
    assert any("Charlie, Cy (3, ID 2200003) is paired twice (boards 2, 5)" in m for m in messages)


def test_a_complete_round_with_a_bye_has_no_problem():
    boards = [BoardEntry(1, 1, 2, Result.WHITE_WIN), BoardEntry(2, 3, None, Result.PAIRING_BYE)]
    assert round_boards_check(boards, ROSTER, 1) == []


def test_pasted_pairings_name_players_by_start_rank_id_number_or_name():
    text = "Bo.\tWhite\tBlack\n1\t2200003\t1\n2\tBravo, Ben\tBravo, Bea\t1-0\n3\tCharlie\tbye\n"
    pasted = pairings_parse(text, ROSTER)
    assert pasted.problems == []
    assert [(b.board, b.white, b.black, b.result) for b in pasted.boards] == [
        (1, 3, 1, Result.PENDING),
        (2, 2, 4, Result.WHITE_WIN),
        (3, 3, None, Result.PAIRING_BYE),
    ]


def test_pasted_pairings_name_the_line_of_an_unknown_or_ambiguous_player():
    pasted = pairings_parse("1 1 77\n2; Bravo; 3\nnonsense\n", ROSTER)
    assert [p.message for p in pasted.problems] == [
        "Line 1: no player with start rank or ID number 77.",
        "Line 2: Bravo names 2 players; use the start rank or ID number.",
        "Line 3: expected board, white, black; read 'nonsense'.",
    ]


def test_pairings_separated_by_a_dash_like_a_pairing_program_prints_them():
    pasted = pairings_parse("1  Alpha, Ann - Charlie, Cy  ½-½\n", ROSTER)
    assert [(b.white, b.black, b.result) for b in pasted.boards] == [(1, 3, Result.DRAW)]


# --- the screen ---


def test_the_round_page_shows_the_boards_with_names_id_numbers_and_empty_rows_for_missing_pairings(event):
    people = list(event.participants.order_by("start_rank"))
    make_game(event, 1, people[0], people[1], result=Result.WHITE_WIN, board=1)
    client = client_for(event.chief_arbiter)
    response = client.get(url(event))
    assert response.status_code == 200
    html = response.content.decode()
    assert "P01, Test" in html
    assert "3300001" in html
    assert "P02, Test" in html
    rows = response.context["rows"]
    assert [(r["board"].board, r["board"].white, r["board"].black) for r in rows] == [
        (1, 1, 2),
        (2, None, None),
        (3, None, None),
    ]
    assert response.context["pending"] == 0


def test_saving_a_round_writes_every_board_in_one_go_and_counts_scores_in_the_next_round(event):
    client = client_for(event.chief_arbiter)
    boards = [
        {"board": 1, "white": 1, "black": 2, "result": "1-0"},
        {"board": 2, "white": "3300003", "black": "P04, Test", "result": "1/2-1/2"},
        {"board": 3, "white": 5, "black": "", "result": "U"},
    ]
    response = post_boards(client, event, boards)
    assert response.status_code == 302, response.context and response.context["problems"]
    assert response["Location"] == url(event)
    games = list(
        Game.objects.filter(event=event)
        .order_by("board")
        .values_list("board", "white__start_rank", "black__start_rank", "result")
    )
    assert games == [(1, 1, 2, "1-0"), (2, 3, 4, "1/2-1/2"), (3, 5, None, "U")]
    page = client.get(url(event, 2))
    roster = page.context["roster"]
    assert [roster[str(rank)][3] for rank in range(1, 7)] == [1.0, 0.0, 0.5, 0.5, 1.0, 0.0]


def test_problems_are_named_and_nothing_is_saved(event):
    client = client_for(event.chief_arbiter)
    boards = [
        {"board": 1, "white": 1, "black": 2, "result": "1-0"},
        {"board": 2, "white": 2, "black": 3, "result": "0-1"},
        {"board": 3, "white": 4, "black": "", "result": "1-0"},
        {"board": 4, "white": 44, "black": 6, "result": "*"},
    ]
    response = post_boards(client, event, boards)
    assert response.status_code == 200
    messages = [p.message for p in response.context["problems"]]
    assert any("P02, Test (2, ID 3300002) is paired twice (boards 1, 2)" in m for m in messages)
    assert any(m.startswith("Board 3: result 1-0 without an opponent") for m in messages)
    assert "Board 4: no player with start rank or ID number 44." in messages
    assert not Game.objects.filter(event=event).exists()


def test_save_and_next_goes_to_the_next_round(event):
    client = client_for(event.chief_arbiter)
    boards = [{"board": n, "white": 2 * n - 1, "black": 2 * n, "result": "0-1"} for n in (1, 2, 3)]
    response = post_boards(client, event, boards, extra={"_next": "1"})
    assert response["Location"] == url(event, 2)


def test_pasting_pairings_fills_the_boards_without_saving_and_keeps_stored_results(event):
    people = list(event.participants.order_by("start_rank"))
    game = make_game(event, 1, people[0], people[1], result=Result.DRAW, board=1)
    client = client_for(event.chief_arbiter)
    response = client.post(url(event), {"_paste": "1", "pairings": "1 1 2\n2 3300003 4\n3 P05 P06\n"})
    assert response.status_code == 200
    assert response.context["problems"] == []
    shown = [
        (r["board"].board, r["board"].white, r["board"].black, r["board"].result, r["board"].game_id)
        for r in response.context["rows"]
    ]
    assert shown == [(1, 1, 2, "1/2-1/2", game.pk), (2, 3, 4, "*", None), (3, 5, 6, "*", None)]
    assert Game.objects.filter(event=event).count() == 1


def test_a_bad_paste_names_the_line_and_keeps_the_text(event):
    client = client_for(event.chief_arbiter)
    response = client.post(url(event), {"_paste": "1", "pairings": "1 1 2\n2 3 99\n"})
    assert [p.message for p in response.context["problems"]] == ["Line 2: no player with start rank or ID number 99."]
    assert response.context["paste_text"] == "1 1 2\n2 3 99\n"


def test_a_cleared_board_deletes_its_game_and_an_untouched_board_is_not_written(event):
    people = list(event.participants.order_by("start_rank"))
    kept = make_game(event, 1, people[0], people[1], result=Result.DRAW, board=1)
    gone = make_game(event, 1, people[2], people[3], result=Result.DRAW, board=2)
    client = client_for(event.chief_arbiter)
    boards = [
        {"board": 1, "white": 1, "black": 2, "result": "1/2-1/2", "game": kept.pk, "version": 1, "orig": "1|2|1/2-1/2"},
        {"board": 2, "white": "", "black": "", "result": "*", "game": gone.pk, "version": 1, "orig": "3|4|1/2-1/2"},
    ]
    response = post_boards(client, event, boards, known=f"{kept.pk}:1,{gone.pk}:1")
    assert response.status_code == 302
    assert list(Game.objects.filter(event=event).values_list("pk", "version")) == [(kept.pk, 1)]


def test_two_arbiters_on_one_round_the_second_is_told_and_the_first_result_stays(event):
    people = list(event.participants.order_by("start_rank"))
    game = make_game(event, 1, people[0], people[1], result=Result.PENDING, board=1)
    first, second = client_for(event.chief_arbiter), client_for(make_officer("second"))
    board = {"board": 1, "white": 1, "black": 2, "game": game.pk, "version": 1, "orig": "1|2|*"}
    assert post_boards(first, event, [{**board, "result": "1-0"}], known=f"{game.pk}:1").status_code == 302
    response = post_boards(second, event, [{**board, "result": "0-1"}], known=f"{game.pk}:1")
    assert response.status_code == 200
    assert any("was changed by someone else" in p.message for p in response.context["problems"])
    game.refresh_from_db()
    assert (game.result, game.version) == (Result.WHITE_WIN, 2)


def test_a_game_added_by_someone_else_meanwhile_refuses_the_round(event):
    people = list(event.participants.order_by("start_rank"))
    make_game(event, 1, people[0], people[1], result=Result.PENDING, board=1)
    client = client_for(event.chief_arbiter)
    response = post_boards(client, event, [{"board": 2, "white": 3, "black": 4, "result": "1-0"}], known="")
    assert response.status_code == 200
    assert any("Someone else added 1 game(s) to round 1" in p.message for p in response.context["problems"])
    assert Game.objects.filter(event=event).count() == 1


def test_another_arbiter_cannot_see_or_save_the_round(event):
    stranger = client_for(make_arbiter("stranger"))
    assert stranger.get(url(event)).status_code == 302  # the change page's answer: no such event for them
    response = post_boards(stranger, event, [{"board": 1, "white": 1, "black": 2, "result": "1-0"}])
    assert response.status_code == 302
    assert not Game.objects.exists()


def test_a_submitted_event_is_read_only_for_its_arbiter(event):
    from events.services import event_submit

    people = list(event.participants.order_by("start_rank"))
    make_game(event, 1, people[0], people[1], result=Result.DRAW, board=1)
    event.rounds = 1  # complete: round 1 of 1 (an event with declared rounds unplayed is refused, issue 32)
    event.save(update_fields=["rounds"])
    event_submit(event, user=event.chief_arbiter)
    client = client_for(event.chief_arbiter)
    page = client.get(url(event))
    assert page.status_code == 200
    assert page.context["editable"] is False
    assert 'name="_save"' not in page.content.decode()
    response = post_boards(client, event, [{"board": 1, "white": 1, "black": 2, "result": "1-0"}])
    assert response.status_code == 403


def test_a_round_beyond_the_event_redirects_to_the_event(event):
    client = client_for(event.chief_arbiter)
    response = client.get(url(event, 4))
    assert response.status_code == 302


def test_the_games_by_round_on_the_event_page_and_the_round_screen_speak_spanish(event):
    participants = list(event.participants.order_by("start_rank"))
    make_game(event, 1, participants[0], participants[1], Result.WHITE_WIN, board=1)
    client = client_for(event.chief_arbiter)
    games = client.get(reverse("admin:events_event_change", args=[event.pk]) + "?round=1", HTTP_ACCEPT_LANGUAGE="es")
    text = games.content.decode()
    for spanish in ("Partidas — ronda 1", "Jugador con blancas", "Ronda 1"):
        assert spanish in text
    for english in ("Games — round", "White player", "Black player", "New games", "pending)", "leave Black empty"):
        assert english not in text
    screen = client.get(url(event), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Intro guarda la ronda" in screen
    assert 'aria-label="Mesa 1, resultado"' in screen
    assert "Enter saves" not in screen
    assert "Board 1, result" not in screen


def test_the_round_screen_keys_give_the_draw_two_keys_and_the_taps_say_the_stored_result(event):
    participants = list(event.participants.order_by("start_rank"))
    make_game(event, 1, participants[0], participants[1], Result.DRAW, board=1)
    page = client_for(event.chief_arbiter).get(url(event))
    assert page.context["key_codes"]["="] == page.context["key_codes"]["5"] == Result.DRAW
    text = page.content.decode()
    assert '<button type="button" tabindex="-1" data-r="1/2-1/2" aria-pressed="true">' in text
    assert '<button type="button" tabindex="-1" data-r="1-0" aria-pressed="false">' in text
