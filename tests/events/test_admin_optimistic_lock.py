"""Two people editing the same game at once: the second is told, and the first one's result stays."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from events.models import Game, Result
from events.services import GameEdit, event_games_update
from tests.events.test_admin_roles import change_page_data, client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def game():
    arbiter = make_arbiter("first")
    event = make_event(name="Lock Open", chief_arbiter=arbiter)
    white, black = make_participants(event, [make_player(surname="White"), make_player(surname="Black")])
    return make_game(event, 1, white, black, result=Result.PENDING, board=1)


def test_the_second_of_two_concurrent_event_page_edits_gets_a_form_error_and_no_lost_update(game):
    first, second = client_for(game.event.chief_arbiter), client_for(make_officer("second"))
    url = reverse("admin:events_event_change", args=[game.event.pk]) + "?round=all"
    first_data, second_data = change_page_data(first.get(url)), change_page_data(second.get(url))
    assert first_data["games-0-expected_version"] == second_data["games-0-expected_version"] == "1"

    first_data["games-0-result"] = Result.WHITE_WIN
    assert first.post(url, first_data).status_code == 302
    second_data["games-0-result"] = Result.BLACK_WIN
    response = second.post(url, second_data)

    assert response.status_code == 200
    errors = response.context["inline_admin_formsets"][1].formset.errors[0]["__all__"]
    assert errors == [
        "Round 1, board 1 (White, Test (rank 1) – Black, Test (rank 2)) was changed by someone else "
        "while you were editing it (now: 1-0); your change was not saved. Reload the page and enter it again."
    ]
    game.refresh_from_db()
    assert (game.result, game.version) == (Result.WHITE_WIN, 2)


def test_an_unchanged_game_with_an_old_version_is_no_conflict(game):
    """Saving the page for another reason must not trip over a game the editor did not touch."""
    first, second = client_for(game.event.chief_arbiter), client_for(make_officer("second"))
    url = reverse("admin:events_event_change", args=[game.event.pk]) + "?round=all"
    first_data, second_data = change_page_data(first.get(url)), change_page_data(second.get(url))
    first_data["games-0-result"] = Result.DRAW
    assert first.post(url, first_data).status_code == 302
    second_data["city"] = "Porto"
    assert second.post(url, second_data).status_code == 302
    game.refresh_from_db()
    assert game.result == Result.DRAW
    assert game.event.__class__.objects.get(pk=game.event.pk).city == "Porto"


def test_deleting_a_game_someone_else_just_changed_is_refused(game):
    first, second = client_for(game.event.chief_arbiter), client_for(make_officer("second"))
    url = reverse("admin:events_event_change", args=[game.event.pk]) + "?round=all"
    first_data, second_data = change_page_data(first.get(url)), change_page_data(second.get(url))
    first_data["games-0-result"] = Result.DRAW
    assert first.post(url, first_data).status_code == 302
    second_data["games-0-DELETE"] = "on"
    response = second.post(url, second_data)
    assert response.status_code == 200
    assert "was changed by someone else" in str(response.context["inline_admin_formsets"][1].formset.non_form_errors())
    assert Game.objects.filter(pk=game.pk).exists()


def test_the_game_admin_form_refuses_a_stale_version_too(game):
    first, second = client_for(game.event.chief_arbiter), client_for(make_officer("second"))
    url = reverse("admin:events_game_change", args=[game.pk])
    data = {"round": "1", "board": "1", "white_rank": "1", "black_rank": "2", "expected_version": "1"}
    assert first.post(url, {**data, "result": Result.WHITE_WIN}).status_code == 302
    response = second.post(url, {**data, "result": Result.BLACK_WIN})
    assert response.status_code == 200
    assert "was changed by someone else" in str(response.context["adminform"].form.non_field_errors())
    game.refresh_from_db()
    assert (game.result, game.version) == (Result.WHITE_WIN, 2)


def test_the_service_refuses_an_edit_of_an_old_version(game):
    edit = GameEdit(
        game_id=game.pk,
        round=1,
        board=1,
        white_id=game.white_id,
        black_id=game.black_id,
        result=Result.DRAW,
        expected_version=1,
    )
    event_games_update(game.event, user=game.event.chief_arbiter, edits=[edit])
    with pytest.raises(ValidationError, match=r"Round 1, board 1 was changed by someone else \(version 2"):
        event_games_update(game.event, user=game.event.chief_arbiter, edits=[edit])
    game.refresh_from_db()
    assert (game.result, game.version) == (Result.DRAW, 2)
