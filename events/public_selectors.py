"""Reads behind the public event pages: visible events and the crosstable in standings order.

Four queries per crosstable whatever the size (event, participants, games, rating changes). The maths
(average, category, performance rating) comes from the engine; this module only gathers the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, QuerySet

from events.models import (
    BYE_RESULTS,
    RATED_RESULTS,
    RESULT_POINTS,
    Event,
    EventStatus,
    Game,
    Participant,
    Result,
)
from ratings.engine.rounding import round_half_up
from ratings.engine.tables import dp_from_score
from ratings.models import RatingChange, RatingListStatus

# Drafts are the arbiter's work in progress: the public sees an event once it is submitted for rating.
PUBLIC_STATUSES = (EventStatus.SUBMITTED, EventStatus.RATED, EventStatus.CORRECTED)

# How a result reads from one side: (text shown, colour-independent code).
_UNPLAYED = {
    Result.WHITE_FORFEIT_WIN,
    Result.BLACK_FORFEIT_WIN,
    Result.DOUBLE_FORFEIT,
    Result.WHITE_WIN_UNPLAYED,
    Result.DRAW_UNPLAYED,
    Result.BLACK_WIN_UNPLAYED,
}


def average_rating(ratings: list[float]) -> int:
    """Ra: the average rounded to the nearest integer, .5 up (Title Regulations 1.4.6, rating-rules 3.1)."""
    return int(round_half_up(sum(ratings) / len(ratings)))


def performance_rating(opponent_ratings: list[float], score: float) -> int:
    """Rp = Ra + dp, dp from table 8.1.1 at p = score / games, whole percent (rating-rules 3.1)."""
    return average_rating(opponent_ratings) + int(dp_from_score(score, len(opponent_ratings)))


def tournament_category(average: int) -> int | None:
    """Category I = 2251-2275, each further category 25 points (rating-rules 3.2); None below 2251."""
    if average < 2251:
        return None
    return (average - 2251) // 25 + 1


def public_events() -> QuerySet[Event]:
    return Event.objects.filter(status__in=PUBLIC_STATUSES).select_related("federation", "rated_on")


def public_event_list() -> QuerySet[Event]:
    """Public events with their number of participants (one query), newest first."""
    return public_events().annotate(participant_count=Count("participants")).order_by("-end_date", "-id")


@dataclass
class CrosstableCell:
    round: int
    opponent_rank: int | None  # final rank of the opponent (None for byes)
    opponent_start_rank: int | None
    colour: str  # 'w', 'b' or '' for byes
    points: float
    result_text: str  # '1', '½', '0', '+', '−', '½ bye', ...
    rated: bool


@dataclass
class CrosstableRow:
    participant: Participant
    rank: int = 0
    points: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    rating: int | None = None  # rating used (list in force at the start; else the arbiter's)
    rated_games: int = 0
    rated_score: float = 0.0
    rated_opponent_ratings: list[float] = field(default_factory=list)
    performance: int | None = None
    rating_change: float | None = None
    k_factor: float | None = None
    cells: list[CrosstableCell | None] = field(default_factory=list)


@dataclass
class Crosstable:
    event: Event
    rows: list[CrosstableRow]
    rounds: list[int]
    average_rating: int | None
    rated_players: int
    category: int | None
    is_rated: bool


def _points_text(points: float, result: str) -> str:
    if result in BYE_RESULTS:
        return {
            Result.HALF_POINT_BYE: "½ bye",
            Result.FULL_POINT_BYE: "1 bye",
            Result.PAIRING_BYE: "1 bye",
            Result.ZERO_POINT_BYE: "0 bye",
        }[result]
    text = {1.0: "1", 0.5: "½", 0.0: "0"}[points]
    if result in (Result.WHITE_FORFEIT_WIN, Result.BLACK_FORFEIT_WIN, Result.DOUBLE_FORFEIT):
        return {1.0: "+", 0.0: "−"}[points]  # forfeits, not rated (B.02 1.2)
    if result in _UNPLAYED:
        return f"{text}u"
    if result == Result.PENDING:
        return "*"
    return text


def event_crosstable(event: Event) -> Crosstable:
    participants = list(
        Participant.objects.filter(event=event)
        .select_related("player", "player__federation")
        .order_by("start_rank")
    )
    games = list(
        Game.objects.filter(event=event)
        .values("round", "white_id", "black_id", "result")
        .order_by("round", "id")
    )
    changes = {
        change.player_id: change
        for change in RatingChange.objects.filter(
            event=event,
            rating_list__status=RatingListStatus.PUBLISHED,
            rating_list__superseded_by__isnull=True,
        )
    }
    rows = {p.pk: CrosstableRow(participant=p) for p in participants}
    for row in rows.values():
        change = changes.get(row.participant.player_id)
        if change is not None:
            row.rating = change.rating_before
            row.rating_change = change.change
            row.k_factor = change.k_factor
        else:
            row.rating = row.participant.rating
    rounds = sorted({game["round"] for game in games} | set(range(1, event.rounds + 1)))
    # first pass: points and who met whom
    met: dict[int, list[tuple[int, float]]] = {pk: [] for pk in rows}
    for game in games:
        white_points, black_points = RESULT_POINTS[game["result"]]
        white = rows.get(game["white_id"])
        if white is None:
            continue
        white.points += white_points
        black = rows.get(game["black_id"]) if game["black_id"] else None
        if black is not None:
            black.points += black_points
            if game["result"] != Result.PENDING:
                met[white.participant.pk].append((black.participant.pk, white_points))
                met[black.participant.pk].append((white.participant.pk, black_points))
            if game["result"] in RATED_RESULTS:
                for own, other, points in ((white, black, white_points), (black, white, black_points)):
                    if other.rating:
                        own.rated_games += 1
                        own.rated_score += points
                        own.rated_opponent_ratings.append(float(other.rating))
    # tie-breaks: Buchholz (opponents' points) then Sonneborn-Berger (beaten opponents' points + half drawn)
    for pk, row in rows.items():
        row.buchholz = sum(rows[opponent].points for opponent, _ in met[pk])
        row.sonneborn_berger = sum(rows[opponent].points * points for opponent, points in met[pk])
        if row.rated_games:
            row.performance = performance_rating(row.rated_opponent_ratings, row.rated_score)
    ordered = sorted(
        rows.values(),
        key=lambda r: (-r.points, -r.buchholz, -r.sonneborn_berger, r.participant.start_rank),
    )
    for rank, row in enumerate(ordered, start=1):
        row.rank = rank
        row.cells = [None] * len(rounds)
    round_index = {r: i for i, r in enumerate(rounds)}
    for game in games:
        white = rows.get(game["white_id"])
        if white is None:
            continue
        black = rows.get(game["black_id"]) if game["black_id"] else None
        white_points, black_points = RESULT_POINTS[game["result"]]
        rated = game["result"] in RATED_RESULTS
        index = round_index[game["round"]]
        white.cells[index] = CrosstableCell(
            round=game["round"],
            opponent_rank=black.rank if black else None,
            opponent_start_rank=black.participant.start_rank if black else None,
            colour="w" if black else "",
            points=white_points,
            result_text=_points_text(white_points, game["result"]),
            rated=rated,
        )
        if black is not None:
            black.cells[index] = CrosstableCell(
                round=game["round"],
                opponent_rank=white.rank,
                opponent_start_rank=white.participant.start_rank,
                colour="b",
                points=black_points,
                result_text=_points_text(black_points, game["result"]),
                rated=rated,
            )
    ratings = [float(row.rating) for row in ordered if row.rating]
    average = average_rating(ratings) if ratings else None
    return Crosstable(
        event=event,
        rows=ordered,
        rounds=rounds,
        average_rating=average,
        rated_players=len(ratings),
        category=tournament_category(average) if average is not None else None,
        is_rated=bool(changes),
    )
