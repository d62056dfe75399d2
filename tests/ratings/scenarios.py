"""Readable builders for rating-list tests: a starting list, events with results, snapshots of a list.

Test data is written with the ORM directly (it is the input); everything under test goes through the services.
"""

from __future__ import annotations

import datetime
import itertools

from django.utils import timezone

from events.models import Event, EventStatus, Game, Participant, RatingType, Result
from ratings.engine import get_preset, next_k_factor
from ratings.models import (
    RatingChange,
    RatingList,
    RatingListEntry,
    RatingListStatus,
    RatingPolicy,
)
from tests.factories import make_player

RESULT_BY_SCORE = {1.0: Result.WHITE_WIN, 0.5: Result.DRAW, 0.0: Result.BLACK_WIN}
_names = itertools.count(1)
JAN, MAR, MAY, JUL = (datetime.date(2026, m, 1) for m in (1, 3, 5, 7))


def bimonthly_policy(
    rating_type: str = RatingType.STANDARD,
    months: str = "1,3,5,7,9,11",
    closing_days: int = 7,
    preset: str = "fide-2024",
) -> RatingPolicy:
    policy, _ = RatingPolicy.objects.update_or_create(
        rating_type=rating_type,
        defaults={"rules_preset": preset, "list_months": months, "closing_days": closing_days},
    )
    return policy


def starting_list(
    list_date: datetime.date,
    ratings: dict,
    *,
    rating_type: str = RatingType.STANDARD,
    rated_games_total: int = 100,
    preset: str = "fide-2024",
    **entry_fields,
) -> RatingList:
    """A published (imported) list: {player: rating or None}; K as FIDE would publish it."""
    rules = get_preset(preset)
    rating_list = RatingList.objects.create(
        rating_type=rating_type,
        list_date=list_date,
        closing_date=list_date - datetime.timedelta(days=7),
        status=RatingListStatus.PUBLISHED,
        rules_preset=preset,
        rules=rules.to_json(),
        is_imported=True,
        published_at=timezone.now(),
        entry_count=len(ratings),
    )
    entries = []
    for player, rating in ratings.items():
        k = None
        if rating is not None:
            k = int(
                next_k_factor(
                    [float(rating)],
                    [rated_games_total],
                    [rating >= 2400],
                    [player.birth_year or 0],
                    list_date,
                    rules,
                )[0]
            )
        entries.append(
            RatingListEntry(
                rating_list=rating_list,
                player=player,
                rating=rating,
                k_factor=k,
                rated_games_total=rated_games_total,
                ever_2400=rating is not None and rating >= 2400,
                last_game_date=list_date - datetime.timedelta(days=20),
                **entry_fields,
            )
        )
    RatingListEntry.objects.bulk_create(entries)
    return rating_list


def players(count: int, **fields) -> list:
    return [make_player(**fields) for _ in range(count)]


def event_with_games(
    players_: list,
    games: list[tuple[int, int, float]],
    *,
    start: datetime.date,
    end: datetime.date | None = None,
    rating_type: str = RatingType.STANDARD,
    status: str = EventStatus.SUBMITTED,
    name: str | None = None,
) -> Event:
    """games: (white index, black index, white score) into ``players_``; each game in its own round."""
    event = Event.objects.create(
        name=name or f"Event {next(_names)}",
        start_date=start,
        end_date=end or start + datetime.timedelta(days=2),
        rating_type=rating_type,
        rounds=max(len(games), 1),
        status=status,
        submitted_at=timezone.now() if status != EventStatus.DRAFT else None,
    )
    participants = [Participant.objects.create(event=event, player=p, start_rank=i) for i, p in enumerate(players_, 1)]
    Game.objects.bulk_create(
        Game(
            event=event,
            round=round_,
            white=participants[w],
            black=participants[b],
            result=RESULT_BY_SCORE[score],
        )
        for round_, (w, b, score) in enumerate(games, 1)
    )
    return event


def round_robin(players_: list, scores: dict[tuple[int, int], float] | None = None, **event_fields) -> Event:
    """Every pair once; ``scores`` {(i, j): score of i} defaults to the higher index losing... to draws."""
    scores = scores or {}
    games = [
        (i, j, scores.get((i, j), 1.0 - scores.get((j, i), 0.5)))
        for i, j in itertools.combinations(range(len(players_)), 2)
    ]
    return event_with_games(players_, games, **event_fields)


ENTRY_FIELDS = (
    "rating",
    "games",
    "k_factor",
    "inactive",
    "change",
    "rated_games_total",
    "ever_2400",
    "ever_2300",
    "pool_games",
    "pool_opponent_sum",
    "pool_score",
    "pool_events",
    "pool_since",
    "last_game_date",
    "is_new_rating",
    "dropped_below_floor",
    "title",
    "federation",
    "birth_year",
)
CHANGE_FIELDS = ("rating_before", "k_factor", "games", "score", "expected_score", "change", "details")


def list_snapshot(rating_list: RatingList, labels: dict | None = None) -> dict:
    """Everything a list says, keyed by player ID number (or by ``labels``: {player: label}, so that two
    separately built federations compare) and event name; no primary keys."""
    label_of = {p.id_number: label for p, label in labels.items()} if labels else None

    def key(id_number):
        return label_of[id_number] if label_of else id_number

    entries = {
        key(e["player__id_number"]): tuple(e[f] for f in ENTRY_FIELDS)
        for e in RatingListEntry.objects.filter(rating_list=rating_list).values("player__id_number", *ENTRY_FIELDS)
    }
    changes = {
        (key(c["player__id_number"]), c["event__name"]): tuple(
            [_line(line, key) for line in c[f]] if f == "details" else c[f] for f in CHANGE_FIELDS
        )
        for c in RatingChange.objects.filter(rating_list=rating_list).values(
            "player__id_number", "event__name", *CHANGE_FIELDS
        )
    }
    meta = {
        f: getattr(rating_list, f)
        for f in (
            "rating_type",
            "list_date",
            "period_start",
            "closing_date",
            "status",
            "rules_preset",
            "rules",
            "entry_count",
            "rated_count",
            "game_count",
            "event_count",
            "new_rating_count",
            "dropped_count",
        )
    }
    return {"list": meta, "entries": entries, "changes": changes}


def _line(line: dict, key) -> dict:
    """A per-game detail line without the game's primary key, the opponent as a label."""
    return {k: (key(v) if k == "opponent" else v) for k, v in line.items() if k != "game"}


def build_federation(first_result: float = 1.0):
    """Seven players: five on the January list (one 2700, one junior), two newcomers; two events.
    ``first_result``: white's score in the Winter Open's first game (a vs b)."""
    bimonthly_policy()
    a, b, c, d, e, f, g = players(7)
    e.birth_year = 2012  # a junior: K 40 while under 2300 (B.02 8.3.3)
    e.save()
    jan_ratings = {a: 2000, b: 1900, c: 1800, d: 2700, e: 1600}
    starting_list(JAN, jan_ratings, rated_games_total=80)
    everyone = [a, b, c, d, e, f, g]
    # Winter Open (10-12 Jan): a round robin of a, b, c, e and the newcomer f
    winter = event_with_games(
        [a, b, c, e, f],
        [
            (0, 1, first_result),
            (2, 3, 0.5),
            (4, 0, 0.0),
            (1, 2, 0.5),
            (3, 4, 1.0),
            (0, 2, 1.0),
            (4, 1, 0.5),
            (3, 0, 0.0),
            (2, 4, 1.0),
            (1, 3, 0.0),
        ],
        start=datetime.date(2026, 1, 10),
        name="Winter Open",
    )
    # February Cup (5-7 Feb): d (2700) meets much weaker players (400-point rule), g is a newcomer
    cup = event_with_games(
        [a, d, b, f, c, g, e],
        [(0, 1, 0.5), (1, 2, 1.0), (3, 2, 0.5), (4, 5, 1.0), (6, 1, 0.0), (5, 0, 0.0), (3, 6, 1.0)],
        start=datetime.date(2026, 2, 5),
        name="February Cup",
    )
    return everyone, jan_ratings, [winter, cup]
