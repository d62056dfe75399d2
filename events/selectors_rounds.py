"""What the round entry screen shows: one round's boards, the roster with scores before the round, the
standings and crosstable, and (when the ratings layer registered one) the projected rating changes.

``round_sheet(event, round_)`` runs two queries (participants with their players, games), whatever the size.
A higher layer (ratings) registers a projection with ``round_projection_register``: events cannot import it.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from events.models import RESULT_POINTS, Event, Game, Result
from events.selectors import GameLine, Standings, player_lines, standings_compute
from events.services_rounds import RosterLine

# participant id -> projected rating change on the next list (None: the player gets no change).
Projection = Callable[[Event], dict[int, float | None]]
_PROJECTIONS: list[Projection] = []


def round_projection_register(projection: Projection) -> None:
    """Called by the ratings app at start-up: how the next list would change each participant's rating."""
    if projection not in _PROJECTIONS:
        _PROJECTIONS.append(projection)


def projection_available() -> bool:
    return bool(_PROJECTIONS)


def event_projection(event: Event) -> dict[int, float | None] | None:
    """The registered projection for ``event`` (None when no ratings layer is installed)."""
    return _PROJECTIONS[-1](event) if _PROJECTIONS else None


@dataclass(frozen=True)
class SheetPlayer:
    participant_id: int
    start_rank: int
    id_number: int
    name: str
    rating: int | None
    points_before: float  # points from the rounds before the one shown


@dataclass(frozen=True)
class SheetBoard:
    board: int
    white: int | None
    black: int | None
    result: str
    game_id: int | None = None
    version: int | None = None

    @property
    def meta(self) -> str:
        """What the row posts back besides the players and result: ``board;game;version;white|black|result``."""
        return f"{self.board};{self.game_id or ''};{self.version or ''};{self.original}"

    @property
    def original(self) -> str:
        """(white, black, result) as shown, posted back so that an untouched board is not written."""
        if self.game_id is None:
            return ""
        return f"{self.white or ''}|{self.black or ''}|{self.result}"


@dataclass
class RoundSheet:
    event: Event
    round: int
    players: dict[int, SheetPlayer]  # by start rank
    boards: list[SheetBoard]
    standings: Standings
    round_counts: dict[int, tuple[int, int]] = field(default_factory=dict)  # round -> (games, pending)

    @property
    def pending(self) -> int:
        return sum(1 for board in self.boards if board.white is not None and board.result == Result.PENDING)

    @cached_property
    def roster(self) -> dict[int, RosterLine]:
        return {rank: RosterLine(rank, p.id_number, p.name) for rank, p in self.players.items()}

    @property
    def known(self) -> str:
        return ",".join(f"{b.game_id}:{b.version}" for b in self.boards if b.game_id is not None)


def round_sheet(event: Event, round_: int, *, extra_rows: bool = True) -> RoundSheet:
    """The boards of round ``round_`` in board order, then empty rows for the pairings still missing."""
    lines = player_lines(event)
    games = list(
        Game.objects.filter(event=event)
        .order_by("round", "board", "pk")
        .values_list("pk", "version", "round", "white_id", "black_id", "result", "board")
    )
    rank_of = {line.participant_id: line.start_rank for line in lines}
    before: dict[int, float] = {}
    counts: dict[int, tuple[int, int]] = {}
    boards: list[SheetBoard] = []
    for pk, version, number, white, black, result, board in games:
        total, pending = counts.get(number, (0, 0))
        counts[number] = (total + 1, pending + (result == Result.PENDING))
        if number < round_:
            white_points, black_points = RESULT_POINTS[result]
            before[white] = before.get(white, 0.0) + white_points
            if black is not None:
                before[black] = before.get(black, 0.0) + black_points
        elif number == round_:
            boards.append(
                SheetBoard(board or 0, rank_of.get(white), rank_of.get(black) if black else None, result, pk, version)
            )
    _number_boards(boards)
    if extra_rows:
        missing = (len(lines) + 1) // 2 - len(boards)
        start = max((b.board for b in boards), default=0)
        boards += [SheetBoard(start + n, None, None, Result.PENDING) for n in range(1, missing + 1)]
    players = {
        line.start_rank: SheetPlayer(
            line.participant_id,
            line.start_rank,
            line.id_number,
            line.name,
            line.rating,
            before.get(line.participant_id, 0.0),
        )
        for line in lines
    }
    standings = standings_compute(
        lines,
        [GameLine(number, white, black, result, board) for _pk, _v, number, white, black, result, board in games],
        event.rounds,
    )
    return RoundSheet(event, round_, players, boards, standings, counts)


def _number_boards(boards: list[SheetBoard]) -> None:
    """Games stored without a board number get the next free numbers, byes last (as pairing programs do)."""
    used = {b.board for b in boards if b.board}
    free = (n for n in range(1, 10**6) if n not in used)
    for index, board in enumerate(boards):
        if not board.board:
            boards[index] = SheetBoard(next(free), board.white, board.black, board.result, board.game_id, board.version)
    boards.sort(key=lambda b: (b.black is None, b.board))
