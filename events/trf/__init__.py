"""FIDE Tournament Report File (TRF16 / TRF06 / TRF-2026): a pure parser and writer.

No Django here: ``parse_trf`` turns the bytes an arbiter uploads into plain dataclasses plus a list of
problems (each naming the line, the column and why), keeping the line of every record (``record_lines`` for
the header records); ``check_event`` adds the checks an event needs before it is rated, still without a
database; ``events.trf_services`` matches the registry and decides what to persist.
``write_trf`` writes TRF-2026 so that ``parse_trf(write_trf(parse_trf(x).tournament))`` gives the same
tournament, players and games again.

The package, by section: ``records`` (the values: players, rounds, teams, games, problems, result codes),
``reader`` (``parse_trf`` and ``games``), ``checks`` (``check_event``), ``grouping`` (the same problem on many
lines said once: ``group_problems``), ``inference`` (the rating type and the system a file names:
``infer_rating_type``, ``infer_system``) and ``writer`` (``write_trf``). Importers use the names exported here.

Column positions are 1-based and inclusive, as in the TRF texts (reference/formats.md §2).
"""

from events.trf.checks import TrfEventChecks, check_event
from events.trf.grouping import TrfProblemGroup, group_problems, problem_kind
from events.trf.inference import infer_rating_type, infer_system
from events.trf.reader import TrfParseResult, TrfResultWithoutOpponent, games, parse_trf, results_without_opponent
from events.trf.records import (
    BLACK_FORFEIT_WIN,
    BLACK_WIN,
    BLACK_WIN_UNPLAYED,
    BYE_RESULTS,
    DOUBLE_FORFEIT,
    DRAW,
    DRAW_UNPLAYED,
    ERROR,
    FULL_POINT_BYE,
    HALF_POINT_BYE,
    PAIRING_BYE,
    PENDING,
    RATED_RESULTS,
    WARNING,
    WHITE_FORFEIT_WIN,
    WHITE_WIN,
    WHITE_WIN_UNPLAYED,
    ZERO_POINT_BYE,
    ProblemsBySeverity,
    TrfBye,
    TrfGame,
    TrfNationalRating,
    TrfPlayer,
    TrfProblem,
    TrfRecord,
    TrfRoundEntry,
    TrfTeam,
    TrfTournament,
)
from events.trf.writer import write_trf

__all__ = [
    "BLACK_FORFEIT_WIN",
    "BLACK_WIN",
    "BLACK_WIN_UNPLAYED",
    "BYE_RESULTS",
    "DOUBLE_FORFEIT",
    "DRAW",
    "DRAW_UNPLAYED",
    "ERROR",
    "FULL_POINT_BYE",
    "HALF_POINT_BYE",
    "PAIRING_BYE",
    "PENDING",
    "RATED_RESULTS",
    "WARNING",
    "WHITE_FORFEIT_WIN",
    "WHITE_WIN",
    "WHITE_WIN_UNPLAYED",
    "ZERO_POINT_BYE",
    "ProblemsBySeverity",
    "TrfBye",
    "TrfEventChecks",
    "TrfGame",
    "TrfNationalRating",
    "TrfParseResult",
    "TrfPlayer",
    "TrfProblem",
    "TrfProblemGroup",
    "TrfRecord",
    "TrfResultWithoutOpponent",
    "TrfRoundEntry",
    "TrfTeam",
    "TrfTournament",
    "check_event",
    "games",
    "group_problems",
    "infer_rating_type",
    "infer_system",
    "parse_trf",
    "problem_kind",
    "results_without_opponent",
    "write_trf",
]
