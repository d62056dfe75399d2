"""Reads behind the public event pages: visible events and the crosstable in standings order.

Standings, tie-breaks and cells come from events.selectors.standings_compute (shared with the admin); this
adds the rating side: the rating used, performance rating, average and category, and each rating change.
Four queries per crosstable whatever its size (participants, games, rating changes, status timeline).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, QuerySet

from events.models import Event, EventStatus, EventStatusChange
from events.selectors import StandingsRow, event_lines, standings_compute
from ratings.engine.classes import tournament_average_rating, tournament_category
from ratings.engine.performance import fide_performance
from ratings.engine.rounding import round_half_up
from ratings.models import RatingChange, current_list_condition

# Drafts are the arbiter's work in progress: the public sees an event once it is submitted for rating.
PUBLIC_STATUSES = (EventStatus.SUBMITTED, EventStatus.RATED, EventStatus.CORRECTED)


def public_events() -> QuerySet[Event]:
    return Event.objects.filter(status__in=PUBLIC_STATUSES).select_related("federation", "rated_on")


def public_event_list() -> QuerySet[Event]:
    """Public events with their number of participants (one query), newest first."""
    return public_events().annotate(participant_count=Count("participants")).order_by("-end_date", "-id")


@dataclass
class CrosstableRow:
    """A standings row (events.selectors) with what the public page adds: performance and rating change."""

    standing: StandingsRow
    performance: int | None = None
    rating_change: float | None = None
    k_factor: float | None = None


@dataclass
class Crosstable:
    event: Event
    rows: list[CrosstableRow]
    rounds: list[int]
    average_rating: int | None
    rated_players: int
    category: int | None
    is_rated: bool
    timeline: list[EventStatusChange] = field(default_factory=list)  # the status steps (issue 15)


def event_crosstable(event: Event) -> Crosstable:
    """Standings in order with per-round cells, Ra, category, each player's Rp and rating change (4 queries).

    The rating shown and used is the one the rating calculation used (list in force at the event's start)
    once the event is rated, and the arbiter's reported rating before that.
    """
    changes = {
        change.player_id: change
        for change in RatingChange.objects.filter(current_list_condition("rating_list"), event=event)
    }
    # the rating the calculation used once the event is rated (list in force at its start)
    players, games = event_lines(event, {pid: change.rating_before for pid, change in changes.items()})
    standings = standings_compute(players, games, event.rounds)
    rating_by_start_rank = {player.start_rank: player.rating for player in players}
    rows = []
    for standing in standings.rows:
        # Rp over rated games against rated opponents (Title Regulations 1.4.6; rating-rules 3.1)
        opponents, score = [], 0.0
        for cell in standing.cells:
            opponent_rating = rating_by_start_rank.get(cell.opponent_rank) if cell.opponent_rank else None
            if cell.rated and opponent_rating:
                opponents.append(float(opponent_rating))
                score += cell.points
        change = changes.get(standing.player_id)
        rows.append(
            CrosstableRow(
                standing=standing,
                performance=fide_performance(opponents, score).rating if opponents else None,
                rating_change=change.change if change is not None else None,
                k_factor=change.k_factor if change is not None else None,
            )
        )
    ratings = [float(player.rating) for player in players if player.rating]
    # Ra shown as an integer (.5 up), as FIDE prints it; the category is read from the same rounded value
    average = int(round_half_up(tournament_average_rating(ratings))) if ratings else None
    return Crosstable(
        event=event,
        rows=rows,
        rounds=list(standings.round_numbers),
        average_rating=average,
        rated_players=len(ratings),
        category=tournament_category(average) if average is not None else None,
        is_rated=bool(changes),
        timeline=list(
            EventStatusChange.objects.filter(event=event).select_related("user", "rating_list").order_by("at", "id")
        ),
    )
