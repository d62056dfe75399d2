"""Reading a TRF file (TRF16 / TRF06 / TRF-2026) into values, every record keeping its line.

``parse_trf`` turns the bytes an arbiter uploads into the dataclasses of ``events.trf.records`` plus a list of
problems (each naming the line, the column and why), keeping the line of every record (``record_lines`` for
the header records); ``games`` makes every pairing once of what was read.

Column positions below are 1-based and inclusive, as in the TRF texts (reference/formats.md §2).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from events.rounds import Pairing, paired_twice
from events.trf.records import (
    BLACK_FORFEIT_WIN,
    BLACK_WIN,
    BLACK_WIN_UNPLAYED,
    DOUBLE_FORFEIT,
    DRAW,
    DRAW_UNPLAYED,
    ERROR,
    FULL_POINT_BYE,
    GAME_CODES_WITHOUT_OPPONENT,
    HALF_POINT_BYE,
    PAIRING_BYE,
    PENDING,
    TEXT_RECORDS,
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
    TrfText,
    TrfTournament,
    gettext_noop,
)

# TRF result codes (position 99 + 10(r-1)); letters are case-insensitive and stored upper-case.
_PLAYED_CODES = frozenset("1=0+-WDL")
_BYE_CODES = frozenset("HFUZ")
_RESULT_CODES = _PLAYED_CODES | _BYE_CODES | {""}
_FAST_COLOURS = frozenset("wb")  # as written (the checks read W and B too)
# The two sides of one pairing must agree: A's code -> the only code B may have.
_MIRROR = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+", "W": "L", "L": "W", "D": "D", "": ""}
# TRF code of the white player -> project result (the black code is the mirror, checked separately).
_GAME_RESULT = {
    "1": WHITE_WIN,
    "=": DRAW,
    "0": BLACK_WIN,
    "W": WHITE_WIN_UNPLAYED,
    "D": DRAW_UNPLAYED,
    "L": BLACK_WIN_UNPLAYED,
    "": PENDING,
}
# A round with no opponent: the code the file wrote -> the bye it means. "0000 - +" is how TRF16-era
# programs (Swiss-Manager, icu_valid.tab round 5 with 11 players) wrote the pairing-allocated bye, "0000 - -"
# an absence, "0000 - =" a half-point bye (icu_valid.tab) and "0000 - 1" / "0000 - 0" full- and zero-point
# byes; a blank result is a zero-point bye (TRF §2.2 "blank = Z"). Colour "-" (or blank) says no game was
# played in that round (TRF §2.1, column 97: "-" bye or not paired).
_BYE_RESULT = {
    "H": HALF_POINT_BYE,
    "=": HALF_POINT_BYE,
    "D": HALF_POINT_BYE,
    "F": FULL_POINT_BYE,
    "1": FULL_POINT_BYE,
    "W": FULL_POINT_BYE,
    "U": PAIRING_BYE,
    "+": PAIRING_BYE,
    "Z": ZERO_POINT_BYE,
    "-": ZERO_POINT_BYE,
    "0": ZERO_POINT_BYE,
    "L": ZERO_POINT_BYE,
    "": ZERO_POINT_BYE,
}
_TITLES = {
    "G": "GM",
    "M": "IM",
    "F": "FM",
    "C": "CM",
    "WG": "WGM",
    "WM": "WIM",
    "WF": "WFM",
    "WC": "WCM",
    "GM": "GM",
    "IM": "IM",
    "FM": "FM",
    "CM": "CM",
    "WGM": "WGM",
    "WIM": "WIM",
    "WFM": "WFM",
    "WCM": "WCM",
}
_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("jan", "january", "jän", "janv"),
            ("feb", "february", "febr", "fév", "fev"),
            ("mar", "march", "mär", "mrz"),
            ("apr", "april", "avr"),
            ("may", "mai", "mayo"),
            ("jun", "june", "juni", "juin"),
            ("jul", "july", "juli", "juil"),
            ("aug", "august", "aoû", "aou"),
            ("sep", "sept", "september"),
            ("oct", "october", "okt"),
            ("nov", "november"),
            ("dec", "december", "dez", "déc"),
        ],
        start=1,
    )
    for name in names
}
# Records this parser does not interpret but keeps and writes back verbatim (TRF-2026 §2.4, JaVaFo, Tornelo).
_KEPT_RECORDS = frozenset({"250", "260", "299", "300", "320", "330", "801", "802", "DAT"})
_TRF2026_RECORDS = frozenset(
    {
        "142",
        "152",
        "162",
        "172",
        "182",
        "192",
        "202",
        "212",
        "222",
        "240",
        "250",
        "260",
        "299",
        "300",
        "310",
        "320",
        "330",
        "352",
        "362",
        "801",
        "802",
    }
)
# C0 control characters and DEL, removed from the text read (PostgreSQL refuses NUL; none belongs in a name).
# The same set as players.registry.CONTROL_CHARACTERS, which this pure module may not import (.importlinter);
# tests/events/test_trf_import.py pins the two equal.
CONTROL_CHARACTERS = dict.fromkeys((*range(0x00, 0x20), 0x7F))
_BYE_PLAYER_NAMES = frozenset({"spielfrei", "bye", "free", "frei", "exempt", "libre", "bye, bye", "pab"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DIGITS = re.compile(r"[0-9]+")
_NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]+)?")
FEDERATION_CODE = re.compile(r"[A-Z]{3}")  # FIDE federation codes, NRS record codes


@dataclass
class TrfParseResult(ProblemsBySeverity):
    tournament: TrfTournament
    problems: list[TrfProblem] = field(default_factory=list)
    source_name: str = ""
    encoding: str = "utf-8"
    version: str = "TRF16"  # "TRF-2026" when any TRF-2026-only record is present
    unknown_records: list[TrfRecord] = field(default_factory=list)  # kept, not written back

    @property
    def players(self) -> list[TrfPlayer]:
        return self.tournament.players

    @property
    def ok(self) -> bool:
        """False when the file must be refused."""
        return not self.errors

    def games(self) -> list[TrfGame]:
        return games(self)


# ------------------------------------------------------------------------------------------ small parsers


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if _DIGITS.fullmatch(text) else None


# The largest round an event can have: Event.rounds and Game.round are PositiveSmallIntegerField (0-32767).
MAX_ROUNDS = 32767
MAX_PLAYERS = 9999  # starting ranks have four columns (5-8)


NOT_A_NUMBER = TrfText(gettext_noop("is not a number"))


def _count(text: str, high: int) -> tuple[int | None, TrfText | None]:
    """A count (digits) in 0..``high``: (the number, None) or (None, why not). Never int() of a long text,
    which Python refuses beyond 4,300 digits with its own message."""
    text = text.strip()
    if not _DIGITS.fullmatch(text):
        return None, NOT_A_NUMBER
    if len(text.lstrip("0")) > len(str(high)) or int(text) > high:
        return None, TrfText(gettext_noop("is outside 0-%(high)s"), (("high", high),))
    return int(text), None


def _shown(text: str) -> str:
    """A value quoted in a problem: at most 20 characters of it (a hostile one may have millions)."""
    text = text.strip()
    return repr(text) if len(text) <= 20 else f"{text[:20]!r}... ({len(text):,} characters)"


def _number(text: str) -> float | None:
    text = text.strip()
    return float(text.replace(",", ".")) if _NUMBER.fullmatch(text) else None


def _date(year: int, month: int, day: int) -> dt.date | None:
    if not 1800 <= year <= 2200:  # keeps date arithmetic (round-date windows) far from date.min/max
        return None
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _full_year(yy: int, near: dt.date | None) -> int:
    if near is None:
        return 2000 + yy if yy < 70 else 1900 + yy
    return min((century + yy for century in (1900, 2000, 2100)), key=lambda year: abs(year - near.year))


def _date_candidates(text: str, near: dt.date | None = None) -> list[dt.date]:
    """Every reading of a date as written in real TRF files, most likely first.

    ``YYYY/MM/DD``, ``YYYY-MM-DD``, ``1969.12.06``, ``DD.MM.YYYY``, ``24/09/2010``, ``28. 07. 2005``,
    ``May 29, 2020``, ``29 May 2020``, ``YY.MM.DD`` (ICU, TRF 132) and Swiss-Manager's ``YY.DD.MM``.
    """
    text = re.sub(r"\s*([./-])\s*", r"\1", text.strip().lower()).strip(".")
    found: list[dt.date | None] = []
    if m := re.fullmatch(r"(\d{4})[./-](\d{1,2})[./-](\d{1,2})", text):
        found.append(_date(int(m[1]), int(m[2]), int(m[3])))
    elif m := re.fullmatch(r"(\d{1,2})[./-](\d{1,2})[./-](\d{4})", text):
        a, b, year = int(m[1]), int(m[2]), int(m[3])
        found += [_date(year, b, a), _date(year, a, b)]
    elif m := re.fullmatch(r"(\d{2})[./-](\d{2})[./-](\d{2})", text):
        a, b, c = int(m[1]), int(m[2]), int(m[3])
        found += [
            _date(_full_year(a, near), b, c),
            _date(_full_year(c, near), b, a),
            _date(_full_year(a, near), c, b),
            _date(_full_year(c, near), a, b),
        ]
    elif m := re.fullmatch(r"(\d{4})(\d{2})(\d{2})", text):
        found.append(_date(int(m[1]), int(m[2]), int(m[3])))
    elif m := re.fullmatch(r"([^\W\d_]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text):
        if month := _MONTHS.get(m[1]):
            found.append(_date(int(m[3]), month, int(m[2])))
    elif (m := re.fullmatch(r"(\d{1,2})\.?\s*([^\W\d_]+)\.?,?\s+(\d{4})", text)) and (month := _MONTHS.get(m[2])):
        found.append(_date(int(m[3]), month, int(m[1])))
    unique: list[dt.date] = []
    for date in found:
        if date is not None and date not in unique:
            unique.append(date)
    return unique


def _birth(text: str) -> tuple[dt.date | None, int | None, bool]:
    """(birth date, birth year, understood). ``1987/00/00`` and ``1978`` give the year only."""
    text = text.strip().strip(".").strip()
    if not text or set(text) <= set("0/.- "):
        return None, None, True
    if m := re.fullmatch(r"(\d{4})(?:\s*[./-]\s*(\d{1,2})\s*[./-]\s*(\d{1,2}))?", text):
        year = int(m[1])
        if year == 0:
            return None, None, True
        date = _date(year, int(m[2]), int(m[3])) if m[2] else None
        return date, year, bool(date) or not m[2] or int(m[2]) == 0 or int(m[3]) == 0
    if m := re.fullmatch(r"(\d{1,2})\s*[./-]\s*(\d{1,2})\s*[./-]\s*(\d{4})", text):
        date = _date(int(m[3]), int(m[2]), int(m[1]))
        if date:
            return date, date.year, True
    return None, None, False


def _decode(data: bytes | str) -> tuple[str, str]:
    if isinstance(data, str):
        return data.removeprefix("\ufeff"), "str"
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        try:
            return data.decode("utf-8"), "utf-8-sig"
        except UnicodeDecodeError:
            pass
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"  # cp1252 leaves five bytes undefined; latin-1 maps all


def _title(text: str) -> str:
    text = text.strip()
    return _TITLES.get(text.upper(), text.upper())


def _sex(text: str) -> str | None:
    """TRF m/w; Swiss-Manager exports write M/F."""
    text = text.strip().lower()
    return {"": "", "m": "m", "w": "w", "f": "w"}.get(text)


def _fide_id(text: str) -> tuple[str, bool]:
    text = text.strip()
    if not text:
        return "", True
    if _DIGITS.fullmatch(text):
        return ("" if int(text) == 0 else str(int(text))), True
    return "", False


# -------------------------------------------------------------------------------------------------- parser


class _Reader:
    def __init__(self, lines: list[str]):
        self.lines = lines
        self.problems: list[TrfProblem] = []
        self.t = TrfTournament()
        self.unknown: list[TrfRecord] = []
        self.version = "TRF16"
        self.date_texts: dict[str, tuple[str, int]] = {}
        self.round_date_texts: list[tuple[int, str, int, int]] = []  # (round, text, line, column)
        self.teams_013: list[TrfTeam] = []
        self.teams_310: list[TrfTeam] = []
        self.xxr: tuple[int, int] | None = None  # (rounds, line)
        self.r142: tuple[int, int] | None = None
        self.xxs: dict[str, float] = {}
        self.seen_text: dict[str, int] = {}

    # -- problems

    def error(self, line: int, column: int | None, template: str, /, **values: object) -> None:
        text = TrfText(template, tuple(values.items()))
        self.problems.append(TrfProblem(line, column, ERROR, str(text), text))

    def warn(self, line: int, column: int | None, template: str, /, **values: object) -> None:
        text = TrfText(template, tuple(values.items()))
        self.problems.append(TrfProblem(line, column, WARNING, str(text), text))

    # -- records

    def read(self) -> None:
        for number, raw in enumerate(self.lines, start=1):
            line = raw.rstrip()
            if not line.strip() or line.startswith("###"):
                continue
            code = line[:3]
            # A record code is followed by a blank (or nothing): "0123456789..." rulers are not 012 records.
            is_record = len(line) == 3 or (len(line) > 3 and line[3] in " \t")
            try:
                self.read_line(code, line, number, is_record)
            except Exception as exc:  # a bug must not turn a bad upload into a crash; say where it happened
                self.error(
                    number,
                    None,
                    gettext_noop("could not read this line (%(name)s: %(exc)s)"),
                    name=type(exc).__name__,
                    exc=exc,
                )

    def read_line(self, code: str, line: str, number: int, is_record: bool) -> None:
        if not is_record:
            why = TrfText(
                gettext_noop("line too short")
                if len(line) < 3
                else gettext_noop("column 4 must be blank after the record code")
            )
            self.unknown_line(code, line, number, why)
            return
        if code in _TRF2026_RECORDS:
            self.version = "TRF-2026"
        reader = _RECORD_READERS.get(code)
        if reader is None:
            if code in TEXT_RECORDS:
                reader = _Reader.read_text
            elif code in _KEPT_RECORDS or code.startswith("XX"):
                reader = _Reader.read_kept
            elif FEDERATION_CODE.fullmatch(code) and _int(line[4:8]) is not None:
                reader = _Reader.read_national
            else:
                self.unknown_line(code, line, number, TrfText(gettext_noop("unknown record code")))
                return
        # Where each record is (its first line): problems about a header value point there (column 5).
        self.t.record_lines.setdefault(code, number)
        reader(self, code, line, number)

    def clean(self, value: str, number: int, column: int, who: str) -> str:
        """``value`` without control characters (NUL, ESC, ...), with a warning when it had any."""
        cleaned = value.translate(CONTROL_CHARACTERS)
        if cleaned == value:
            return value
        self.warn(
            number,
            column,
            gettext_noop("%(who)s: control characters removed from %(value)s"),
            who=who,
            value=repr(value),
        )
        return cleaned.strip()

    def read_text(self, code: str, line: str, number: int) -> None:
        attribute = TEXT_RECORDS[code]
        value = self.clean(line[4:].strip(), number, 5, f"record {code}")
        if code in self.seen_text:
            if value != getattr(self.t, attribute):
                self.warn(
                    number,
                    1,
                    gettext_noop(
                        "record %(code)s repeated with another value (first on line %(seen_text)s); the "
                        "first one is used"
                    ),
                    code=code,
                    seen_text=self.seen_text[code],
                )
            return
        self.seen_text[code] = number
        setattr(self.t, attribute, value)

    def read_date(self, code: str, line: str, number: int) -> None:
        if code in self.date_texts:
            if line[4:].strip() != self.date_texts[code][0]:
                self.warn(
                    number,
                    1,
                    gettext_noop("record %(code)s repeated with another date; the first one is used"),
                    code=code,
                )
        else:
            self.date_texts[code] = (line[4:].strip(), number)

    def read_deputy(self, code: str, line: str, number: int) -> None:
        value = self.clean(line[4:].strip(), number, 5, f"record {code}")
        if value:
            self.t.deputy_arbiters.append(value)

    def read_rounds(self, code: str, line: str, number: int) -> None:
        """142 (TRF-2026) or XXR (JaVaFo): the number of rounds."""
        rounds, why = _count(line[4:], MAX_ROUNDS)
        if why == NOT_A_NUMBER:
            self.warn(
                number,
                5,
                gettext_noop("record %(code)s: number of rounds %(line)s is not a number"),
                code=code,
                line=_shown(line[4:]),
            )
        elif rounds is None:  # it would not fit the event (Event.rounds)
            self.error(
                number,
                5,
                gettext_noop("record %(code)s: number of rounds %(line)s %(why)s"),
                code=code,
                line=_shown(line[4:]),
                why=why,
            )
        elif code == "142":
            self.r142 = (rounds, number)
        else:
            self.xxr = (rounds, number)

    def read_nrs(self, code: str, line: str, number: int) -> None:
        self.t.nrs_federation = line[4:7].strip()
        self.t.starting_rank_method = line[8:13].strip()

    def read_kept(self, code: str, line: str, number: int) -> None:
        self.t.records.append(TrfRecord(code, line, number))

    def read_ruler(self, code: str, line: str, number: int) -> None:
        pass  # DDD: Swiss-Manager's column ruler (ICU exports), a comment in all but name

    def unknown_line(self, code: str, line: str, number: int, why: TrfText) -> None:
        self.unknown.append(TrfRecord(code, line, number))
        self.warn(number, 1, gettext_noop("%(why)s (%(line)s); line ignored"), why=why, line=repr(line[:12]))

    def read_count(self, code: str, line: str, number: int) -> None:
        text = line[4:].strip()
        if not text:
            return
        m = re.match(r"\d+", text)  # "062 15 (12)": players (rated players)
        if m is None:
            self.warn(
                number, 5, gettext_noop("record %(code)s: %(text)s is not a number"), code=code, text=_shown(text)
            )
            return
        count, why = _count(m[0], MAX_PLAYERS)
        if count is None:  # only compared with the players read: a warning
            self.warn(
                number, 5, gettext_noop("record %(code)s: %(m)s %(why)s; ignored"), code=code, m=_shown(m[0]), why=why
            )
            return
        attribute = {"062": "players_declared", "072": "rated_players_declared", "082": "teams_declared"}[code]
        setattr(self.t, attribute, count)

    def read_round_dates(self, code: str, line: str, number: int) -> None:
        round_number = 1
        while 91 + 10 * (round_number - 1) < len(line):
            start = 91 + 10 * (round_number - 1)
            if round_number > MAX_ROUNDS:
                if line[start:].strip():
                    self.warn(
                        number,
                        start + 1,
                        gettext_noop("record 132: dates beyond round %(MAX_ROUNDS)s, the last; ignored"),
                        MAX_ROUNDS=MAX_ROUNDS,
                    )
                return
            text = line[start : start + 10].strip()
            if text:
                self.round_date_texts.append((round_number, text, number, start + 1))
            round_number += 1

    def read_scoring(self, code: str, line: str, number: int) -> None:
        position = 5  # 0-based index of the first result letter (position 6)
        while position < len(line):
            letter = line[position].upper()
            points_text = line[position + 1 : position + 5]
            if letter.strip():
                points = _number(points_text)
                if letter not in "WDLAPX" or points is None:
                    self.warn(
                        number,
                        position + 1,
                        gettext_noop("record 162: %(line)s is not a result code (W D L A P X) with points"),
                        line=repr(line[position : position + 5]),
                    )
                else:
                    self.t.scoring[letter] = points
            position += 9

    def read_xxs(self, code: str, line: str, number: int) -> None:
        self.t.records.append(TrfRecord(code, line, number))  # kept and written back as well
        for item in line[4:].split():
            key, _, value = item.partition("=")
            points = _number(value)
            if points is None:
                self.warn(number, None, gettext_noop("record XXS: %(item)s is not CODE=POINTS"), item=repr(item))
            else:
                self.xxs[key.upper()] = points

    def read_team_members(self, line: str, number: int, start: int, team: TrfTeam) -> None:
        position = start
        while position < len(line):
            text = line[position : position + 4].strip()
            if text:
                member = _int(text)
                if member is None:
                    self.warn(
                        number,
                        position + 1,
                        gettext_noop("team %(name)s: player %(text)s is not a start rank"),
                        name=repr(team.name),
                        text=repr(text),
                    )
                else:
                    team.members.append(member)
            position += 5

    def read_team_013(self, code: str, line: str, number: int) -> None:
        team = TrfTeam(number=len(self.teams_013) + 1, name=line[4:36].strip(), line=number, record="013")
        self.read_team_members(line, number, 36, team)
        self.teams_013.append(team)

    def read_team_310(self, code: str, line: str, number: int) -> None:
        team_number = _int(line[4:7])
        if team_number is None:
            self.warn(
                number,
                5,
                gettext_noop("record 310: team number %(value)s is not a number; team ignored"),
                value=repr(line[4:7].strip()),
            )
            return
        team = TrfTeam(
            number=team_number,
            name=line[8:40].strip(),
            nickname=line[41:46].strip(),
            strength=_int(line[47:53]),
            match_points=_number(line[54:60]),
            game_points=_number(line[61:67]),
            rank=_int(line[68:71]),
            line=number,
            record="310",
        )
        self.read_team_members(line, number, 73, team)
        self.teams_310.append(team)

    def read_bye(self, code: str, line: str, number: int) -> None:
        kind = line[4:5].upper()
        round_number = _int(line[6:9])
        if kind not in ("F", "H", "Z") or round_number is None:
            self.warn(
                number,
                5,
                gettext_noop(
                    "record 240: expected bye type F/H/Z at column 5 and a round at 7-9, found %(line)s; record ignored"
                ),
                line=repr(line[4:9]),
            )
            return
        bye = TrfBye(kind, round_number, line=number)
        position = 10
        while position < len(line):
            text = line[position : position + 4].strip()
            if text:
                player = _int(text)
                if player is None:
                    self.warn(
                        number,
                        position + 1,
                        gettext_noop("record 240: %(text)s is not a player or team id"),
                        text=repr(text),
                    )
                else:
                    bye.ids.append(player)
            position += 5
        self.t.byes.append(bye)

    def read_national(self, code: str, line: str, number: int) -> None:
        padded = line.ljust(80)
        birth_date, birth_year, understood = _birth(padded[69:79])
        if not understood:
            self.warn(
                number,
                70,
                gettext_noop("national record %(code)s: birth date %(value)s not understood"),
                code=code,
                value=repr(padded[69:79].strip()),
            )
        rating = _int(padded[48:52])
        self.t.national_ratings.append(
            TrfNationalRating(
                federation=code,
                start_rank=int(padded[4:8]),
                sex=padded[9].strip(),
                classification=padded[10:13].strip(),
                name=padded[14:47].strip(),
                rating=rating or None,
                origin=padded[53:56].strip(),
                national_id=padded[57:68].strip(),
                birth_date=birth_date,
                birth_year=birth_year,
                line=number,
            )
        )

    def read_player(self, code: str, line: str, number: int) -> None:
        padded = line.ljust(92)
        start_rank = _int(padded[4:8])
        if start_rank is None or start_rank == 0:
            self.error(
                number,
                5,
                gettext_noop("starting rank %(value)s at columns 5-8 is not a number from 1 to 9999; player ignored"),
                value=repr(padded[4:8].strip()),
            )
            return
        player = TrfPlayer(start_rank=start_rank, line=number)
        sex = _sex(padded[9])
        if sex is None:
            self.warn(
                number,
                10,
                gettext_noop("player %(start_rank)s: sex %(padded)s is not m or w; ignored"),
                start_rank=start_rank,
                padded=repr(padded[9]),
            )
        player.sex = sex or ""
        player.title = _title(padded[10:13])
        if player.title and player.title not in _TITLES.values():
            self.warn(
                number,
                11,
                gettext_noop("player %(start_rank)s: title %(title)s is not a FIDE title"),
                start_rank=start_rank,
                title=repr(player.title),
            )
        player.name = self.clean(padded[14:47].strip(), number, 15, f"player {start_rank}")
        if not player.name:
            self.warn(
                number, 15, gettext_noop("player %(start_rank)s: no name at columns 15-47"), start_rank=start_rank
            )
        rating_text = padded[48:52].strip()
        player.rating = _int(rating_text) or None
        if rating_text and _int(rating_text) is None:
            self.warn(
                number,
                49,
                gettext_noop(
                    "player %(start_rank)s: rating %(rating_text)s at columns 49-52 is not a number; treated as unrated"
                ),
                start_rank=start_rank,
                rating_text=repr(rating_text),
            )
        player.federation = self.clean(padded[53:56].strip(), number, 54, f"player {start_rank}")
        player.fide_id, id_ok = _fide_id(padded[57:68])
        if not id_ok:
            self.warn(
                number,
                58,
                gettext_noop("player %(start_rank)s: FIDE ID %(value)s at columns 58-68 is not a number; ignored"),
                start_rank=start_rank,
                value=repr(padded[57:68].strip()),
            )
        # Birth date 70-79; some writers shift it by one column (echecsjs trf26_team.trf), so read 69-80.
        birth_text = padded[68:80]
        player.birth_date, player.birth_year, understood = _birth(birth_text)
        if not understood:
            self.warn(
                number,
                70,
                gettext_noop("player %(start_rank)s: birth date %(value)s at columns 70-79 not understood; ignored"),
                start_rank=start_rank,
                value=repr(birth_text.strip()),
            )
        elif birth_text.strip() and (padded[68] != " " or padded[79] != " "):
            self.warn(
                number,
                70,
                gettext_noop("player %(start_rank)s: birth date %(value)s is not at columns 70-79"),
                start_rank=start_rank,
                value=repr(birth_text.strip()),
            )
        points_text = padded[80:84].strip()
        player.points = _number(points_text)
        if points_text and player.points is None:
            self.warn(
                number,
                81,
                gettext_noop("player %(start_rank)s: points %(points_text)s at columns 81-84 is not a number"),
                start_rank=start_rank,
                points_text=repr(points_text),
            )
        rank_text = padded[85:89].strip()
        player.rank = _int(rank_text) or None
        if rank_text and _int(rank_text) is None:
            self.warn(
                number,
                86,
                gettext_noop("player %(start_rank)s: rank %(rank_text)s at columns 86-89 is not a number"),
                start_rank=start_rank,
                rank_text=repr(rank_text),
            )
        if padded[89:91].strip():
            self.error(
                number,
                90,
                gettext_noop(
                    "player %(start_rank)s: columns 90-91 must be blank before round 1 at 92, found %(padded)s"
                ),
                start_rank=start_rank,
                padded=repr(padded[89:91]),
            )
        self.read_round_fields(line, padded, number, player)
        self.t.players.append(player)

    def read_round_fields(self, line: str, padded: str, number: int, player: TrfPlayer) -> None:
        """The round fields of ``player``'s line (from column 92, ten columns each) into ``player.rounds``."""
        round_number, rounds, length = 1, player.rounds, len(line)
        while 91 + 10 * (round_number - 1) < length:
            if round_number > MAX_ROUNDS:  # Game.round could not hold it
                self.beyond_last_round(line, number, player.start_rank)
                break
            # The field of nearly every round, "  12 w 1  " (an opponent, w or b, a played game's code, blanks
            # where TRF wants them), taken here at once: a 103,896-game file has 207,792 of them (issue 36).
            # Anything else goes to read_round, whose checks name what is wrong.
            start = 81 + 10 * round_number
            block = padded[start : start + 10]
            opponent_text = block[:4].lstrip()
            if (
                block[4:5] == block[6:7] == block[8:9] == block[9:10] == " "
                and block[5] in _FAST_COLOURS
                and block[7] in _PLAYED_CODES
                and opponent_text.isdigit()
                and opponent_text.isascii()
                and opponent_text.strip("0")
            ):
                rounds.append(TrfRoundEntry(round_number, int(opponent_text), block[5], block[7]))
            else:
                entry = self.read_round(padded, number, player, round_number)
                if entry is not None:
                    rounds.append(entry)
            round_number += 1

    def beyond_last_round(self, line: str, number: int, start_rank: int) -> None:
        """An error at the first round field after round MAX_ROUNDS that is not blank (if any)."""
        rest = line[91 + 10 * MAX_ROUNDS :]
        if rest.strip():
            first = 92 + 10 * MAX_ROUNDS + len(rest) - len(rest.lstrip())
            column = 92 + 10 * ((first - 92) // 10)  # the start of that round's field
            self.error(
                number,
                column,
                gettext_noop(
                    "player %(start_rank)s: round %(value)s is beyond the last round an event can "
                    "have (%(MAX_ROUNDS)s); rounds from column %(column)s not read"
                ),
                start_rank=start_rank,
                value=(column - 92) // 10 + 1,
                MAX_ROUNDS=MAX_ROUNDS,
                column=column,
            )

    def read_round(self, padded: str, number: int, player: TrfPlayer, round_number: int) -> TrfRoundEntry | None:
        start = 91 + 10 * (round_number - 1)  # 0-based index of the opponent field (position 92, 102, ...)
        block = padded[start : start + 10].ljust(10)
        if not block.strip():
            return None  # not in this round at all (team leagues, late entries)
        who = TrfText(
            gettext_noop("player %(rank)s, round %(round)s"), (("rank", player.start_rank), ("round", round_number))
        )
        if block[4] != " " or block[6] != " " or block[8:].strip():
            self.error(
                number,
                start + 1,
                gettext_noop(
                    "%(who)s: field at columns %(value)s-%(value2)s is misaligned: %(block)s "
                    "(expected opponent at %(value3)s-%(value4)s, colour at %(value5)s, result at "
                    "%(value6)s)"
                ),
                who=who,
                value=start + 1,
                value2=start + 10,
                block=repr(block),
                value3=start + 1,
                value4=start + 4,
                value5=start + 6,
                value6=start + 8,
            )
            return None
        opponent_text = block[:4].strip()
        opponent = _int(opponent_text) if opponent_text else 0
        if opponent is None:
            self.error(
                number,
                start + 1,
                gettext_noop(
                    "%(who)s: opponent %(opponent_text)s at columns %(value)s-%(value2)s is not a starting rank"
                ),
                who=who,
                opponent_text=repr(opponent_text),
                value=start + 1,
                value2=start + 4,
            )
            return None
        colour = block[5].lower().strip() or "-"
        if colour not in ("w", "b", "-"):
            self.error(
                number,
                start + 6,
                gettext_noop("%(who)s: colour %(block)s at column %(value)s is not w, b or -"),
                who=who,
                block=repr(block[5]),
                value=start + 6,
            )
            return None
        result = block[7].strip().upper()
        if result not in _RESULT_CODES:
            self.error(
                number,
                start + 8,
                gettext_noop(
                    "%(who)s: result %(block)s at column %(value)s is not a TRF result code (1 = 0 + "
                    "- W D L H F U Z or blank)"
                ),
                who=who,
                block=repr(block[7]),
                value=start + 8,
            )
            return None
        if opponent == 0:
            if colour != "-" and result in GAME_CODES_WITHOUT_OPPONENT:
                # a game was played (colour and result) against nobody named: kept as it is, reported by
                # results_without_opponent, and the event stays a draft until it is entered (issue 15)
                return TrfRoundEntry(round_number, None, colour, result)
            if colour != "-":
                self.warn(
                    number,
                    start + 6,
                    gettext_noop("%(who)s: colour %(colour)s given for a round without opponent; read as -"),
                    who=who,
                    colour=repr(colour),
                )
            return TrfRoundEntry(round_number, None, "-", result)
        if result in _BYE_CODES:
            self.error(
                number,
                start + 8,
                gettext_noop(
                    "%(who)s: result %(result)s is a bye but opponent %(opponent)s is given at "
                    "columns %(value)s-%(value2)s"
                ),
                who=who,
                result=repr(result),
                opponent=opponent,
                value=start + 1,
                value2=start + 4,
            )
            return None
        return TrfRoundEntry(round_number, opponent, colour, result)

    # -- after all lines

    def finish(self) -> None:
        t = self.t
        self.resolve_dates()
        if self.r142 and self.xxr and self.r142[0] != self.xxr[0]:
            self.warn(
                self.xxr[1],
                5,
                gettext_noop("XXR says %(xxr)s rounds, record 142 on line %(r142)s says %(r1422)s; 142 is used"),
                xxr=self.xxr[0],
                r142=self.r142[1],
                r1422=self.r142[0],
            )
        declared = self.r142 or self.xxr
        t.rounds_declared = declared[0] if declared else None
        # TRF-2026 replaces 013 by 310; a file carrying both describes the same teams twice.
        t.teams = self.teams_310 or self.teams_013
        if not t.players:
            self.error(0, None, gettext_noop("no player records (001): nothing to import"))
            return
        self.check_players()
        self.check_pairings()
        self.check_points()
        self.check_references()

    def resolve_dates(self) -> None:
        t = self.t
        start_text, start_line = self.date_texts.get("042", ("", 0))
        end_text, end_line = self.date_texts.get("052", ("", 0))
        starts, ends = _date_candidates(start_text), _date_candidates(end_text)
        # Read 042 and 052 together: "11.09.26"-"12.04.01" is YY.MM.DD because the other reading ends first.
        pairs = [(s, e) for s in starts for e in ends if s <= e]
        if pairs:
            t.start_date, t.end_date = pairs[0]
        else:
            t.start_date = starts[0] if starts else None
            t.end_date = ends[0] if ends else None
            if t.start_date and t.end_date:
                self.warn(
                    end_line,
                    5,
                    gettext_noop("end date %(end_date)s is before the start date %(start_date)s"),
                    end_date=t.end_date,
                    start_date=t.start_date,
                )
        for code, text, line_number, value in (
            ("042", start_text, start_line, t.start_date),
            ("052", end_text, end_line, t.end_date),
        ):
            if text and value is None:
                self.warn(
                    line_number,
                    5,
                    gettext_noop("record %(code)s: date %(text)s not understood"),
                    code=code,
                    text=repr(text),
                )
            if not text:
                if code == "042":
                    self.warn(0, None, gettext_noop("no start date (record %(code)s)"), code=code)
                else:
                    self.warn(0, None, gettext_noop("no end date (record %(code)s)"), code=code)
        if not t.name:
            self.warn(0, None, gettext_noop("no tournament name (record 012)"))
        for round_number, text, line_number, column in self.round_date_texts:
            candidates = _date_candidates(text, near=t.start_date or t.end_date)
            week = dt.timedelta(days=7)
            last = t.end_date or t.start_date
            low = t.start_date - week if t.start_date else dt.date.min
            high = last + week if last else dt.date.max
            inside = [c for c in candidates if low <= c <= high]
            chosen = (inside or candidates)[0] if inside or candidates else None
            if chosen is None:
                self.warn(
                    line_number,
                    column,
                    gettext_noop("record 132: round %(round_number)s date %(text)s not understood"),
                    round_number=round_number,
                    text=repr(text),
                )
            elif not inside and (t.start_date or t.end_date):
                self.warn(
                    line_number,
                    column,
                    gettext_noop("record 132: round %(round_number)s date %(chosen)s is outside the tournament dates"),
                    round_number=round_number,
                    chosen=chosen,
                )
            while len(t.round_dates) < round_number:
                t.round_dates.append(None)
            t.round_dates[round_number - 1] = chosen
        while t.round_dates and t.round_dates[-1] is None:
            t.round_dates.pop()

    def check_players(self) -> None:
        t = self.t
        seen: dict[int, TrfPlayer] = {}
        unique: list[TrfPlayer] = []
        for player in t.players:
            if player.start_rank in seen:
                self.error(
                    player.line,
                    5,
                    gettext_noop("starting rank %(start_rank)s used twice (also on line %(line)s)"),
                    start_rank=player.start_rank,
                    line=seen[player.start_rank].line,
                )
                continue
            seen[player.start_rank] = player
            unique.append(player)
            if player.name.casefold() in _BYE_PLAYER_NAMES and not any(e.opponent for e in player.rounds):
                # Swiss-Manager 2005 lists the bye as a player ("spielfrei", Karl-Mala file): not a person.
                self.warn(
                    player.line,
                    15,
                    gettext_noop("player %(start_rank)s %(name)s looks like a stand-in for the bye, not a real player"),
                    start_rank=player.start_rank,
                    name=repr(player.name),
                )
        t.players = sorted(unique, key=lambda p: p.start_rank)
        if t.players_declared is not None and t.players_declared != len(t.players):
            self.warn(
                0,
                None,
                gettext_noop("record 062 declares %(players_declared)s players, the file has %(players_count)s"),
                players_declared=t.players_declared,
                players_count=len(t.players),
            )
        played = t.rounds_played
        if t.rounds_declared is not None and t.rounds_declared < played:
            self.warn(
                0,
                None,
                gettext_noop("%(rounds_declared)s rounds declared (142/XXR) but results reach round %(played)s"),
                rounds_declared=t.rounds_declared,
                played=played,
            )
        pab_by_round: dict[int, list[int]] = {}
        for player in t.players:
            for entry in player.rounds:
                if entry.result == "U":
                    pab_by_round.setdefault(entry.round, []).append(player.start_rank)
        for round_number, pab in sorted(pab_by_round.items()):
            if len(pab) > 1:
                self.warn(
                    0,
                    None,
                    gettext_noop(
                        "round %(round_number)s: %(pab_count)s pairing-allocated byes (U) for players "
                        "%(pab)s; TRF allows at most one per round"
                    ),
                    round_number=round_number,
                    pab_count=len(pab),
                    pab=pab,
                )

    def check_pairings(self) -> None:
        by_rank = {p.start_rank: p for p in self.t.players}
        entries = _entries(self.t.players)
        # Each line pairs its player once a round: (round, player, opponent), the opponent None for nobody.
        pairings: list[Pairing] = []
        disputed: set[int] = set()  # rounds with a pairing the opponent's line does not make
        for player in self.t.players:
            for entry in player.rounds:
                if entry.opponent is None:
                    pairings.append((entry.round, player.start_rank, None))
                    continue
                column = 92 + 10 * (entry.round - 1)
                who = _round_player(entry.round, player)
                opponent = by_rank.get(entry.opponent)
                if entry.opponent == player.start_rank:
                    self.error(player.line, column, gettext_noop("%(who)s is paired with himself"), who=who)
                    pairings.append((entry.round, player.start_rank, None))
                    continue
                if opponent is None:
                    self.error(
                        player.line,
                        column,
                        gettext_noop(
                            "%(who)s is paired with %(opponent)s, but there is no player with starting rank "
                            "%(opponent2)s"
                        ),
                        who=who,
                        opponent=entry.opponent,
                        opponent2=entry.opponent,
                    )
                    pairings.append((entry.round, player.start_rank, None))
                    continue
                other = entries.get((entry.opponent, entry.round))
                if other is None or other.opponent != player.start_rank:
                    # a pairing the opponent's line does not make (a blank round there pairs them with nobody):
                    # the opponent is paired twice in this round, which check_paired_twice reports
                    pairings.append((entry.round, player.start_rank, entry.opponent))
                    if other is None:
                        pairings.append((entry.round, entry.opponent, None))
                    disputed.add(entry.round)
                    continue
                if player.start_rank > entry.opponent:
                    continue  # each pairing checked once, from the lower starting rank
                pairings.append((entry.round, player.start_rank, entry.opponent))
                if entry.colour == other.colour and entry.colour in ("w", "b"):
                    self.error(
                        player.line,
                        column + 5,
                        gettext_noop("%(who)s and player %(opponent)s (line %(line)s) both have %(value)s"),
                        who=who,
                        opponent=entry.opponent,
                        line=opponent.line,
                        value=_colour_name(entry.colour),
                    )
                elif (entry.colour == "-") != (other.colour == "-") and (entry.result in "1=0WDL" and entry.result):
                    self.warn(
                        player.line,
                        column + 5,
                        gettext_noop("%(who)s vs %(opponent)s: only one side gives a colour; the other is inferred"),
                        who=who,
                        opponent=entry.opponent,
                    )
                elif entry.colour == other.colour == "-" and entry.result and entry.result in "1=0":
                    self.warn(
                        player.line,
                        column + 5,
                        gettext_noop(
                            "%(who)s vs %(opponent)s: played game without colours; the lower starting rank is "
                            "taken as white"
                        ),
                        who=who,
                        opponent=entry.opponent,
                    )
                if not (_MIRROR.get(entry.result) == other.result or (entry.result == other.result == "-")):
                    self.error(
                        player.line,
                        column + 7,
                        gettext_noop(
                            "%(who)s has result %(value)s against %(opponent)s, who has %(value2)s (line "
                            "%(line)s): impossible combination"
                        ),
                        who=who,
                        value=repr(entry.result or "blank"),
                        opponent=entry.opponent,
                        value2=repr(other.result or "blank"),
                        line=opponent.line,
                    )
                elif entry.result == "":
                    self.warn(
                        player.line,
                        column + 7,
                        gettext_noop("%(who)s vs %(opponent)s: no result (not played yet)"),
                        who=who,
                        opponent=entry.opponent,
                    )
        if disputed:  # elsewhere every line's pairing is its opponent's too: nobody can be paired twice
            self.check_paired_twice([p for p in pairings if p[0] in disputed], entries, by_rank)

    def check_paired_twice(
        self,
        pairings: list[Pairing],
        entries: dict[tuple[int, int], TrfRoundEntry],
        by_rank: dict[int, TrfPlayer],
    ) -> None:
        """A player plays once per round (``events.rounds.paired_twice``). ``pairings``: each line's pairing of its
        player in each round, once (the opponent it names, else nobody: a bye, a result without opponent, an
        opponent not in the file or the player himself), and nobody for a blank round another line names. A line
        naming a player whose own line pairs them otherwise pairs that player twice: an error on the naming line,
        saying what the other line shows."""
        for (round_, rank), positions in paired_twice(pairings).items():
            own = entries.get((rank, round_))
            for position in positions:
                _, white, black = pairings[position]
                claimant = black if white == rank else white
                if claimant is None or (own is not None and own.opponent == claimant):
                    continue  # the pairing the player's own line makes
                self.not_mutual(by_rank[claimant], entries[(claimant, round_)], by_rank[rank], own)

    def not_mutual(
        self, player: TrfPlayer, entry: TrfRoundEntry, opponent: TrfPlayer, other: TrfRoundEntry | None
    ) -> None:
        """``player``'s line names ``opponent`` in ``entry``'s round; ``opponent``'s line (``other``) does not."""
        column = 92 + 10 * (entry.round - 1)
        who = _round_player(entry.round, player)
        if other is None:
            said = TrfText(gettext_noop("nothing"))
        elif other.opponent is None:
            said = TrfText(gettext_noop("a bye"))
        else:
            said = TrfText(gettext_noop("opponent %(rank)s"), (("rank", other.opponent),))
        self.error(
            player.line,
            column,
            gettext_noop(
                "%(who)s says he played %(opponent)s (%(value)s) as %(value2)s, but line %(line)s "
                "of player %(opponent2)s shows %(said)s in round %(round)s"
            ),
            who=who,
            opponent=entry.opponent,
            value=opponent.name or TrfText(gettext_noop("no name")),
            value2=_colour_name(entry.colour),
            line=opponent.line,
            opponent2=entry.opponent,
            said=said,
            round=entry.round,
        )

    def points_table(self) -> dict[str, float]:
        """Points per kind of result under 162 (TRF-2026) and XXS (JaVaFo), defaults from TRF §2.2."""
        s = self.t.scoring
        win, draw, loss, absent = s.get("W", 1.0), s.get("D", 0.5), s.get("L", 0.0), s.get("A", 0.0)
        table = {
            "win": win,
            "draw": draw,
            "loss": loss,
            "forfeit_win": win,
            "forfeit_loss": absent,
            "fpb": win,
            "hpb": draw,
            "zpb": absent,
            "pab": s.get("P", win),
        }
        x = self.xxs
        for key, names in (
            ("win", ("W", "WW", "BW")),
            ("draw", ("D", "WD", "BD")),
            ("loss", ("WL", "BL")),
            ("forfeit_win", ("FW",)),
            ("forfeit_loss", ("FL",)),
            ("fpb", ("FPB",)),
            ("hpb", ("HPB",)),
            ("zpb", ("ZPB",)),
            ("pab", ("PAB",)),
        ):
            for name in names:
                if name in x:
                    table[key] = x[name]
        return table

    def check_points(self) -> None:
        table = self.points_table()
        kind_of = {
            "1": "win",
            "W": "win",
            "=": "draw",
            "D": "draw",
            "0": "loss",
            "L": "loss",
            "+": "forfeit_win",
            "-": "forfeit_loss",
        }
        bye_kind = {HALF_POINT_BYE: "hpb", FULL_POINT_BYE: "fpb", PAIRING_BYE: "pab", ZERO_POINT_BYE: "zpb"}
        for player in self.t.players:
            if player.points is None:
                continue
            total = 0.0
            blank_byes: list[int] = []
            for entry in player.rounds:
                if entry.is_bye:
                    total += table[bye_kind[_BYE_RESULT[entry.result]]]
                    if entry.result == "":
                        blank_byes.append(entry.round)
                elif entry.result:  # a game's result, even one without its opponent, counts as the file meant it
                    total += table[kind_of[entry.result]]
            if abs(total - player.points) < 1e-6:
                continue
            difference = player.points - total
            if blank_byes and 0 < difference <= table["fpb"] * len(blank_byes) + 1e-6:
                # Swiss-Manager exports a requested half-point bye (sometimes a full one) as a blank result,
                # which TRF defines as a zero-point bye, yet counts it in the points column (data/trf/README).
                rounds = ", ".join(str(r) for r in blank_byes)
                self.warn(
                    player.line,
                    81,
                    gettext_noop(
                        "player %(start_rank)s: points column %(points)s counts %(difference)s point(s) "
                        "for the blank-result bye in round %(rounds)s, but TRF reads a blank result as a "
                        "zero-point bye (results total %(total)s); the points column is not used and "
                        "those rounds are not rated either way"
                    ),
                    start_rank=player.start_rank,
                    points=f"{player.points:g}",
                    difference=f"{difference:g}",
                    rounds=rounds,
                    total=f"{total:g}",
                )
            else:
                self.warn(
                    player.line,
                    81,
                    gettext_noop(
                        "player %(start_rank)s: points column %(points)s disagrees with the results, "
                        "which total %(total)s"
                    ),
                    start_rank=player.start_rank,
                    points=f"{player.points:g}",
                    total=f"{total:g}",
                )

    def check_references(self) -> None:
        t = self.t
        ranks = {p.start_rank for p in t.players}
        for team in t.teams:
            missing = [m for m in team.members if m not in ranks]
            if missing:
                self.warn(
                    team.line,
                    None,
                    gettext_noop("team %(name)s: players %(missing)s are not in the player list"),
                    name=repr(team.name),
                    missing=missing,
                )
        for record in t.national_ratings:
            if record.start_rank not in ranks:
                self.warn(
                    record.line,
                    5,
                    gettext_noop(
                        "national record %(federation)s: starting rank %(start_rank)s is not in the player list"
                    ),
                    federation=record.federation,
                    start_rank=record.start_rank,
                )


# Record code -> its reader; text records (TEXT_RECORDS), kept ones, XX.. and NRS records are told apart by
# _Reader.read_line. One dictionary look-up per line: parsing stays linear in the file size.
_RECORD_READERS: dict[str, Callable[[_Reader, str, str, int], None]] = {
    "001": _Reader.read_player,
    "013": _Reader.read_team_013,
    "042": _Reader.read_date,
    "052": _Reader.read_date,
    "062": _Reader.read_count,
    "072": _Reader.read_count,
    "082": _Reader.read_count,
    "112": _Reader.read_deputy,
    "132": _Reader.read_round_dates,
    "142": _Reader.read_rounds,
    "162": _Reader.read_scoring,
    "172": _Reader.read_nrs,
    "240": _Reader.read_bye,
    "310": _Reader.read_team_310,
    "XXR": _Reader.read_rounds,
    "XXS": _Reader.read_xxs,
    "DDD": _Reader.read_ruler,
}


def _entries(players: list[TrfPlayer]) -> dict[tuple[int, int], TrfRoundEntry]:
    """(start rank, round) -> the player's entry, built once: an opponent's round is a look-up, not a scan."""
    found: dict[tuple[int, int], TrfRoundEntry] = {}
    for player in players:
        for entry in player.rounds:
            found.setdefault((player.start_rank, entry.round), entry)
    return found


def _round_player(round_: int, player: TrfPlayer) -> TrfText:
    """The subject of a pairing problem: "round 3: player 12 (García, Ana)"."""
    name = player.name or TrfText(gettext_noop("no name"))
    return TrfText(
        gettext_noop("round %(round)s: player %(rank)s (%(name)s)"),
        (("round", round_), ("rank", player.start_rank), ("name", name)),
    )


def _colour_name(colour: str) -> TrfText:
    return TrfText({"w": gettext_noop("white"), "b": gettext_noop("black")}.get(colour, gettext_noop("no colour")))


def parse_trf(data: bytes | str, *, source_name: str = "") -> TrfParseResult:
    """Read a TRF file (TRF16, TRF06 or TRF-2026; any encoding, any line ending). Never raises on bad input.

    The result carries everything that could be read plus ``problems``; any problem of severity ``error``
    means the file must be refused (``result.ok`` is False).
    """
    text, encoding = _decode(data)
    reader = _Reader(_LINE_BREAK.split(text))
    reader.read()
    try:
        reader.finish()
    except Exception as exc:  # see _Reader.read: report, never crash an upload
        reader.error(0, None, f"could not check the file ({type(exc).__name__}: {exc})")
    problems = sorted(reader.problems, key=lambda p: (p.line, p.column or 0))
    return TrfParseResult(
        tournament=reader.t,
        problems=problems,
        source_name=source_name,
        encoding=encoding,
        version=reader.version,
        unknown_records=reader.unknown,
    )


# --------------------------------------------------------------------------------------------------- games


def games(result: TrfParseResult | TrfTournament) -> list[TrfGame]:
    """Every pairing once, ordered by round then the lower starting rank; byes have ``black`` None.

    Pairings the parser reported as errors (not mutual, impossible results) and a game's result written
    without its opponent (``results_without_opponent``) are left out.
    """
    tournament = result.tournament if isinstance(result, TrfParseResult) else result
    by_rank = {p.start_rank: p for p in tournament.players}
    entries = _entries(tournament.players)
    found: list[TrfGame] = []
    for player in tournament.players:
        for entry in player.rounds:
            if entry.opponent is None:
                if entry.is_bye:  # a game's result without its opponent is no game at all
                    found.append(TrfGame(entry.round, player.start_rank, None, _BYE_RESULT[entry.result]))
                continue
            if entry.opponent <= player.start_rank and entry.opponent in by_rank:
                continue  # taken from the opponent's (lower starting rank) line
            other = entries.get((entry.opponent, entry.round))
            if other is None or other.opponent != player.start_rank:
                continue
            game = _game(entry, other, player.start_rank, entry.opponent)
            if game is not None:
                found.append(game)
    found.sort(key=lambda g: (g.round, g.black is None, min(g.white, g.black or g.white)))
    return found


@dataclass(frozen=True)
class TrfResultWithoutOpponent:
    """A round where a player's line gives the result of a game (1 = 0 W D L) but no opponent: ``line`` and
    ``column`` are the opponent field's (92 + 10(r-1)), where the starting rank is missing."""

    round: int
    start_rank: int
    name: str
    result: str  # the TRF code as read (upper-cased)
    line: int
    column: int

    @property
    def result_column(self) -> int:
        return self.column + 7


def results_without_opponent(result: TrfParseResult | TrfTournament) -> list[TrfResultWithoutOpponent]:
    """Every round entry with a game's result and no opponent (empty or ``0000``), by round then starting rank.

    TRF §2.2: 1 = 0 are the results of a played game and W D L of a game that lasted less than one move: with a
    colour (w / b) both need the opponent (92-95); a round without one and without a colour is a bye (H F U Z,
    blank; + - = 1 0 as TRF16 programs wrote them). ``games`` makes no game of these entries."""
    tournament = result.tournament if isinstance(result, TrfParseResult) else result
    found = [
        TrfResultWithoutOpponent(
            entry.round, player.start_rank, player.name, entry.result, player.line, 92 + 10 * (entry.round - 1)
        )
        for player in tournament.players
        for entry in player.rounds
        if entry.without_opponent
    ]
    return sorted(found, key=lambda missing: (missing.round, missing.start_rank))


def _game(a: TrfRoundEntry, b: TrfRoundEntry, rank_a: int, rank_b: int) -> TrfGame | None:
    """The game between a (lower starting rank) and b, white first; None when the two lines disagree."""
    if a.colour == b.colour and a.colour != "-":
        return None
    a_is_white = a.colour == "w" or (a.colour == "-" and b.colour != "w")
    white, black = (a, b) if a_is_white else (b, a)
    white_rank, black_rank = (rank_a, rank_b) if a_is_white else (rank_b, rank_a)
    if white.result in ("+", "-"):
        code = {("+", "-"): WHITE_FORFEIT_WIN, ("-", "+"): BLACK_FORFEIT_WIN, ("-", "-"): DOUBLE_FORFEIT}.get(
            (white.result, black.result)
        )
    elif _MIRROR.get(white.result) == black.result:
        code = _GAME_RESULT[white.result]
    else:
        code = None
    return None if code is None else TrfGame(a.round, white_rank, black_rank, code)
