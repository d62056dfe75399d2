"""The database itself refuses invalid data, whatever path (form, import, raw ORM) writes it."""

import pytest
from django.db import IntegrityError, transaction

from events.models import Result
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db


def refused(callable_, *args, **kwargs) -> bool:
    try:
        with transaction.atomic():
            callable_(*args, **kwargs)
    except IntegrityError:
        return True
    return False


@pytest.fixture
def event_with_four():
    event = make_event()
    return event, make_participants(event, [make_player() for _ in range(4)])


def test_database_refuses_a_game_where_white_is_black(event_with_four):
    event, (a, *_) = event_with_four
    assert refused(make_game, event, 1, a, a)


def test_database_refuses_a_second_game_for_a_participant_in_the_same_round(event_with_four):
    event, (a, b, c, d) = event_with_four
    make_game(event, 1, a, b)
    assert refused(make_game, event, 1, c, a)  # a already played white in round 1, now black
    assert refused(make_game, event, 1, a, c)  # white twice
    assert refused(make_game, event, 1, c, b)  # b already played black
    assert refused(make_game, event, 1, b, None, result=Result.HALF_POINT_BYE)  # a bye on top of a game
    make_game(event, 1, c, d)  # the other two are free
    make_game(event, 2, b, a)  # and the same players meet again in another round


def test_database_refuses_moving_a_game_onto_a_round_where_a_player_already_plays(event_with_four):
    event, (a, b, c, _d) = event_with_four
    make_game(event, 1, a, b)
    game = make_game(event, 2, c, a)
    game.round = 1
    assert refused(game.save)


def test_database_refuses_a_participant_of_another_event():
    event, other = make_event(), make_event(name="Other")
    (a,) = make_participants(event, [make_player()])
    (x,) = make_participants(other, [make_player()])
    assert refused(make_game, event, 1, a, x)


def test_database_refuses_a_duplicate_id_number():
    make_player(id_number=32008020)
    assert refused(make_player, id_number=32008020)


def test_database_refuses_a_bye_with_an_opponent_and_a_game_without_one(event_with_four):
    event, (a, b, *_) = event_with_four
    assert refused(make_game, event, 1, a, b, result=Result.HALF_POINT_BYE)
    assert refused(make_game, event, 1, a, None, result=Result.WHITE_WIN)


def test_database_refuses_an_unknown_result_code(event_with_four):
    event, (a, b, *_) = event_with_four
    assert refused(make_game, event, 1, a, b, result="2-0")


def test_database_refuses_the_same_player_twice_in_an_event():
    event = make_event()
    player = make_player()
    make_participants(event, [player])
    from events.models import Participant

    assert refused(Participant.objects.create, event=event, player=player, start_rank=2)
