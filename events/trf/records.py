"""TRF records as values: the dataclasses a parsed file is made of, the problems found, the result codes.

Column positions are 1-based and inclusive, as in the TRF texts (reference/formats.md §2).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

ERROR: Literal["error"] = "error"
WARNING: Literal["warning"] = "warning"
Severity = Literal["error", "warning"]

# Game results in the project's vocabulary (the values of events.models.Result).
WHITE_WIN = "1-0"
DRAW = "1/2-1/2"
BLACK_WIN = "0-1"
WHITE_FORFEIT_WIN = "+-"
BLACK_FORFEIT_WIN = "-+"
DOUBLE_FORFEIT = "--"
WHITE_WIN_UNPLAYED = "1-0u"  # TRF W/L: the game lasted less than one move
DRAW_UNPLAYED = "1/2u"  # TRF D/D
BLACK_WIN_UNPLAYED = "0-1u"  # TRF L/W
HALF_POINT_BYE = "H"
FULL_POINT_BYE = "F"
PAIRING_BYE = "U"
ZERO_POINT_BYE = "Z"
PENDING = "*"  # paired, no result yet (in-tournament files)
# B.02 §1.2 / TRF §2.2: only 1, = and 0 between two players are rated games.
RATED_RESULTS = frozenset({WHITE_WIN, DRAW, BLACK_WIN})
BYE_RESULTS = frozenset({HALF_POINT_BYE, FULL_POINT_BYE, PAIRING_BYE, ZERO_POINT_BYE})

# The result of a game between two players (TRF §2.2: 1 = 0 played, W D L lasted less than one move) with a
# colour (w / b: a game was played, TRF §2.1 column 97) but no opponent: the file does not say who the game
# was against. Not guessed: no game is made of it, and the event stays a draft until the arbiter enters the
# pairing or the bye (issue 15, "a result without an opponent"). The same code with colour "-" is a bye.
GAME_CODES_WITHOUT_OPPONENT = frozenset("1=0WDL")
# Tournament records with one line of free text from position 5 -> TrfTournament attribute.
TEXT_RECORDS = {
    "012": "name",
    "022": "city",
    "032": "federation",
    "092": "tournament_type",
    "102": "chief_arbiter",
    "122": "time_control",
    "152": "initial_colour",
    "182": "pairing_controller",
    "192": "encoded_type",
    "202": "tie_breaks",
    "212": "standings_tie_breaks",
    "222": "encoded_time_control",
    "352": "team_board_colours",
    "362": "team_scoring",
}


# --------------------------------------------------------------------------------------------------- data


def gettext_noop(message: str) -> str:
    """Marks a message for the translation catalogue (``makemessages`` looks for this name) without importing
    Django: this package is pure (.importlinter "parsers"); events.trf_text translates it where it is shown."""
    return message


@dataclass(frozen=True)
class TrfText:
    """A message as its English template and its values (issue 32: shown in the reader's language). ``str()`` is
    the English text; a value may be a TrfText itself (the player and round a message is about)."""

    template: str
    values: tuple[tuple[str, object], ...] = ()

    def __str__(self) -> str:
        if not self.values:
            return self.template
        return self.template % {name: str(value) for name, value in self.values}


@dataclass(frozen=True)
class TrfProblem:
    """Something wrong with the file. ``line`` is 1-based (0: the file as a whole), ``column`` 1-based.
    ``message`` is the English text; ``text`` the same as template and values, for a page to translate."""

    line: int
    column: int | None
    severity: Severity
    message: str
    text: TrfText | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        if self.column:
            where += f", column {self.column}"
        return f"{where}: {self.severity}: {self.message}"


@dataclass
class TrfRoundEntry:
    """One round of a 001 record: opponent start rank (None: no opponent), colour w/b/-, TRF result code.

    ``result`` is the TRF code upper-cased (``1 = 0 + - W D L H F U Z``) or ``""`` for a blank field.
    """

    round: int
    opponent: int | None
    colour: str
    result: str

    @property
    def is_bye(self) -> bool:
        return self.opponent is None and not self.without_opponent

    @property
    def without_opponent(self) -> bool:
        """A game's result with a colour but no opponent (GAME_CODES_WITHOUT_OPPONENT): neither game nor bye."""
        return self.opponent is None and self.colour in ("w", "b") and self.result in GAME_CODES_WITHOUT_OPPONENT


@dataclass
class TrfPlayer:
    start_rank: int
    name: str = ""
    sex: str = ""  # "m", "w" or ""
    title: str = ""  # GM IM FM CM WGM WIM WFM WCM (one-letter g/m/f/wg… normalised) or as written
    rating: int | None = None  # None: unrated (blank, 0, 0000)
    federation: str = ""  # as written: FIDE code, sometimes a club code (ICU exports)
    fide_id: str = ""  # digits, or "" (blank, 0, not digits)
    birth_date: dt.date | None = None
    birth_year: int | None = None
    points: float | None = None
    rank: int | None = None
    rounds: list[TrfRoundEntry] = field(default_factory=list)
    line: int = field(default=0, compare=False)

    @property
    def surname(self) -> str:
        return self.name.split(",", 1)[0].strip()

    @property
    def given_names(self) -> str:
        return self.name.split(",", 1)[1].strip() if "," in self.name else ""

    def entry(self, round_number: int) -> TrfRoundEntry | None:
        for entry in self.rounds:
            if entry.round == round_number:
                return entry
        return None


@dataclass
class TrfNationalRating:
    """TRF-2026 National Rating Support record: the 001 columns under a 3-letter federation code."""

    federation: str
    start_rank: int
    sex: str = ""
    classification: str = ""
    name: str = ""
    rating: int | None = None
    origin: str = ""
    national_id: str = ""
    birth_date: dt.date | None = None
    birth_year: int | None = None
    line: int = field(default=0, compare=False)


@dataclass
class TrfTeam:
    """A team (record 310, or the older 013 numbered in file order)."""

    number: int
    name: str
    members: list[int] = field(default_factory=list)
    nickname: str = ""
    strength: int | None = None
    match_points: float | None = None
    game_points: float | None = None
    rank: int | None = None
    line: int = field(default=0, compare=False)
    record: str = field(default="310", compare=False)


@dataclass
class TrfBye:
    """TRF-2026 record 240: a bye of ``kind`` F/H/Z in ``round`` for the listed player (or team) ids."""

    kind: str
    round: int
    ids: list[int] = field(default_factory=list)
    line: int = field(default=0, compare=False)


@dataclass
class TrfRecord:
    """A line kept verbatim (a record this module does not interpret, or an unknown one)."""

    code: str
    text: str
    line: int = field(default=0, compare=False)


@dataclass
class TrfTournament:
    name: str = ""  # 012
    city: str = ""  # 022
    federation: str = ""  # 032
    start_date: dt.date | None = None  # 042
    end_date: dt.date | None = None  # 052
    tournament_type: str = ""  # 092
    chief_arbiter: str = ""  # 102
    deputy_arbiters: list[str] = field(default_factory=list)  # 112, one line each
    time_control: str = ""  # 122
    round_dates: list[dt.date | None] = field(default_factory=list)  # 132, index = round - 1
    rounds_declared: int | None = None  # 142, or JaVaFo XXR
    initial_colour: str = ""  # 152
    scoring: dict[str, float] = field(default_factory=dict)  # 162 codes W D L A P X given explicitly
    nrs_federation: str = ""  # 172 positions 5-7
    starting_rank_method: str = ""  # 172 positions 9-13
    pairing_controller: str = ""  # 182
    encoded_type: str = ""  # 192
    tie_breaks: str = ""  # 202
    standings_tie_breaks: str = ""  # 212
    encoded_time_control: str = ""  # 222
    team_board_colours: str = ""  # 352
    team_scoring: str = ""  # 362
    players: list[TrfPlayer] = field(default_factory=list)
    national_ratings: list[TrfNationalRating] = field(default_factory=list)
    teams: list[TrfTeam] = field(default_factory=list)
    byes: list[TrfBye] = field(default_factory=list)
    records: list[TrfRecord] = field(default_factory=list)  # kept verbatim, written back
    # Record code -> the line of its first record (header records included), as read: a problem about a
    # header value names that line and column 5. Players, teams, byes and kept records carry their own line.
    record_lines: dict[str, int] = field(default_factory=dict, compare=False)
    # Declared counts are checked against the data on parsing; the writer recomputes them.
    players_declared: int | None = field(default=None, compare=False)  # 062
    rated_players_declared: int | None = field(default=None, compare=False)  # 072
    teams_declared: int | None = field(default=None, compare=False)  # 082

    def player(self, start_rank: int) -> TrfPlayer | None:
        for player in self.players:
            if player.start_rank == start_rank:
                return player
        return None

    @property
    def rounds_played(self) -> int:
        """The highest round for which any player has an entry."""
        return max((entry.round for player in self.players for entry in player.rounds), default=0)

    @property
    def number_of_rounds(self) -> int:
        return max(self.rounds_declared or 0, self.rounds_played)


@dataclass(frozen=True)
class TrfGame:
    """One pairing, once (not once per side). A bye has ``black`` None and the player as ``white``."""

    round: int
    white: int
    black: int | None
    result: str

    @property
    def is_rated(self) -> bool:
        return self.black is not None and self.result in RATED_RESULTS

    @property
    def is_bye(self) -> bool:
        return self.black is None


class ProblemsBySeverity:
    """``errors`` and ``warnings`` of an object's ``problems`` (a parse result, an import outcome)."""

    problems: list[TrfProblem]

    @property
    def errors(self) -> list[TrfProblem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[TrfProblem]:
        return [p for p in self.problems if p.severity == WARNING]
