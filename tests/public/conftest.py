"""A small published federation built directly with the ORM: lists, entries, changes with per-game detail,
a rated event with its games, and a submitted event for the live rating."""

import datetime
from dataclasses import dataclass, field

import pytest

from events.models import Event, EventStatus, Game, Participant, Result
from players.models import Club, Player
from ratings.models import RatingChange, RatingList, RatingListEntry, RatingListStatus
from ratings.services.list_order import list_order_store
from tests.factories import make_federation
from tests.ratings.simulated_federation import simulated  # noqa: F401  (a fixture: the pool pages use it)

LATEST = datetime.date(2026, 3, 1)


def list_dates(count: int, last: datetime.date = LATEST) -> list[datetime.date]:
    """``count`` bimonthly list dates ending on ``last``, oldest first."""
    dates = []
    year, month = last.year, last.month
    for _ in range(count):
        dates.append(datetime.date(year, month, 1))
        month -= 2
        if month < 1:
            month += 12
            year -= 1
    return dates[::-1]


@dataclass
class Federation:
    players: list[Player]
    lists: dict[str, list[RatingList]]  # per rating type, oldest first
    rated_event: Event
    submitted_event: Event | None
    star: Player  # the first player: on every list, in both events
    club: Club | None = None  # a club of ESP with two members
    ratings: dict[tuple[int, str, datetime.date], int] = field(default_factory=dict)

    @property
    def latest(self) -> RatingList:
        return self.lists["standard"][-1]


def build_federation(
    players: int = 12,
    lists: int = 3,
    rapid_lists: int = 1,
    event_players: int = 6,
    submitted: bool = True,
    id_start: int = 5_000_001,
) -> Federation:
    esp = make_federation("ESP", "Spain")
    fra = make_federation("FRA", "France")
    titles = ["GM", "IM", "FM", "", "", "WGM", "", "CM"]
    created = []
    for i in range(players):
        female = i % 3 == 1 or i % 8 == 5
        created.append(
            Player(
                id_number=id_start + i,
                surname=f"Surname{i:04d}",
                given_names="Ana" if female else "Luis",
                search_name=f"SURNAME{i:04d}, {'ANA' if female else 'LUIS'}",
                search_key=f"surname{i:04d} {'ana' if female else 'luis'}",  # bulk_create bypasses save()
                sex="F" if female else "M",
                birth_year=1950 + (i * 7) % 70,
                federation=esp if i % 4 else fra,
                title=titles[i % len(titles)] if titles[i % len(titles)] != "WGM" or female else "",
                women_title="WGM" if female and titles[i % len(titles)] == "WGM" else "",
            )
        )
    Player.objects.bulk_create(created)
    created = list(
        Player.objects.filter(id_number__gte=id_start, id_number__lt=id_start + players).order_by("id_number")
    )
    result = Federation(players=created, lists={}, rated_event=None, submitted_event=None, star=created[0])
    result.club = Club.objects.create(name="Club Madrid", code="MAD", federation=esp, city="Madrid")
    Player.objects.filter(pk__in=[p.pk for p in created[1:3]]).update(club=result.club)
    for rating_type, count in (("standard", lists), ("rapid", rapid_lists)):
        previous = None
        result.lists[rating_type] = []
        for n, list_date in enumerate(list_dates(count)):
            rating_list = RatingList.objects.create(
                rating_type=rating_type,
                list_date=list_date,
                period_start=previous.list_date if previous else None,
                closing_date=list_date - datetime.timedelta(days=7),
                status=RatingListStatus.PUBLISHED,
                rules_preset="fide-2024",
                rules={},
                previous=previous,
                published_at=datetime.datetime(list_date.year, list_date.month, 1, tzinfo=datetime.UTC),
                entry_count=players,
                rated_count=players - 1,
                game_count=10,
            )
            entries = []
            for i, player in enumerate(created):
                base = 2600 - (1100 * i) // players + (5 if rating_type == "rapid" else 0)
                rating = None if i == players - 1 else base + (15 * n * (1 if i % 2 else -1) + (n * n * 3) % 17)
                result.ratings[(player.pk, rating_type, list_date)] = rating
                entries.append(
                    RatingListEntry(
                        rating_list=rating_list,
                        player=player,
                        rating=rating,
                        games=4 if i < event_players else 0,
                        k_factor=None if rating is None else (10 if base >= 2400 else 20),
                        inactive=i == 3,
                        change=None
                        if (n == 0 or rating is None)
                        else rating - (base + 15 * (n - 1) * (1 if i % 2 else -1) + ((n - 1) ** 2 * 3) % 17),
                        title=player.title,
                        women_title=player.women_title,
                        federation=player.federation_id,
                        sex=player.sex,
                        birth_year=player.birth_year,
                    )
                )
            RatingListEntry.objects.bulk_create(entries)
            result.lists[rating_type].append(rating_list)
            previous = rating_list
        latest = result.lists[rating_type][-1]
        # written row by row like a FIDE import: positions and ranks as such a list gets them
        list_order_store(rating_list.pk for rating_list in result.lists[rating_type])
    # A rated round robin among the first players, rated on the latest standard list.
    latest = result.latest
    event = Event.objects.create(
        name="Spring Closed",
        city="Madrid",
        federation=esp,
        start_date=latest.list_date - datetime.timedelta(days=40),
        end_date=latest.list_date - datetime.timedelta(days=36),
        rounds=event_players - 1 if event_players % 2 == 0 else event_players,
        system="round_robin",
        status=EventStatus.RATED,
        rated_on=latest,
    )
    members = created[:event_players]
    participants = Participant.objects.bulk_create(
        [
            Participant(
                event=event,
                player=p,
                start_rank=i + 1,
                rating=result.ratings[
                    (p.pk, "standard", latest.previous.list_date if latest.previous else latest.list_date)
                ],
            )
            for i, p in enumerate(members)
        ]
    )
    games, details = _round_robin(event, participants)
    Game.objects.bulk_create(games)
    rating_before = {p.player_id: p.rating for p in participants}
    changes = []
    for participant in participants:
        lines = details[participant.pk]
        k = 10 if (participant.rating or 0) >= 2400 else 20
        change = RatingChange(
            rating_list=latest,
            player=participant.player,
            event=event,
            rating_before=participant.rating,
            k_factor=k if participant.rating else None,
            games=len(lines),
            score=sum(line["score"] for line in lines),
            expected_score=sum(line["expected_score"] for line in lines),
            change=round(sum(k * (line["score"] - line["expected_score"]) for line in lines), 2),
            details=[{**line, "opponent_rating": rating_before[line["opponent_pk"]]} for line in lines],
        )
        for line in change.details:
            opponent_pk = line.pop("opponent_pk")
            line["opponent"] = next(p.id_number for p in members if p.pk == opponent_pk)
            if participant.rating and line["opponent_rating"] and participant.rating - line["opponent_rating"] > 400:
                line["opponent_rating"] = participant.rating - 400  # B.02 8.3.1: the 400-point rule
                line["capped"] = True
        if participant.rating:
            changes.append(change)
    RatingChange.objects.bulk_create(changes)
    result.rated_event = event
    if submitted:
        # Submitted (not yet rated): the star beat player 2 and drew player 3.
        pending = Event.objects.create(
            name="Summer Open",
            city="Paris",
            federation=fra,
            start_date=LATEST + datetime.timedelta(days=10),
            end_date=LATEST + datetime.timedelta(days=12),
            rounds=2,
            status=EventStatus.SUBMITTED,
        )
        a, b, c = Participant.objects.bulk_create(
            [Participant(event=pending, player=p, start_rank=i + 1) for i, p in enumerate(created[:3])]
        )
        Game.objects.bulk_create(
            [
                Game(event=pending, round=1, white=a, black=b, result=Result.WHITE_WIN),
                Game(event=pending, round=2, white=c, black=a, result=Result.DRAW),
                Game(event=pending, round=1, white=c, black=None, result=Result.HALF_POINT_BYE),
            ]
        )
        result.submitted_event = pending
    return result


def _round_robin(event: Event, participants: list[Participant]):
    """Berger-like pairings: every pair once; the lower start rank wins except every third game is drawn."""
    games, details = [], {p.pk: [] for p in participants}
    n = len(participants)
    ring = participants + ([None] if n % 2 else [])
    rounds = len(ring) - 1
    for r in range(rounds):
        for i in range(len(ring) // 2):
            white, black = ring[i], ring[-1 - i]
            if white is None or black is None:
                continue
            if (white.start_rank + black.start_rank + r) % 3 == 0:
                result, ws = Result.DRAW, 0.5
            else:
                result, ws = (Result.WHITE_WIN, 1.0) if white.start_rank < black.start_rank else (Result.BLACK_WIN, 0.0)
            games.append(Game(event=event, round=r + 1, white=white, black=black, result=result))
            for own, other, score, colour in ((white, black, ws, "w"), (black, white, 1 - ws, "b")):
                difference = (own.rating or 0) - (other.rating or 0)
                expected = 0.5 + max(-0.42, min(0.42, difference / 1000))  # test data; the page only shows it
                details[own.pk].append(
                    {
                        "round": r + 1,
                        "colour": colour,
                        "opponent_pk": other.player_id,
                        "difference": max(-400, min(400, difference)),
                        "expected_score": round(expected, 2),
                        "score": score,
                        "capped": False,
                    }
                )
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return games, details


@pytest.fixture
def federation(db) -> Federation:
    return build_federation()


@pytest.fixture(autouse=True)
def _fresh_throttle_counters():
    """The anonymous API throttle counts requests in the cache; each test starts with none counted."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
