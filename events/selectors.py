"""Reads about one event shared by the admin preview and the public event page: standings and crosstable.

``event_standings(event)`` runs two queries (participants with their players, games); the ranking itself is
the pure ``standings_compute`` so it can be tested and reused without a database.
"""

import datetime
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.utils.translation import gettext

from events.models import BYE_RESULTS, RATED_RESULTS, RESULT_POINTS, Event, EventSystem, Game, Participant, Result

# Results that count as a game over the board for Buchholz (forfeits and pending games do not: the
# opponent never sat down, so their score says nothing about the strength of the field met).
_FORFEITS = (Result.WHITE_FORFEIT_WIN, Result.BLACK_FORFEIT_WIN, Result.DOUBLE_FORFEIT, Result.PENDING)

# How a result is printed in a crosstable cell, for (white, black).
_SYMBOLS: dict[str, tuple[str, str]] = {
    Result.WHITE_WIN: ("1", "0"),
    Result.DRAW: ("½", "½"),
    Result.BLACK_WIN: ("0", "1"),
    Result.WHITE_FORFEIT_WIN: ("+", "−"),
    Result.BLACK_FORFEIT_WIN: ("−", "+"),
    Result.DOUBLE_FORFEIT: ("−", "−"),
    Result.WHITE_WIN_UNPLAYED: ("1", "0"),
    Result.DRAW_UNPLAYED: ("½", "½"),
    Result.BLACK_WIN_UNPLAYED: ("0", "1"),
    Result.HALF_POINT_BYE: ("½", ""),
    Result.FULL_POINT_BYE: ("1", ""),
    Result.PAIRING_BYE: ("1", ""),
    Result.ZERO_POINT_BYE: ("0", ""),
    Result.PENDING: ("*", "*"),
}


@dataclass(frozen=True)
class PlayerLine:
    """The input row for one participant (what ``standings_compute`` needs to know)."""

    participant_id: int
    start_rank: int
    player_id: int
    id_number: int
    name: str
    title: str = ""
    federation: str = ""
    rating: int | None = None


@dataclass(frozen=True)
class GameLine:
    """The input row for one game: participants by primary key, ``black_id`` None for a bye."""

    round: int
    white_id: int
    black_id: int | None
    result: str
    board: int | None = None


@dataclass(frozen=True)
class RoundCell:
    """One participant's round in the crosstable, e.g. ``12w1``: opponent 12, white, won."""

    round: int
    opponent_rank: int | None  # the opponent's starting rank; None for a bye or when not paired
    colour: str  # "w", "b", or "" (bye / not paired)
    result: str  # the stored Result code, "" when not paired this round
    symbol: str  # "1", "½", "0", "+", "−", "*" (pending); "" when not paired
    points: float
    rated: bool  # only played games are rated (B.02 §1.2)

    @property
    def text(self) -> str:
        if not self.result:
            return ""
        if self.opponent_rank is None:
            # Shown in the page's language (issue 32: no English on Spanish pages).
            return f"{gettext('bye')} {self.symbol}".strip() if self.result != Result.ZERO_POINT_BYE else "−"
        return f"{self.opponent_rank}{self.colour}{self.symbol}"


@dataclass(frozen=True)
class StandingsRow:
    rank: int  # shared by participants equal on points and Buchholz
    participant_id: int
    start_rank: int
    player_id: int
    id_number: int
    name: str
    title: str
    federation: str
    rating: int | None
    points: float
    buchholz: float
    rated_games: int
    cells: tuple[RoundCell, ...]  # one per round 1..rounds
    sonneborn_berger: float = 0.0  # FIDE Tie-Break Regulations (C.07): the round robin's tie-break


@dataclass(frozen=True)
class TieBreak:
    """Which tie-break follows points (FIDE Tie-Break Regulations, Handbook C.07, 2024): Buchholz for a Swiss,
    Sonneborn-Berger for a round robin (where every opponent is the same, Buchholz cannot separate anyone)."""

    code: str  # "BH" or "SB", as FIDE abbreviates them
    round_robin: bool

    @classmethod
    def for_system(cls, system: str) -> "TieBreak":
        round_robin = system == EventSystem.ROUND_ROBIN
        return cls("SB" if round_robin else "BH", round_robin)


@dataclass(frozen=True)
class Standings:
    rounds: int
    rows: tuple[StandingsRow, ...]
    pending_games: int

    @property
    def round_numbers(self) -> range:
        return range(1, self.rounds + 1)


def standings_compute(
    players: Iterable[PlayerLine], games: Iterable[GameLine], rounds: int, round_robin: bool = False
) -> Standings:
    """Points, Buchholz, Sonneborn-Berger and per-round cells; order: points, then the tie-break of the system
    (``TieBreak``: Sonneborn-Berger for a round robin, Buchholz otherwise), then the other, then starting rank.

    The one place tie-breaks are computed (FIDE Tie-Break Regulations, Handbook C.07): Buchholz is the sum of
    the points of every opponent met over the board; Sonneborn-Berger the sum, over those games, of the
    opponent's points times the points scored against them. Forfeits, byes and pending games add nothing
    (a simplification: no virtual opponents for unplayed games).
    """
    players = list(players)
    by_id = {p.participant_id: p for p in players}
    points: dict[int, float] = defaultdict(float)
    rated_games: dict[int, int] = defaultdict(int)
    cells: dict[int, dict[int, RoundCell]] = defaultdict(dict)
    met: dict[int, list[tuple[int, float]]] = defaultdict(list)  # (opponent, points scored against them)
    last_round = rounds
    pending = 0
    for game in games:
        last_round = max(last_round, game.round)
        white_points, black_points = RESULT_POINTS[game.result]
        white_symbol, black_symbol = _SYMBOLS[game.result]
        rated = game.result in RATED_RESULTS
        pending += game.result == Result.PENDING
        points[game.white_id] += white_points
        if game.black_id is None or game.result in BYE_RESULTS:
            cells[game.white_id][game.round] = RoundCell(
                game.round, None, "", game.result, white_symbol, white_points, False
            )
            continue
        points[game.black_id] += black_points
        white_rank = by_id[game.white_id].start_rank if game.white_id in by_id else None
        black_rank = by_id[game.black_id].start_rank if game.black_id in by_id else None
        cells[game.white_id][game.round] = RoundCell(
            game.round, black_rank, "w", game.result, white_symbol, white_points, rated
        )
        cells[game.black_id][game.round] = RoundCell(
            game.round, white_rank, "b", game.result, black_symbol, black_points, rated
        )
        if rated:
            rated_games[game.white_id] += 1
            rated_games[game.black_id] += 1
        if game.result not in _FORFEITS:
            met[game.white_id].append((game.black_id, white_points))
            met[game.black_id].append((game.white_id, black_points))

    def buchholz(participant_id: int) -> float:
        return sum(points[opponent] for opponent, _ in met[participant_id])

    def sonneborn_berger(participant_id: int) -> float:
        return sum(points[opponent] * scored for opponent, scored in met[participant_id])

    def order(participant_id: int) -> tuple[float, float, float]:
        bh, sb = buchholz(participant_id), sonneborn_berger(participant_id)
        return (points[participant_id], sb, bh) if round_robin else (points[participant_id], bh, sb)

    ordered = sorted(players, key=lambda p: (tuple(-v for v in order(p.participant_id)), p.start_rank))
    rows: list[StandingsRow] = []
    for index, player in enumerate(ordered):
        score, tie_break = points[player.participant_id], buchholz(player.participant_id)
        previous = rows[-1] if rows else None
        tied = previous is not None and order(previous.participant_id) == order(player.participant_id)
        rank = previous.rank if previous and tied else index + 1
        row_cells = tuple(
            cells[player.participant_id].get(number) or RoundCell(number, None, "", "", "", 0.0, False)
            for number in range(1, last_round + 1)
        )
        rows.append(
            StandingsRow(
                rank=rank,
                participant_id=player.participant_id,
                start_rank=player.start_rank,
                player_id=player.player_id,
                id_number=player.id_number,
                name=player.name,
                title=player.title,
                federation=player.federation,
                rating=player.rating,
                points=score,
                buchholz=tie_break,
                rated_games=rated_games[player.participant_id],
                cells=row_cells,
                sonneborn_berger=sonneborn_berger(player.participant_id),
            )
        )
    return Standings(rounds=last_round, rows=tuple(rows), pending_games=pending)


def player_lines(event: Event, rating_of: dict[int, int | None] | None = None) -> list[PlayerLine]:
    """The event's players in starting order (one query); ``rating_of`` (player id -> rating) replaces the
    arbiter's reported rating of those players."""
    rating_of = rating_of or {}
    participants = (
        Participant.objects.filter(event=event)
        .order_by("start_rank")
        .values_list(
            "pk",
            "start_rank",
            "player_id",
            "player__id_number",
            "player__surname",
            "player__given_names",
            "player__title",
            "player__federation_id",
            "rating",
        )
    )
    return [
        PlayerLine(
            participant_id=pk,
            start_rank=start_rank,
            player_id=player_id,
            id_number=id_number,
            name=f"{surname}, {given}" if given else surname,
            title=title,
            federation=federation or "",
            rating=rating_of.get(player_id, rating),
        )
        for pk, start_rank, player_id, id_number, surname, given, title, federation, rating in participants
    ]


def event_lines(
    event: Event, rating_of: dict[int, int | None] | None = None
) -> tuple[list[PlayerLine], list[GameLine]]:
    """The event's players in starting order and its games (two queries). ``rating_of`` (player id -> rating)
    replaces the arbiter's reported rating of those players (the public crosstable: the rating used)."""
    players = player_lines(event, rating_of)
    games = [
        GameLine(round=round_, white_id=white, black_id=black, result=result, board=board)
        for round_, white, black, result, board in Game.objects.filter(event=event)
        .order_by("round", "board", "pk")
        .values_list("round", "white_id", "black_id", "result", "board")
    ]
    return players, games


def event_standings(event: Event) -> Standings:
    """The event's standings and crosstable from the database (two queries)."""
    players, games = event_lines(event)
    return standings_compute(players, games, event.rounds, TieBreak.for_system(event.system).round_robin)


# (rating type, day, player ids) -> player id -> rating in force that day; registered by the ratings app (events
# cannot import it).
RatingLookup = Callable[[str, datetime.date, list[int]], dict[int, int | None]]
_RATING_LOOKUPS: list[RatingLookup] = []


def participant_rating_lookup_register(lookup: RatingLookup) -> None:
    """Called by the ratings app at start-up: the ratings a new participant's row is filled in with."""
    if lookup not in _RATING_LOOKUPS:
        _RATING_LOOKUPS.append(lookup)


def participant_ratings_in_force(rating_type: str, day: datetime.date, player_ids: list[int]) -> dict[int, int | None]:
    """The players' ratings in force on ``day`` by the registered lookup (none registered: nothing known)."""
    return _RATING_LOOKUPS[-1](rating_type, day, player_ids) if _RATING_LOOKUPS else {}


def players_events_and_games(players: list) -> list[tuple[str, dict[int, object]]]:
    """How many events and games each player has (the merge page's side-by-side; three queries)."""
    from django.db.models import Count

    ids = [p.pk for p in players]
    events = Participant.objects.filter(player_id__in=ids).values("player_id").annotate(n=Count("pk"))
    games: dict[int, int] = dict.fromkeys(ids, 0)
    for side in ("white", "black"):
        counted = Game.objects.filter(**{f"{side}__player_id__in": ids}).values(f"{side}__player_id")
        for row in counted.annotate(n=Count("pk")):
            games[row[f"{side}__player_id"]] += row["n"]
    return [
        (gettext("Events"), dict.fromkeys(ids, 0) | {row["player_id"]: row["n"] for row in events}),
        (gettext("Games"), dict(games)),
    ]
