"""Reads behind the public event pages: visible events (searched and filtered), and one event's standings,
crosstable, pairings per round, starting list and player cards.

Standings, tie-breaks and cells come from events.selectors.standings_compute (shared with the admin, the one
place tie-breaks are computed); this adds the rating side: the rating used, performance rating, average and
category, and each rating change. Four queries per crosstable whatever its size (participants, games, rating
changes, status timeline), two more for an event not rated yet (the list in force at its start and its entries).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field, replace

from django.db.models import Count, Q, QuerySet

from events.models import PUBLIC_STATUSES, Event, EventStatusChange, Result
from events.selectors import (
    GameLine,
    PlayerLine,
    RoundCell,
    StandingsRow,
    TieBreak,
    event_lines,
    participant_ratings_in_force,
    standings_compute,
)
from ratings.engine.classes import tournament_average_rating, tournament_category
from ratings.engine.game_line import EXPECTED_SCORE, ROUND, SCORE, WEIGHTED_CHANGE
from ratings.engine.performance import fide_performance
from ratings.engine.rounding import round_half_up
from ratings.models import RatingChange, current_list_condition


def public_events() -> QuerySet[Event]:
    return Event.objects.filter(status__in=PUBLIC_STATUSES).select_related("federation", "rated_on")


def public_event_list() -> QuerySet[Event]:
    """Public events with their number of participants (one query), newest first."""
    return public_events().annotate(participant_count=Count("participants")).order_by("-end_date", "-id")


@dataclass(frozen=True)
class EventFilters:
    """What the events index searches by (chess-results' tournament search): any part of the name or place,
    system, federation, rating type, and a date range the event overlaps."""

    q: str = ""
    system: str = ""
    federation: str = ""
    rating_type: str = ""
    date_from: datetime.date | None = None
    date_to: datetime.date | None = None


def public_event_search(filters: EventFilters) -> QuerySet[Event]:
    """Public events matching ``filters`` (empty fields match everything), newest first, with participants."""
    events = public_event_list()
    for word in filters.q.split():
        events = events.filter(Q(name__icontains=word) | Q(city__icontains=word))
    if filters.system:
        events = events.filter(system=filters.system)
    if filters.federation:
        events = events.filter(federation_id=filters.federation.upper())
    if filters.rating_type:
        events = events.filter(rating_type=filters.rating_type)
    if filters.date_from:
        events = events.filter(end_date__gte=filters.date_from)
    if filters.date_to:
        events = events.filter(start_date__lte=filters.date_to)
    return events


_QUARTERS = {0: "", 1: "¼", 2: "½", 3: "¾"}


def fraction_text(value: float) -> str:
    """Points and tie-breaks as chess-results prints them, in quarters (Sonneborn-Berger has them): 2½, 10¾, ½.
    No decimal separator, so the same on a Spanish page as on an English one; other values as they are."""
    quarters = value * 4
    if quarters != int(quarters):
        return f"{value:g}"
    whole, quarter = divmod(int(quarters), 4)
    if whole == 0 and quarter:
        return _QUARTERS[quarter]
    return f"{whole}{_QUARTERS[quarter]}"


@dataclass
class CrosstableRow:
    """A standings row (events.selectors) with what the public page adds: performance and rating change."""

    standing: StandingsRow
    performance: int | None = None
    rating_change: float | None = None
    k_factor: float | None = None
    grid: list[str] = field(default_factory=list)  # round robin: the result against each row, in rank order

    @property
    def tie_break_text(self) -> str:
        """The value of the event's tie-break (TieBreak): Sonneborn-Berger for a round robin, else Buchholz."""
        return fraction_text(self.tie_break_value)

    @property
    def tie_break_value(self) -> float:
        return self.standing.sonneborn_berger if self.round_robin else self.standing.buchholz

    round_robin: bool = False


@dataclass(frozen=True)
class Pairing:
    """One board of a round as chess-results lists it: white, result, black (None: a bye)."""

    board: int | None
    white: PlayerLine
    black: PlayerLine | None
    result: str  # e.g. "1 – 0", "½ – ½", "+ – −", "½" for a bye, "*" not played yet


@dataclass(frozen=True)
class CardGame:
    """One round of a player's card: the opponent, colour, result and the game's rating change once rated."""

    cell: RoundCell
    opponent: PlayerLine | None
    rating_change: float | None


# Where the ratings shown come from: the rating calculation, the list in force at the start, the arbiter.
RATINGS_USED, RATINGS_IN_FORCE, RATINGS_REPORTED = "used", "in_force", "reported"


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
    players: list[PlayerLine] = field(default_factory=list)  # the starting list, by starting rank
    tie_break: TieBreak = field(default_factory=lambda: TieBreak.for_system(""))
    rounds_finished: int = 0  # rounds 1..N all paired and without a game still to play
    after_round: int | None = None  # standings after this round (None: as far as entered)
    is_complete: bool = False  # every declared round paired and played
    ratings_source: str = RATINGS_REPORTED
    last_update: datetime.datetime | None = None
    games: list[GameLine] = field(default_factory=list)
    details: dict[int, list[dict]] = field(default_factory=dict)  # player id -> rating change's game lines

    @property
    def round_robin(self) -> bool:
        return self.tie_break.round_robin

    @property
    def declared_rounds(self) -> range:
        return range(1, self.event.rounds + 1)

    @property
    def standings_round(self) -> int:
        """The round the standings are after."""
        return self.after_round if self.after_round is not None else self.rounds_finished


def _rounds_finished(games: list[GameLine], rounds: int) -> int:
    """The last round N such that rounds 1..N each have games and none of them is still to be played."""
    paired = {game.round for game in games}
    pending = {game.round for game in games if game.result == Result.PENDING}
    finished = 0
    for number in range(1, max([rounds, *paired]) + 1):
        if number not in paired or number in pending:
            break
        finished = number
    return finished


def _round_robin_grid(rows: list[CrosstableRow]) -> None:
    """Each row's results against every other row (rank order), "×" on the diagonal: the n×n table."""
    index_of = {row.standing.start_rank: i for i, row in enumerate(rows)}
    for i, row in enumerate(rows):
        grid = [""] * len(rows)
        grid[i] = "×"
        for cell in row.standing.cells:
            if cell.opponent_rank is not None and cell.opponent_rank in index_of:
                grid[index_of[cell.opponent_rank]] += cell.symbol
        row.grid = grid


def event_crosstable(event: Event, after_round: int | None = None) -> Crosstable:
    """Standings in order with per-round cells, Ra, category, each player's Rp and rating change (4 queries;
    6 for an event not rated yet). ``after_round``: the standings after that round (games after it ignored).

    The ratings shown are those the rating calculation used once the event is rated, the list in force at the
    event's start before that (rating-rules 1.3), and the arbiter's reported ratings when no list is known.
    """
    changes = {
        change.player_id: change
        for change in RatingChange.objects.filter(current_list_condition("rating_list"), event=event)
    }
    players, games = event_lines(event, {pid: change.rating_before for pid, change in changes.items()})
    source = RATINGS_USED if changes else RATINGS_REPORTED
    if not changes and event.start_date:
        in_force = participant_ratings_in_force(event.rating_type, event.start_date, [p.player_id for p in players])
        if in_force:  # a list is in force: a player not on it is unrated, whatever the arbiter reported
            players = [replace(p, rating=in_force.get(p.player_id)) for p in players]
            source = RATINGS_IN_FORCE
    finished = _rounds_finished(games, event.rounds)
    if after_round is not None:
        games = [game for game in games if game.round <= after_round]
    tie_break = TieBreak.for_system(event.system)
    standings = standings_compute(players, games, after_round or event.rounds, tie_break.round_robin)
    rating_by_start_rank = {player.start_rank: player.rating for player in players}
    rows = []
    final = after_round is None or after_round >= finished
    for standing in standings.rows:
        # Rp over rated games against rated opponents (Title Regulations 1.4.6; rating-rules 3.1)
        opponents, score = [], 0.0
        for cell in standing.cells:
            opponent_rating = rating_by_start_rank.get(cell.opponent_rank) if cell.opponent_rank else None
            if cell.rated and opponent_rating:
                opponents.append(float(opponent_rating))
                score += cell.points
        change = changes.get(standing.player_id) if final else None
        rows.append(
            CrosstableRow(
                standing=standing,
                performance=fide_performance(opponents, score).rating if opponents else None,
                rating_change=change.change if change is not None else None,
                k_factor=change.k_factor if change is not None else None,
                round_robin=tie_break.round_robin,
            )
        )
    if tie_break.round_robin:
        _round_robin_grid(rows)
    ratings = [float(player.rating) for player in players if player.rating]
    # Ra shown as an integer (.5 up), as FIDE prints it; the category is read from the same rounded value
    # (rating-rules 3.2: category I = 2251-2275, 25 points each)
    average = int(round_half_up(tournament_average_rating(ratings))) if ratings else None
    timeline = list(
        EventStatusChange.objects.filter(event=event).select_related("user", "rating_list").order_by("at", "id")
    )
    return Crosstable(
        event=event,
        rows=rows,
        rounds=list(standings.round_numbers),
        average_rating=average,
        rated_players=len(ratings),
        category=tournament_category(average) if average is not None else None,
        is_rated=bool(changes),
        timeline=timeline,
        players=players,
        tie_break=tie_break,
        rounds_finished=finished,
        after_round=after_round,
        is_complete=finished >= event.rounds,
        ratings_source=source,
        last_update=max([event.updated_at, *(step.at for step in timeline)]) if event.updated_at else None,
        games=games,
        details={pid: change.details for pid, change in changes.items()},
    )


def round_pairings(crosstable: Crosstable, round_: int) -> list[Pairing]:
    """The boards of round ``round_`` in board order, each result as printed for white – black."""
    by_id = {player.participant_id: player for player in crosstable.players}
    cells = {(row.standing.participant_id, cell.round): cell for row in crosstable.rows for cell in row.standing.cells}
    pairings = []
    for game in crosstable.games:
        if game.round != round_ or game.white_id not in by_id:
            continue
        white_cell = cells.get((game.white_id, round_))
        black = by_id.get(game.black_id) if game.black_id is not None else None
        black_cell = cells.get((black.participant_id, round_)) if black is not None else None
        if black_cell is None:
            result = white_cell.symbol if white_cell else ""
        else:
            result = f"{white_cell.symbol if white_cell else ''} – {black_cell.symbol}"
        pairings.append(Pairing(game.board, by_id[game.white_id], black, result))
    return pairings


def player_card(crosstable: Crosstable, start_rank: int) -> tuple[CrosstableRow, list[CardGame]] | None:
    """A player's line of the event and their games round by round (None: no such starting rank)."""
    row = next((row for row in crosstable.rows if row.standing.start_rank == start_rank), None)
    if row is None:
        return None
    by_rank = {player.start_rank: player for player in crosstable.players}
    k = row.k_factor
    change_by_round: dict[int, float] = {}
    for line in crosstable.details.get(row.standing.player_id, []):
        if line.get(ROUND) is not None and line.get(WEIGHTED_CHANGE) is not None:
            change_by_round[line[ROUND]] = line[WEIGHTED_CHANGE]
        elif line.get(ROUND) is not None and k and line.get(EXPECTED_SCORE) is not None:
            change_by_round[line[ROUND]] = k * (line[SCORE] - line[EXPECTED_SCORE])
    games = [
        CardGame(
            cell=cell,
            opponent=by_rank.get(cell.opponent_rank) if cell.opponent_rank else None,
            rating_change=change_by_round.get(cell.round) if cell.rated else None,
        )
        for cell in row.standing.cells
        if cell.result
    ]
    return row, games
