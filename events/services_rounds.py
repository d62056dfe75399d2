"""The round entry screen's writes: one round's boards checked as a whole, then saved in one transaction.

``round_boards_check`` names every problem of the boards as entered (a player twice in the round, a start
rank not in the event, a result without an opponent, a bye with one) before anything is saved;
``pairings_parse`` reads pairings pasted from a pairing program (board, white, black — each player by start
rank, ID number or name); ``event_round_save`` writes the round through ``event_games_update`` (the same
checks, history, audit and optimistic lock as the event admin).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from audit.services import Actor
from core.pagination import whole_number
from events.models import BYE_RESULTS, Event, Game, Participant, Result
from events.rounds import paired_twice
from events.services import GameEdit, GamesUpdate, event_games_update

_BYES = frozenset(r.value for r in BYE_RESULTS)
_CODES = frozenset(r.value for r in Result)
# Words a pairing program prints instead of the black player of a bye.
_BYE_WORDS = frozenset({"bye", "-", "—", "–", "libre", "descansa", "bye (1)", "bye (½)", "bye (1/2)"})
_RESULT_WORDS = {"½-½": Result.DRAW, "1/2": Result.DRAW, "=": Result.DRAW, "0.5-0.5": Result.DRAW, "+/-": "+-"}


@dataclass(frozen=True)
class RosterLine:
    """One participant as the entry screen knows them."""

    start_rank: int
    id_number: int
    name: str


@dataclass(frozen=True)
class BoardEntry:
    """One board as entered: players by start rank (None: empty), the stored game it edits, if any.

    ``original`` is (white, black, result) as the editor was shown it: a board left as shown is not written,
    so a game someone else changed meanwhile conflicts only if this editor changed it too.
    """

    board: int
    white: int | None
    black: int | None
    result: str = Result.PENDING
    game_id: int | None = None
    version: int | None = None
    original: tuple[int | None, int | None, str] | None = None

    @property
    def is_empty(self) -> bool:
        return self.white is None and self.black is None


@dataclass(frozen=True)
class RoundProblem:
    board: int | None
    message: str


@dataclass
class PastedPairings:
    boards: list[BoardEntry] = field(default_factory=list)
    problems: list[RoundProblem] = field(default_factory=list)


def round_boards_check(boards: list[BoardEntry], roster: dict[int, RosterLine], round_: int) -> list[RoundProblem]:
    """Every problem of one round's boards, each naming the board and the player (empty: it can be saved)."""
    problems: list[RoundProblem] = []
    entered = [entry for entry in boards if not entry.is_empty]
    for entry in entered:
        problems.extend(_board_problems(entry, roster))
    # players by start rank; one not in the roster is _board_problems' (no such player), not paired here
    pairings = [(round_, _in_roster(entry.white, roster), _in_roster(entry.black, roster)) for entry in entered]
    for (_round, rank), positions in paired_twice(pairings).items():
        where = [entered[position].board for position in positions]
        boards_text = ", ".join(str(board) for board in where)
        problems.append(
            RoundProblem(
                where[1],
                _("Round %(round)s: %(player)s is paired twice (boards %(boards)s); a player plays once per round.")
                % {"round": round_, "player": _label(roster[rank]), "boards": boards_text},
            )
        )
    return problems


def _in_roster(rank: int | None, roster: dict[int, RosterLine]) -> int | None:
    return rank if rank in roster else None


def _board_problems(entry: BoardEntry, roster: dict[int, RosterLine]) -> list[RoundProblem]:
    problems = []
    board = entry.board
    if entry.white is None:
        problems.append(RoundProblem(board, _("Board %(board)s: a black player without white.") % {"board": board}))
    for rank in (entry.white, entry.black):
        if rank is not None and rank not in roster:
            problems.append(
                RoundProblem(
                    board,
                    _("Board %(board)s: no player with start rank %(rank)s in this event.")
                    % {"board": board, "rank": rank},
                )
            )
    if entry.white is not None and entry.white == entry.black:
        problems.append(RoundProblem(board, _("Board %(board)s: a player cannot play themselves.") % {"board": board}))
    if entry.result not in _CODES:
        problems.append(
            RoundProblem(
                board, _("Board %(board)s: unknown result %(result)r.") % {"board": board, "result": entry.result}
            )
        )
    elif entry.black is None and entry.white is not None and entry.result not in _BYES:
        problems.append(
            RoundProblem(
                board,
                _(
                    "Board %(board)s: result %(result)s without an opponent; enter the black player, or a bye "
                    "(H half point, F full point, U pairing-allocated, Z zero)."
                )
                % {"board": board, "result": entry.result},
            )
        )
    elif entry.black is not None and entry.result in _BYES:
        problems.append(
            RoundProblem(
                board,
                _(
                    "Board %(board)s: %(result)s is a bye, which has no opponent; remove the black player or "
                    "enter a result."
                )
                % {"board": board, "result": entry.result},
            )
        )
    return problems


def _label(line: RosterLine) -> str:
    return f"{line.name} ({line.start_rank}, ID {line.id_number})"


# --- pasted pairings -----------------------------------------------------------------------------------


def player_resolve(token: str, roster: dict[int, RosterLine]) -> int | str:
    """The start rank of the player ``token`` names (start rank, ID number or name), or why none is found."""
    token = token.strip()
    if token.isdigit():
        number = whole_number(token)  # never int() on typed digits: thousands of them raise (issue 32)
        if number is None:
            return _("no player with start rank or ID number %(number)s") % {"number": token[:20]}
        if number in roster:
            return number
        matches = [line.start_rank for line in roster.values() if line.id_number == number]
        if matches:
            return matches[0]
        return _("no player with start rank or ID number %(number)s") % {"number": number}
    wanted = _name_key(token)
    full = [line.start_rank for line in roster.values() if _name_key(line.name) == wanted]
    if len(full) == 1:
        return full[0]
    surname = [line.start_rank for line in roster.values() if _name_key(line.name.split(",")[0]) == wanted]
    if len(full) > 1 or len(surname) > 1:
        return _("%(name)s names %(count)s players; use the start rank or ID number") % {
            "name": token,
            "count": max(len(full), len(surname)),
        }
    if surname:
        return surname[0]
    return _("no player named %(name)s") % {"name": token}


def _name_key(text: str) -> str:
    return " ".join(re.sub(r"[,.]", " ", text).lower().split())


def _split(line: str) -> list[str]:
    for separator in ("\t", ";", "|"):
        if separator in line:
            return [cell.strip() for cell in line.split(separator)]
    if re.search(r"\s[-–—]\s", line):  # "1  Smith, John - Doe, Jane  1-0"
        head, _sep, tail = re.split(r"\s([-–—])\s", line, maxsplit=1)
        board, _space, white = head.strip().partition(" ")
        rest = tail.strip().rsplit(" ", 1)
        if len(rest) == 2 and _result_code(rest[1]) is not None:
            return [board, white, rest[0], rest[1]]
        return [board, white, tail.strip()]
    return line.split()


def _result_code(text: str) -> str | None:
    text = text.strip()
    if text in _CODES:
        return text
    return _RESULT_WORDS.get(text)


def pairings_parse(text: str, roster: dict[int, RosterLine]) -> PastedPairings:
    """Pairings pasted as text, one board per line: ``board, white, black[, result]`` separated by tabs,
    semicolons, bars, " - " or spaces; a bye has ``bye`` (or nothing) as black. Problems name the line."""
    pasted = PastedPairings()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [cell for cell in _split(line) if cell != ""]
        if cells and not cells[0].isdigit() and number == 1:
            continue  # a heading ("Bo. White Black")
        if len(cells) < 2 or not cells[0].isdigit():
            pasted.problems.append(
                RoundProblem(
                    None,
                    _("Line %(line)s: expected board, white, black; read %(text)r.") % {"line": number, "text": line},
                )
            )
            continue
        pasted_board = _pasted_board(number, cells, roster, pasted.problems)
        if pasted_board is not None:
            pasted.boards.append(pasted_board)
    return pasted


def _pasted_board(
    number: int, cells: list[str], roster: dict[int, RosterLine], problems: list[RoundProblem]
) -> BoardEntry | None:
    board = int(cells[0])
    result: str | None = None
    if len(cells) >= 4:
        result = _result_code(cells[3])
        if result is None:
            problems.append(
                RoundProblem(
                    board, _("Line %(line)s: unknown result %(result)r.") % {"line": number, "result": cells[3]}
                )
            )
            return None
    ranks: list[int | None] = []
    for token in cells[1:3]:
        if token.lower() in _BYE_WORDS:
            ranks.append(None)
            continue
        found = player_resolve(token, roster)
        if isinstance(found, str):
            problems.append(RoundProblem(board, _("Line %(line)s: %(problem)s.") % {"line": number, "problem": found}))
            return None
        ranks.append(found)
    white, black = ranks[0], ranks[1] if len(ranks) > 1 else None
    if result is None:
        result = Result.PAIRING_BYE if black is None else Result.PENDING
    return BoardEntry(board=board, white=white, black=black, result=result)


# --- saving --------------------------------------------------------------------------------------------


def event_round_save(
    event: Event, round_: int, boards: list[BoardEntry], *, known: dict[int, int], user: Actor
) -> GamesUpdate:
    """Save round ``round_`` of ``event`` as ``boards`` in one transaction.

    ``known`` maps each game of the round the editor was shown to its version: a shown game no longer among
    the boards is deleted; a game someone else added to the round meanwhile, or changed while this editor
    changed it too, refuses the whole round (the optimistic lock of events.services).
    """
    with transaction.atomic():
        locked = Event.objects.select_for_update().get(pk=event.pk)
        participants = {p.start_rank: p for p in Participant.objects.filter(event=locked).select_related("player")}
        roster = {rank: RosterLine(rank, p.player.id_number, p.player.name) for rank, p in participants.items()}
        problems = round_boards_check(boards, roster, round_)
        if round_ < 1 or round_ > locked.rounds:
            problems.append(
                RoundProblem(
                    None,
                    _("%(event)s has %(rounds)s rounds; there is no round %(round)s.")
                    % {"event": locked.name, "rounds": locked.rounds, "round": round_},
                )
            )
        if problems:
            raise ValidationError([problem.message for problem in problems])
        current = {
            game.pk: game for game in Game.objects.filter(event=locked, round=round_).only("pk", "version", "date")
        }
        added = sorted(set(current) - set(known))
        if added:
            raise ValidationError(
                _(
                    "Someone else added %(count)s game(s) to round %(round)s while you were entering it; nothing was "
                    "saved. Reload the round and enter your results again."
                )
                % {"count": len(added), "round": round_}
            )
        edits = _round_edits(round_, boards, known, current, participants)
        return event_games_update(locked, user=user, edits=edits)


def _round_edits(
    round_: int,
    boards: list[BoardEntry],
    known: dict[int, int],
    current: dict[int, Game],
    participants: dict[int, Participant],
) -> list[GameEdit]:
    edits: list[GameEdit] = []
    kept: set[int] = set()
    for entry in boards:
        if entry.is_empty:
            continue  # an emptied board's game is deleted below
        if entry.game_id is not None:
            kept.add(entry.game_id)
        assert entry.white is not None  # round_boards_check refuses a board with black only
        if entry.game_id is not None and (entry.white, entry.black, entry.result) == entry.original:
            continue  # left as shown: not written, no conflict with someone else's change
        existing = current.get(entry.game_id) if entry.game_id is not None else None
        edits.append(
            GameEdit(
                game_id=entry.game_id,
                round=round_,
                board=entry.board,
                white_id=participants[entry.white].pk,
                black_id=participants[entry.black].pk if entry.black is not None else None,
                result=entry.result,
                date=existing.date if existing is not None else None,
                expected_version=entry.version if entry.game_id is not None else None,
            )
        )
    for game_id, version in known.items():
        if game_id not in kept:
            edits.append(GameEdit(game_id=game_id, delete=True, expected_version=version))
    return edits
