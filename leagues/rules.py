"""League rules as PURE functions (no Django, no clock): fixtures, match and game points, team tie-breaks, the
division table and crosstable, and how a season's match dates are cut into rated slices.

Every function takes plain values (ids, numbers, dates) and returns plain values, so the rules are tested by
hand-worked examples without a database (tests/leagues/test_rules.py); ``.importlinter`` forbids Django here.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

# FIDE technical manual (v2.0, 2026; reference leagues-membership.md §1): an event lasting more than 30 days is
# rated in slices of at most 30 days, each an event of its own.
SLICE_MAX_DAYS = 30

# Tie-break codes, in the order a competition may list them (Competition.tie_breaks).
GAME_POINTS = "gp"
DIRECT_ENCOUNTER = "de"
SONNEBORN_BERGER = "sb"
BUCHHOLZ = "bh"
TIE_BREAKS = (GAME_POINTS, DIRECT_ENCOUNTER, SONNEBORN_BERGER, BUCHHOLZ)


# --- fixtures ----------------------------------------------------------------------------------------------


def berger_rounds(teams: int) -> list[list[tuple[int, int]]]:
    """All-play-all by the Berger tables (FIDE C.05 Annex 1): rounds of (home, away) pairs of team numbers 1..n.

    With an odd count a dummy n + 1 is added and its pairs dropped (that team sits the round out). The first
    pair of a round is the one with the last number: odd rounds p (= (r + 1) / 2) has the home side, even rounds
    the last number is at home against p = r / 2 + n / 2; then p + i plays p − i at home, counted round 1..n−1.
    """
    if teams < 2:
        return []
    n = teams + teams % 2
    m = n - 1

    def wrap(value: int) -> int:
        return (value - 1) % m + 1

    rounds: list[list[tuple[int, int]]] = []
    for r in range(1, n):
        p = (r + 1) // 2 if r % 2 else r // 2 + n // 2
        pairs = [(p, n) if r % 2 else (n, p)]
        pairs += [(wrap(p + i), wrap(p - i)) for i in range(1, n // 2)]
        rounds.append([(home, away) for home, away in pairs if home <= teams and away <= teams])
    return rounds


def double_round_robin(teams: int) -> list[list[tuple[int, int]]]:
    """Home and away: the Berger rounds, then the same rounds with home and away swapped."""
    first = berger_rounds(teams)
    return first + [[(away, home) for home, away in pairs] for pairs in first]


# --- match and game points ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scoring:
    """Match points for a match won, drawn, lost (FIDE team default 2/1/0; TRF-2026 record 362)."""

    win: float = 2.0
    draw: float = 1.0
    loss: float = 0.0


def match_points(home_game_points: float, away_game_points: float, scoring: Scoring) -> tuple[float, float]:
    """The side with more game points wins the match; equal game points draw it."""
    if home_game_points > away_game_points:
        return scoring.win, scoring.loss
    if home_game_points < away_game_points:
        return scoring.loss, scoring.win
    return scoring.draw, scoring.draw


@dataclass(frozen=True)
class MatchScore:
    """A finished match between two teams (ids), with each side's game points and penalties (points taken off)."""

    home: int
    away: int
    home_game_points: float
    away_game_points: float
    round: int = 0


@dataclass(frozen=True)
class Penalty:
    team: int
    match_points: float = 0.0
    game_points: float = 0.0


@dataclass
class TableRow:
    team: int
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    match_points: float = 0.0
    game_points: float = 0.0
    sonneborn_berger: float = 0.0
    buchholz: float = 0.0
    direct_encounter: float = 0.0
    rank: int = 0
    # (opponent, game points scored against them, match points scored against them), one per match played
    results: list[tuple[int, float, float]] = field(default_factory=list)


def division_table(
    teams: Sequence[int],
    matches: Iterable[MatchScore],
    scoring: Scoring,
    *,
    penalties: Iterable[Penalty] = (),
    tie_breaks: Sequence[str] = TIE_BREAKS,
) -> list[TableRow]:
    """The table of a division: rows ranked by match points, then ``tie_breaks`` in order; equal on all of them
    share the rank. Penalties come off match and game points after the tie-breaks are computed from the games.

    Tie-breaks (FIDE C.07, 2023, for team competitions where match points are the primary score):
    - Buchholz (``bh``, art. 8.1): the sum of the opponents' match points.
    - team Sonneborn-Berger (``sb``, art. 9.1 with game points as the secondary score): the sum over the
      matches played of the opponent's match points × the game points scored against that opponent.
    - direct encounter (``de``, art. 6): among the teams equal on every earlier criterion, the match points each
      scored in the matches between them (counted only when every pair of them has met).
    """
    rows = {team: TableRow(team) for team in teams}
    for match in matches:
        home_mp, away_mp = match_points(match.home_game_points, match.away_game_points, scoring)
        for team, opponent, gp, mp, opp_gp in (
            (match.home, match.away, match.home_game_points, home_mp, match.away_game_points),
            (match.away, match.home, match.away_game_points, away_mp, match.home_game_points),
        ):
            row = rows.setdefault(team, TableRow(team))
            row.played += 1
            row.match_points += mp
            row.game_points += gp
            row.results.append((opponent, gp, mp))
            if gp > opp_gp:
                row.wins += 1
            elif gp < opp_gp:
                row.losses += 1
            else:
                row.draws += 1
    earned = {team: row.match_points for team, row in rows.items()}
    for row in rows.values():
        row.buchholz = sum(earned.get(opponent, 0.0) for opponent, _, _ in row.results)
        row.sonneborn_berger = sum(earned.get(opponent, 0.0) * gp for opponent, gp, _ in row.results)
    for penalty in penalties:
        row = rows.setdefault(penalty.team, TableRow(penalty.team))
        row.match_points -= penalty.match_points
        row.game_points -= penalty.game_points
    return _ranked(list(rows.values()), tie_breaks)


def _ranked(rows: list[TableRow], tie_breaks: Sequence[str]) -> list[TableRow]:
    keys: list[str] = ["mp", *tie_breaks]

    def value(row: TableRow, key: str) -> float:
        return {
            "mp": row.match_points,
            GAME_POINTS: row.game_points,
            SONNEBORN_BERGER: row.sonneborn_berger,
            BUCHHOLZ: row.buchholz,
            DIRECT_ENCOUNTER: row.direct_encounter,
        }[key]

    groups: list[list[TableRow]] = [rows]
    for key in keys:
        if key == DIRECT_ENCOUNTER:
            for group in groups:
                _direct_encounter(group)
        next_groups: list[list[TableRow]] = []
        for group in groups:
            ordered = sorted(group, key=lambda row: (-value(row, key), row.team))
            current: list[TableRow] = []
            for row in ordered:
                if current and value(current[0], key) != value(row, key):
                    next_groups.append(current)
                    current = []
                current.append(row)
            next_groups.append(current)
        groups = next_groups
    ranked: list[TableRow] = []
    for group in groups:
        rank = len(ranked) + 1
        for row in sorted(group, key=lambda row: row.team):
            row.rank = rank
            ranked.append(row)
    return ranked


def _direct_encounter(group: list[TableRow]) -> None:
    """FIDE C.07 art. 6: only when every pair of the tied teams has met; otherwise 0 for all (no tie broken)."""
    members = {row.team for row in group}
    met = {frozenset((row.team, opponent)) for row in group for opponent, _, _ in row.results if opponent in members}
    complete = len(members) > 1 and len(met) == len(members) * (len(members) - 1) // 2
    for row in group:
        row.direct_encounter = sum(mp for opponent, _, mp in row.results if opponent in members) if complete else 0.0


def crosstable(table: Sequence[TableRow]) -> list[list[list[float]]]:
    """The crosstable of teams in table order: cell [i][j] lists the game points team i scored against team j
    (one value per meeting: two in a home-and-away season), empty on the diagonal and before they meet."""
    position = {row.team: index for index, row in enumerate(table)}
    cells: list[list[list[float]]] = [[[] for _ in table] for _ in table]
    for row in table:
        for opponent, gp, _ in row.results:
            if opponent in position:
                cells[position[row.team]][position[opponent]].append(gp)
    return cells


# --- board order and eligibility ---------------------------------------------------------------------------


def board_order_breaches(squad_positions: Sequence[int | None], tolerance: int) -> list[tuple[int, int]]:
    """Pairs of boards (higher board, lower board), numbered from 1, where the player on the higher board stands
    more than ``tolerance`` places after the player on the lower board in the squad's board order. An empty
    board or a player without a squad place (``None``) is not compared (eligibility names those)."""
    breaches = []
    for upper, upper_place in enumerate(squad_positions, 1):
        for lower in range(upper + 1, len(squad_positions) + 1):
            lower_place = squad_positions[lower - 1]
            if upper_place is not None and lower_place is not None and upper_place - lower_place > tolerance:
                breaches.append((upper, lower))
    return breaches


# --- rating: slices of a season ----------------------------------------------------------------------------


def rating_slices(dates: Iterable[datetime.date], *, policy: str) -> list[tuple[datetime.date, datetime.date]]:
    """Cut a season's match dates into the periods rated as one event each.

    ``fide-slices``: greedy from the first date, a slice spans at most SLICE_MAX_DAYS days (first to last day
    counted inclusive), so its event is rated with the list in force at its start and on the list its end falls
    in. ``game-date``: every date is an event of its own, so each game is rated with the list in force on the
    day it was played and in the period of that day.
    """
    days = sorted(set(dates))
    if policy == "game-date":
        return [(day, day) for day in days]
    slices: list[tuple[datetime.date, datetime.date]] = []
    for day in days:
        if slices and (day - slices[-1][0]).days < SLICE_MAX_DAYS:
            slices[-1] = (slices[-1][0], day)
        else:
            slices.append((day, day))
    return slices


def slice_of(day: datetime.date, slices: Sequence[tuple[datetime.date, datetime.date]]) -> int:
    """The index of the slice holding ``day``."""
    for index, (first, last) in enumerate(slices):
        if first <= day <= last:
            return index
    raise ValueError(f"{day} falls in no slice")


# --- boards ------------------------------------------------------------------------------------------------

# Result codes of a board (leagues.models.BoardResult spells them for people). Only the first three are played
# games; B.02 §5.1: a game is rated when both players have made at least one move, never a default.
HOME_WIN, DRAW, AWAY_WIN = "1-0", "1/2-1/2", "0-1"
HOME_DEFAULT_WIN, AWAY_DEFAULT_WIN, DOUBLE_DEFAULT = "+-", "-+", "--"
HOME_UNNAMED_DEFAULT, AWAY_UNNAMED_DEFAULT = "+-u", "-+u"  # the losing side named nobody for the board
UNFINISHED = "*u"
HOME_WIN_ADJUDICATED, DRAW_ADJUDICATED, AWAY_WIN_ADJUDICATED = "1-0a", "1/2a", "0-1a"
PENDING = "*"
PLAYED = (HOME_WIN, DRAW, AWAY_WIN)
ADJUDICATED = (HOME_WIN_ADJUDICATED, DRAW_ADJUDICATED, AWAY_WIN_ADJUDICATED)

_BOARD_POINTS: dict[str, tuple[float, float]] = {
    HOME_WIN: (1.0, 0.0),
    DRAW: (0.5, 0.5),
    AWAY_WIN: (0.0, 1.0),
    HOME_DEFAULT_WIN: (1.0, 0.0),
    AWAY_DEFAULT_WIN: (0.0, 1.0),
    DOUBLE_DEFAULT: (0.0, 0.0),
    HOME_UNNAMED_DEFAULT: (1.0, 0.0),
    AWAY_UNNAMED_DEFAULT: (0.0, 1.0),
    UNFINISHED: (0.0, 0.0),
    HOME_WIN_ADJUDICATED: (1.0, 0.0),
    DRAW_ADJUDICATED: (0.5, 0.5),
    AWAY_WIN_ADJUDICATED: (0.0, 1.0),
    PENDING: (0.0, 0.0),
}
# The rated game an adjudicated result stands for (rated only where the competition says so).
_ADJUDICATED_AS = {HOME_WIN_ADJUDICATED: HOME_WIN, DRAW_ADJUDICATED: DRAW, AWAY_WIN_ADJUDICATED: AWAY_WIN}


def board_points(result: str, *, unfinished_as_draw: bool = False) -> tuple[float, float]:
    """Game points (home, away) of a board. An unfinished game counts 0–0 or, where the competition says so
    (ECF League Management System's setting, reference §4), as drawn."""
    if result == UNFINISHED and unfinished_as_draw:
        return 0.5, 0.5
    return _BOARD_POINTS[result]


def rated_result(result: str, *, rate_adjudicated: bool) -> str | None:
    """The result to rate a board with (home as white's side of the code), or None when it is not rated:
    defaults, double defaults, unfinished and pending boards never are (B.02 §5.1)."""
    if result in PLAYED:
        return result
    if rate_adjudicated and result in _ADJUDICATED_AS:
        return _ADJUDICATED_AS[result]
    return None


def home_has_white(board: int, *, home_white_on_odd: bool = True) -> bool:
    """Board colours alternate (TRF-2026 record 352, e.g. ``WBWB``): the home team has white on odd boards, or
    on even boards where the competition says so."""
    return (board % 2 == 1) == home_white_on_odd


# --- a pasted match card -----------------------------------------------------------------------------------

# What a captain may type for a result, beside the codes themselves.
_RESULT_SPELLINGS = {"½-½": DRAW, "1/2": DRAW, "=": DRAW, "0.5-0.5": DRAW, "½": DRAW, "1–0": HOME_WIN, "0–1": AWAY_WIN}
RESULT_CODES = frozenset(_BOARD_POINTS)


@dataclass(frozen=True)
class CardLine:
    """One board of a match card as entered: the players by ID number (None: nobody named)."""

    board: int
    home_id: int | None
    away_id: int | None
    result: str


def parse_card(text: str) -> tuple[list[CardLine], list[str]]:
    """Read pasted line-ups, one board a line: ``board TAB home ID TAB away ID TAB result`` (spaces or ``;``
    also separate; ``-`` or an empty cell for nobody named; no result: not yet played). Every line that cannot
    be read is named with its number and what was wrong; the lines read are returned beside them."""
    lines: list[CardLine] = []
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        cells = [cell.strip() for cell in raw.replace(";", "\t").split("\t")] if "\t" in raw or ";" in raw else []
        if not cells:
            cells = raw.split()
        cells += [""] * (4 - len(cells))
        if len(cells) > 4 and any(cells[4:]):
            problems.append(f"Line {number}: more than four cells (board, home ID, away ID, result): {raw.strip()!r}.")
            continue
        board_cell, home_cell, away_cell, result_cell = cells[:4]
        result = _RESULT_SPELLINGS.get(result_cell, result_cell) or PENDING
        wrong = []
        if not board_cell.isdigit() or int(board_cell) < 1:
            wrong.append(f"the board {board_cell!r} is not a number from 1")
        for side, cell in (("home", home_cell), ("away", away_cell)):
            if cell not in ("", "-") and (not cell.isdigit() or len(cell) > 18):
                wrong.append(f"the {side} ID {cell!r} is not an ID number")
        if result not in RESULT_CODES:
            wrong.append(f"the result {result_cell!r} is not one of {', '.join(sorted(RESULT_CODES))}")
        if wrong:
            problems.append(f"Line {number}: " + "; ".join(wrong) + ".")
            continue
        lines.append(
            CardLine(
                board=int(board_cell),
                home_id=int(home_cell) if home_cell not in ("", "-") else None,
                away_id=int(away_cell) if away_cell not in ("", "-") else None,
                result=result,
            )
        )
    return lines, problems
