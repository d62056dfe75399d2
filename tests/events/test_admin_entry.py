"""Entering participants and games on the event page: mistakes come back as form errors that name the round
and the players (never an IntegrityError), and good entries are saved."""

import pytest
from django.urls import reverse

from events.models import Game, Participant, Result
from tests.events.test_admin_roles import change_page_data, client_for, make_arbiter
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def entry():
    arbiter = make_arbiter()
    event = make_event(name="Spring Open", rounds=3, chief_arbiter=arbiter)
    players = [make_player(surname=name, given_names="A") for name in ("Alves", "Brown", "Costa", "Dias", "Evans")]
    participants = make_participants(event, players)
    make_game(event, 1, participants[0], participants[1], result=Result.WHITE_WIN, board=1)
    make_game(event, 1, participants[2], participants[3], result=Result.DRAW, board=2)
    make_game(event, 1, participants[4], None, result=Result.PAIRING_BYE, board=3)
    client = client_for(arbiter)
    return event, participants, client


def event_url(event, round_=None) -> str:
    """The event page with the games of one round, or of all (the games inline is shown only when asked for)."""
    url = reverse("admin:events_event_change", args=[event.pk])
    return f"{url}?round={round_ or 'all'}"


def page_data(client, event, round_=None) -> dict:
    response = client.get(event_url(event, round_))
    assert response.status_code == 200
    return change_page_data(response)


def add_game(data: dict, *, round_: int, white: int, black: int | None, result: str, board: int = 1) -> dict:
    index = int(data["games-TOTAL_FORMS"])
    data.update(
        {
            f"games-{index}-round": str(round_),
            f"games-{index}-board": str(board),
            f"games-{index}-white_rank": str(white),
            f"games-{index}-black_rank": "" if black is None else str(black),
            f"games-{index}-result": result,
        }
    )
    data["games-TOTAL_FORMS"] = str(index + 1)
    return data


def errors_of(response) -> str:
    """Every error message on the page (main form, inline forms, inline non-form errors), as one text."""
    assert response.status_code == 200, "expected the form back with errors, got a redirect"
    messages = []
    for inline in response.context["inline_admin_formsets"]:
        messages += list(inline.formset.non_form_errors())
        for form_errors in inline.formset.errors:
            for field_errors in form_errors.values():
                messages += list(field_errors)
    return "\n".join(messages)


def test_entering_round_two_by_starting_rank_saves_the_games(entry):
    event, _people, client = entry
    data = page_data(client, event, round_=2)
    # The round page offers a row per missing pairing, already set to round 2.
    assert data["games-0-round"] == "2"
    for index in range(int(data["games-TOTAL_FORMS"])):
        for field in ("round", "board", "white_rank", "black_rank", "result"):
            data.pop(f"games-{index}-{field}", None)
    data["games-TOTAL_FORMS"] = "0"
    data["games-INITIAL_FORMS"] = "0"
    add_game(data, round_=2, white=2, black=3, result=Result.BLACK_WIN, board=1)
    add_game(data, round_=2, white=4, black=5, result=Result.WHITE_FORFEIT_WIN, board=2)
    add_game(data, round_=2, white=1, black=None, result=Result.HALF_POINT_BYE, board=3)
    data["_continue"] = "1"
    response = client.post(event_url(event, 2), data)
    assert response.status_code == 302, errors_of(response)
    assert response["Location"].endswith("?round=2")
    games = {
        (g.white.start_rank, g.black.start_rank if g.black else None): g.result
        for g in Game.objects.filter(event=event, round=2).select_related("white", "black")
    }
    assert games == {
        (2, 3): Result.BLACK_WIN,
        (4, 5): Result.WHITE_FORFEIT_WIN,
        (1, None): Result.HALF_POINT_BYE,
    }


def test_a_player_paired_twice_in_a_round_is_refused_naming_round_and_player(entry):
    event, _people, client = entry
    data = add_game(page_data(client, event), round_=1, white=1, black=3, result=Result.DRAW, board=4)
    response = client.post(event_url(event), data)
    text = errors_of(response)
    assert "Round 1: Alves, A (rank 1) is paired 2 times" in text
    assert "Round 1: Costa, A (rank 3) is paired 2 times" in text
    assert Game.objects.filter(event=event).count() == 3


def test_a_starting_rank_that_is_not_a_participant_is_refused(entry):
    event, _people, client = entry
    data = add_game(page_data(client, event), round_=2, white=1, black=9, result=Result.WHITE_WIN)
    text = errors_of(client.post(event_url(event), data))
    assert "Round 2, board 1: starting rank 9 is not a participant of Spring Open (ranks 1–5)" in text
    assert not Game.objects.filter(event=event, round=2).exists()


def test_a_bye_with_an_opponent_is_refused(entry):
    event, _people, client = entry
    data = add_game(page_data(client, event), round_=2, white=1, black=2, result=Result.HALF_POINT_BYE)
    text = errors_of(client.post(event_url(event), data))
    assert "Round 2, board 1: a half-point bye for Alves, A (rank 1) has no opponent — remove Brown, A (rank 2)" in text


def test_a_game_result_without_an_opponent_is_refused(entry):
    event, _people, client = entry
    data = add_game(page_data(client, event), round_=2, white=1, black=None, result=Result.WHITE_WIN)
    text = errors_of(client.post(event_url(event), data))
    assert "Round 2, board 1: Alves, A (rank 1) has result 1-0 but no opponent" in text


def test_a_round_beyond_the_events_rounds_is_refused(entry):
    event, _people, client = entry
    data = add_game(page_data(client, event), round_=4, white=1, black=2, result=Result.DRAW)
    text = errors_of(client.post(event_url(event), data))
    assert "Round 4 is beyond the 3 rounds of Spring Open (Alves, A (rank 1) – Brown, A (rank 2))" in text


def test_a_player_cannot_play_against_themselves(entry):
    event, _people, client = entry
    data = add_game(page_data(client, event), round_=2, white=2, black=2, result=Result.DRAW)
    text = errors_of(client.post(event_url(event), data))
    assert "Round 2, board 1: Brown, A (rank 2) cannot play against themselves" in text


def test_reducing_the_rounds_below_played_rounds_is_refused(entry):
    event, people, client = entry
    make_game(event, 3, people[0], people[1])
    data = page_data(client, event)
    data["rounds"] = "2"
    text = errors_of(client.post(event_url(event), data))
    assert "Round 3 has games but Spring Open has only 2 rounds" in text


def test_swapping_opponents_within_a_round_is_saved(entry):
    """A–B, C–D → A–D, C–B passes through no state the database refuses (two-step write)."""
    event, _people, client = entry
    data = page_data(client, event, round_=1)
    first = next(i for i in range(3) if data[f"games-{i}-white_rank"] == "1")
    second = next(i for i in range(3) if data[f"games-{i}-white_rank"] == "3")
    data[f"games-{first}-black_rank"], data[f"games-{second}-black_rank"] = "4", "2"
    response = client.post(event_url(event, 1), data)
    assert response.status_code == 302, errors_of(response)
    pairs = {
        (g.white.start_rank, g.black.start_rank)
        for g in Game.objects.filter(event=event, round=1, black__isnull=False).select_related("white", "black")
    }
    assert pairs == {(1, 4), (3, 2)}


def test_entering_a_result_bumps_the_game_version_and_records_history(entry):
    event, _people, client = entry
    game = Game.objects.get(event=event, round=1, board=2)
    data = page_data(client, event)
    index = next(i for i in range(3) if data[f"games-{i}-id"] == str(game.pk))
    data[f"games-{index}-result"] = Result.BLACK_WIN
    response = client.post(event_url(event), data)
    assert response.status_code == 302, errors_of(response)
    game.refresh_from_db()
    assert (game.result, game.version) == (Result.BLACK_WIN, 2)
    latest = game.history.order_by("-history_id").first()
    assert latest.result == Result.BLACK_WIN
    assert latest.history_user.username == "arbiter"


def test_a_player_entered_twice_in_an_event_is_refused_naming_the_player(entry):
    event, people, client = entry
    data = page_data(client, event)
    index = int(data["participants-TOTAL_FORMS"])
    data.update({f"participants-{index}-start_rank": "6", f"participants-{index}-player": str(people[1].player_id)})
    data["participants-TOTAL_FORMS"] = str(index + 1)
    text = errors_of(client.post(event_url(event), data))
    assert f"Brown, A ({people[1].player.id_number}) is entered twice (starting ranks 2, 6)" in text
    assert Participant.objects.filter(event=event).count() == 5


def test_a_starting_rank_given_twice_is_refused(entry):
    event, _people, client = entry
    data = page_data(client, event)
    index = int(data["participants-TOTAL_FORMS"])
    newcomer = make_player(surname="Fry", given_names="B")
    data.update({f"participants-{index}-start_rank": "5", f"participants-{index}-player": str(newcomer.pk)})
    data["participants-TOTAL_FORMS"] = str(index + 1)
    text = errors_of(client.post(event_url(event), data))
    assert "Starting rank 5 is given to Evans, A and Fry, B" in text


def test_removing_a_participant_who_has_games_is_refused(entry):
    event, _people, client = entry
    data = page_data(client, event)
    index = next(i for i in range(5) if data[f"participants-{i}-start_rank"] == "1")
    data[f"participants-{index}-DELETE"] = "on"
    text = errors_of(client.post(event_url(event), data))
    assert "Alves, A (rank 1) has games in round 1; delete those games before removing the participant" in text
    assert Participant.objects.filter(event=event).count() == 5


def test_a_merged_player_cannot_be_entered(entry):
    event, _people, client = entry
    kept = make_player(surname="Kept")
    duplicate = make_player(surname="Dup", merged_into=kept)
    data = page_data(client, event)
    index = int(data["participants-TOTAL_FORMS"])
    data.update({f"participants-{index}-start_rank": "6", f"participants-{index}-player": str(duplicate.pk)})
    data["participants-TOTAL_FORMS"] = str(index + 1)
    text = errors_of(client.post(event_url(event), data))
    assert f"was merged into another record (player #{kept.pk})" in text


def test_the_event_page_links_each_round_and_the_round_page_shows_the_standings(entry):
    event, _people, client = entry
    response = client.get(reverse("admin:events_event_change", args=[event.pk]))
    content = response.content.decode()
    assert [r["games"] for r in response.context["entry_rounds"]] == [3, 0, 0]
    assert "games-TOTAL_FORMS" not in content  # the games are entered on the round pages
    for number in (1, 2, 3):
        assert reverse("admin:events_event_round", args=[event.pk, number]) in content
    round_page = client.get(reverse("admin:events_event_round", args=[event.pk, 1]))
    standings = round_page.context["sheet"].standings
    assert [(row.start_rank, row.points) for row in standings.rows][:2] == [(1, 1.0), (5, 1.0)]
