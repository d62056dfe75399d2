"""Small factory functions for tests (plain functions: explicit, no extra dependency)."""

import datetime
import itertools

from events.models import Event, EventStatus, Game, Participant, RatingType, Result
from players.models import Federation, Player
from ratings.models import RatingChange, RatingList

_ids = itertools.count(1_000_001)


def make_federation(code: str = "ESP", name: str = "Spain") -> Federation:
    return Federation.objects.get_or_create(code=code, defaults={"name": name})[0]


def make_player(**fields) -> Player:
    fields.setdefault("id_number", next(_ids))
    fields.setdefault("surname", f"Player{fields['id_number']}")
    fields.setdefault("given_names", "Test")
    fields.setdefault("sex", "M")
    if "federation" not in fields:
        fields["federation"] = make_federation()
    return Player.objects.create(**fields)


def make_event(**fields) -> Event:
    fields.setdefault("name", "Test Open")
    fields.setdefault("start_date", datetime.date(2026, 1, 10))
    fields.setdefault("end_date", fields["start_date"] + datetime.timedelta(days=2))
    fields.setdefault("rating_type", RatingType.STANDARD)
    fields.setdefault("rounds", 5)
    return Event.objects.create(**fields)


def make_participants(event: Event, players: list[Player]) -> list[Participant]:
    return [Participant.objects.create(event=event, player=p, start_rank=i) for i, p in enumerate(players, 1)]


def make_game(
    event: Event, round: int, white: Participant, black: Participant | None, result: str = Result.DRAW, **fields
) -> Game:
    return Game.objects.create(event=event, round=round, white=white, black=black, result=result, **fields)


def make_rated_event(rating_list: RatingList, **fields) -> Event:
    """An event rated on ``rating_list``, played a month before the list."""
    day = rating_list.list_date
    fields.setdefault("start_date", day - datetime.timedelta(days=30))
    fields.setdefault("end_date", day - datetime.timedelta(days=25))
    fields.setdefault("rating_type", rating_list.rating_type)
    return make_event(status=EventStatus.RATED, rated_on=rating_list, **fields)


def make_rating_change(rating_list: RatingList, player: Player, event: Event, **fields) -> RatingChange:
    """``player``'s change on ``rating_list`` from ``event``: by default one game won against an even expectation."""
    fields.setdefault("rating_before", 2600)
    fields.setdefault("k_factor", 10)
    fields.setdefault("games", 1)
    fields.setdefault("score", 1.0)
    fields.setdefault("expected_score", 0.5)
    fields.setdefault("change", 5.0)
    return RatingChange.objects.create(rating_list=rating_list, player=player, event=event, **fields)
