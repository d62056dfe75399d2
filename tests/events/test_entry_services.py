"""events.services: game edits in a fixed number of queries, status rules, corrections with before/after."""

import pytest
from django.core.exceptions import ValidationError

from events.models import EventCorrection, EventStatus, Game, Result
from events.services import (
    GameEdit,
    event_correct,
    event_correct_entered,
    event_games_update,
    event_return_to_draft,
    event_submit,
)
from tests.events.test_admin_roles import make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    event = make_event(name="Service Open", rounds=3)
    people = make_participants(event, [make_player(surname=f"S{i}") for i in range(1, 7)])
    for board, (white, black) in enumerate([(0, 1), (2, 3), (4, 5)], 1):
        make_game(event, 1, people[white], people[black], result=Result.PENDING, board=board)
    return event


def edit_of(game: Game, **changes) -> GameEdit:
    values = {
        "game_id": game.pk,
        "round": game.round,
        "board": game.board,
        "white_id": game.white_id,
        "black_id": game.black_id,
        "result": game.result,
        "date": game.date,
        "expected_version": game.version,
    }
    return GameEdit(**{**values, **changes})


def test_entering_a_whole_round_of_results_takes_a_fixed_number_of_queries(event, django_assert_max_num_queries):
    user = make_arbiter()
    games = list(Game.objects.filter(event=event))
    # Lock event, participants, games; one UPDATE and one history INSERT for all games; 4 savepoints.
    with django_assert_max_num_queries(9):
        update = event_games_update(event, user=user, edits=[edit_of(g, result=Result.DRAW) for g in games])
    assert len(update.changed) == 3
    assert set(Game.objects.filter(event=event).values_list("result", "version")) == {(Result.DRAW, 2)}


def test_a_three_way_rotation_of_opponents_is_applied_without_a_database_refusal(event):
    a, b, c = Game.objects.filter(event=event).order_by("board")
    # (1–2, 3–4, 5–6) → (1–4, 3–6, 5–2): every black moves to another board.
    edits = [
        edit_of(a, black_id=b.black_id),
        edit_of(b, black_id=c.black_id),
        edit_of(c, black_id=a.black_id),
    ]
    event_games_update(event, user=make_arbiter(), edits=edits)
    pairs = set(Game.objects.filter(event=event).values_list("white__start_rank", "black__start_rank"))
    assert pairs == {(1, 4), (3, 6), (5, 2)}


def test_new_deleted_and_changed_games_are_applied_together(event):
    a, _b, c = Game.objects.filter(event=event).order_by("board")
    edits = [
        GameEdit(game_id=c.pk, delete=True, expected_version=1),
        GameEdit(round=1, board=3, white_id=c.white_id, black_id=None, result=Result.FULL_POINT_BYE),
        GameEdit(round=1, board=4, white_id=c.black_id, black_id=None, result=Result.ZERO_POINT_BYE),
        edit_of(a, result=Result.WHITE_WIN),
    ]
    update = event_games_update(event, user=make_arbiter(), edits=edits)
    assert (len(update.created), len(update.changed), len(update.deleted)) == (2, 1, 1)
    assert Game.objects.filter(event=event).count() == 4
    assert not Game.objects.filter(pk=c.pk).exists()


def test_a_participant_of_another_event_is_refused_by_the_service(event):
    other = make_event(name="Elsewhere")
    (stranger,) = make_participants(other, [make_player()])
    a = Game.objects.filter(event=event).first()
    with pytest.raises(ValidationError, match=r"participant #.* is not a participant of Service Open"):
        event_games_update(event, user=make_arbiter(), edits=[edit_of(a, black_id=stranger.pk)])


@pytest.mark.parametrize("status", [EventStatus.RATED, EventStatus.CORRECTED])
def test_games_of_a_rated_event_change_only_through_a_correction(event, status):
    event.status = status
    event.save()
    game = Game.objects.filter(event=event).first()
    with pytest.raises(ValidationError, match="change only through a correction"):
        event_games_update(event, user=make_officer(), edits=[edit_of(game, result=Result.DRAW)])


def test_submit_sets_submitted_at_and_return_to_draft_clears_it(event):
    Game.objects.filter(event=event).update(result=Result.DRAW)
    event.rounds = 1  # complete: round 1 of 1 (an event with declared rounds unplayed is refused, issue 32)
    event.save(update_fields=["rounds"])
    user = make_arbiter()
    event_submit(event, user=user)
    assert event.status == EventStatus.SUBMITTED
    assert event.submitted_at is not None
    with pytest.raises(ValidationError, match="only a draft can be submitted"):
        event_submit(event, user=user)
    event_return_to_draft(event, user=user)
    event.refresh_from_db()
    assert (event.status, event.submitted_at) == (EventStatus.DRAFT, None)


def test_submit_is_refused_for_an_event_without_games():
    empty = make_event(name="Empty Open")
    with pytest.raises(ValidationError, match="Empty Open has no games yet"):
        event_submit(empty, user=make_arbiter())


def test_correct_refuses_a_draft_event_and_a_missing_reason(event):
    game = Game.objects.filter(event=event).first()
    with pytest.raises(ValidationError, match="corrections are for rated events"):
        event_correct(event, user=make_officer(), reason="x", edits=[edit_of(game, result=Result.DRAW)])
    event.status = EventStatus.RATED
    event.save()
    with pytest.raises(ValidationError, match="needs a reason"):
        event_correct(event, user=make_officer("o2"), reason="  ", edits=[edit_of(game, result=Result.DRAW)])


def test_a_correction_records_added_and_deleted_games_with_before_and_after(event):
    event.status = EventStatus.RATED
    event.save()
    _a, _b, c = Game.objects.filter(event=event).order_by("board")
    officer = make_officer()
    correction = event_correct(
        event,
        user=officer,
        reason="board 3 never played; both had byes",
        edits=[
            GameEdit(game_id=c.pk, delete=True, expected_version=c.version),
            GameEdit(round=1, board=3, white_id=c.white_id, result=Result.ZERO_POINT_BYE),
        ],
    )
    actions = sorted(
        (change["action"], change["before"] is None, change["after"] is None) for change in correction.changes["games"]
    )
    assert actions == [("added", True, False), ("deleted", False, True)]
    deleted = next(change for change in correction.changes["games"] if change["action"] == "deleted")
    assert deleted["before"]["white_rank"] == 5
    assert deleted["before"]["black_rank"] == 6
    assert EventCorrection.objects.get().user == officer
    event.refresh_from_db()
    assert event.status == EventStatus.CORRECTED


def test_a_correction_typed_into_forms_reads_them_under_the_lock_and_writes_nothing_when_they_are_invalid(event):
    event.status = EventStatus.RATED
    event.save()
    game = Game.objects.filter(event=event).order_by("board").first()
    seen = []

    def invalid(locked_games):
        seen.append(list(locked_games))  # the forms read the games inside the service's transaction
        return None

    games = Game.objects.filter(event=event)
    assert event_correct_entered(event, user=make_officer(), games=games, entered=invalid) is None
    assert len(seen[0]) == 3
    assert not EventCorrection.objects.exists()

    def valid(locked_games):
        return "board 1 was drawn", [edit_of(game, result=Result.DRAW)]

    correction = event_correct_entered(event, user=make_officer("o2"), games=games, entered=valid)
    assert correction.reason == "board 1 was drawn"
    assert len(correction.changes["games"]) == 1
    assert Game.objects.get(pk=game.pk).result == Result.DRAW
    event.refresh_from_db()
    assert event.status == EventStatus.CORRECTED
