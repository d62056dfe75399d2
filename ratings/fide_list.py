"""FIDE rating-list downloads (https://ratings.fide.com/download_lists.phtml): streaming reader and writers.

Pure: no Django. ``iter_fide_list`` reads every layout FIDE has published (reference/formats.md §4): the
combined TXT with the FOA column (``players_list_foa.txt``), the combined "legacy" TXT without it, the
single-type standard / rapid / blitz TXT lists, the pre-2012 single list and the XML. Column offsets come
from the header line (the header tokens start where the fields start), never from constants alone. It
streams: one row at a time, memory independent of the file size (the combined list has 1.9 million lines).
Problems in a line (a bad ID, a rating that is not a number) are reported and never stop the file; only
an unrecognisable header does (``FideListFormatError``). ``events``/``players`` services persist the rows.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import lzma
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import IO, Any, Literal
from xml.etree.ElementTree import ParseError, XMLParser
from xml.sax.saxutils import escape

import numpy as np

# the rating types as the pure engine spells them (the same as events.models.RatingType: a test checks)
from ratings.engine.difference_cap import RATING_TYPES

__all__ = [
    "RATING_TYPES",
    "FideListRating",
    "FideListRow",
    "FideListColumns",
    "FideListProblem",
    "FideListFormatError",
    "FideListLayout",
    "FideListReader",
    "iter_fide_list",
    "fide_list_source",
    "write_fide_list_txt",
    "write_fide_list_xml",
    "write_fide_list_csv",
    "COMBINED_FOA_HEADER",
    "COMBINED_LEGACY_HEADER",
]

_TYPE_PREFIX = {"standard": "S", "rapid": "R", "blitz": "B"}

# Exact header of players_list_foa.txt (formats.md §4.2); every token starts where its field starts.
COMBINED_FOA_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit"
    "           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
COMBINED_LEGACY_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit"
    "           SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
_SINGLE_HEADER_HEAD = COMBINED_FOA_HEADER[:113]  # single-type lists share the columns up to FOA [109,113)

# Header token (lower case) -> field key. Keys "single.*" are the one rating of a single-type list.
_LABELS = {
    "id": "id",
    "name": "name",
    "fed": "federation",
    "sex": "sex",
    "tit": "title",
    "titl": "title",
    "wtit": "women_title",
    "otit": "other_titles",
    "foa": "foa_title",
    "srtng": "standard.rating",
    "sgm": "standard.games",
    "sk": "standard.k",
    "rrtng": "rapid.rating",
    "rgm": "rapid.games",
    "rk": "rapid.k",
    "brtng": "blitz.rating",
    "bgm": "blitz.games",
    "bk": "blitz.k",
    "rtng": "single.rating",
    "gms": "single.games",
    "games": "single.games",
    "game": "single.games",
    "k": "single.k",
    "b-day": "birth_year",
    "born": "birth_year",
    "flag": "flag",
}
_IGNORED_LABELS = {"number"}  # "ID Number" is one field
_MONTH_TOKEN = re.compile(r"[a-z]{3}\d{2}")  # the rating column of a single-type list is headed by its month
_FOA_CODES = ("AWGM", "AWIM", "AWFM", "AWCM", "AGM", "AIM", "AFM", "ACM")
_TITLES = {  # pre-2012 lists used one-letter titles
    "g": "GM",
    "m": "IM",
    "f": "FM",
    "c": "CM",
    "wg": "WGM",
    "wm": "WIM",
    "wf": "WFM",
    "wc": "WCM",
}
_XML_FIELDS = (
    "fideid",
    "name",
    "country",
    "sex",
    "title",
    "w_title",
    "o_title",
    "foa_title",
    "rating",
    "games",
    "k",
    "rapid_rating",
    "rapid_games",
    "rapid_k",
    "blitz_rating",
    "blitz_games",
    "blitz_k",
    "birthday",
    "flag",
)
_XML_PREFIX = {"standard": "", "rapid": "rapid_", "blitz": "blitz_"}
_MAX_KEPT_PROBLEMS = 10_000  # FideListReader.problems keeps this many; the count goes on


# --------------------------------------------------------------------------------------------------- data


@dataclass(slots=True)  # not frozen: a frozen __init__ costs 3x, and there are 2 million rows
class FideListRating:
    """One rating type of one row: rating (None: unrated, FIDE writes 0), games in the period, K."""

    rating: int | None
    games: int = 0
    k_factor: int | None = None


@dataclass(slots=True)
class FideListRow:
    fide_id: int
    name: str  # as FIDE writes it: "Surname, Given names" (mononyms have no comma)
    surname: str
    given_names: str
    federation: str
    sex: str = ""  # "M" / "F"
    title: str = ""
    women_title: str = ""
    other_titles: tuple[str, ...] = ()
    foa_title: str = ""
    standard: FideListRating | None = None  # None: the file has no such rating type
    rapid: FideListRating | None = None
    blitz: FideListRating | None = None
    birth_year: int | None = None
    flag: str = ""  # "i" inactive, "w" woman, "wi" both
    line: int = field(default=0, compare=False)

    @property
    def inactive(self) -> bool:
        return "i" in self.flag.lower()

    @property
    def woman(self) -> bool:
        return "w" in self.flag.lower()

    def rating(self, rating_type: str) -> FideListRating | None:
        return getattr(self, rating_type)


@dataclass(frozen=True)
class FideListProblem:
    """``line``: 1-based line of a TXT file, or the 1-based number of the ``<player>`` element in an XML."""

    line: int
    column: int | None
    severity: Literal["error", "warning"]
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f", column {self.column}" if self.column else "")
        return f"{where}: {self.severity}: {self.message}"


_TEXT_KEYS = (
    "name",
    "surname",
    "given_names",
    "federation",
    "sex",
    "title",
    "women_title",
    "other_titles",
    "foa_title",
    "flag",
)


@dataclass
class FideListColumns:
    """Consecutive rows of a list as NumPy columns (``FideListReader.column_batches``), in file order.

    Numbers (0 where the row has none: FIDE writes 0 for "none") and ``lines``, ``fide_ids``, ``inactive``
    hold every row. ``text`` holds the text fields (``other_titles`` joined by commas) as ASCII bytes
    (NumPy ``S`` arrays) of the rows read by columns; a row read line by line (see ``column_batches``) has
    b"" there and its ``FideListRow`` in ``rows`` (position in the batch -> row), and ``plain`` is False.
    """

    lines: np.ndarray  # int64
    fide_ids: np.ndarray  # int64
    ratings: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]  # type -> (rating, games, k), int64 each
    birth_years: np.ndarray  # int64
    inactive: np.ndarray  # bool
    plain: np.ndarray  # bool
    text: dict[str, np.ndarray]  # key of _TEXT_KEYS -> S array
    rows: dict[int, FideListRow] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.fide_ids)

    @classmethod
    def from_rows(cls, rows: list[FideListRow], rating_types: Iterable[str]) -> FideListColumns:
        """Columns of rows read one by one (all kept in ``rows``)."""
        n = len(rows)

        def numbers(values: Iterable[int | None]) -> np.ndarray:
            return np.fromiter((value or 0 for value in values), dtype=np.int64, count=n)

        ratings = {}
        for rating_type in rating_types:
            each = [row.rating(rating_type) for row in rows]
            ratings[rating_type] = (
                numbers(r.rating if r else None for r in each),
                numbers(r.games if r else None for r in each),
                numbers(r.k_factor if r else None for r in each),
            )
        return cls(
            lines=numbers(row.line for row in rows),
            fide_ids=numbers(row.fide_id for row in rows),
            ratings=ratings,
            birth_years=numbers(row.birth_year for row in rows),
            inactive=np.fromiter((row.inactive for row in rows), dtype=bool, count=n),
            plain=np.zeros(n, dtype=bool),
            text={key: np.zeros(n, dtype="S1") for key in _TEXT_KEYS},
            rows=dict(enumerate(rows)),
        )

    @classmethod
    def concatenate(cls, parts: list[FideListColumns]) -> FideListColumns:
        if len(parts) == 1:
            return parts[0]
        rows: dict[int, FideListRow] = {}
        offset = 0
        for part in parts:
            rows.update((offset + i, row) for i, row in part.rows.items())
            offset += len(part)
        first = parts[0]
        return cls(
            lines=np.concatenate([p.lines for p in parts]),
            fide_ids=np.concatenate([p.fide_ids for p in parts]),
            ratings={
                t: tuple(np.concatenate([p.ratings[t][i] for p in parts]) for i in range(3))  # type: ignore[misc]
                for t in first.ratings
            },
            birth_years=np.concatenate([p.birth_years for p in parts]),
            inactive=np.concatenate([p.inactive for p in parts]),
            plain=np.concatenate([p.plain for p in parts]),
            text={key: np.concatenate([p.text[key] for p in parts]) for key in _TEXT_KEYS},
            rows=rows,
        )

    def row(self, i: int) -> FideListRow:
        """The row at position ``i``, as ``iter(FideListReader)`` gives it."""
        if i in self.rows:
            return self.rows[i]
        text = {key: values[i].decode("ascii") for key, values in self.text.items()}
        ratings = {
            t: FideListRating(int(r[i]) or None, int(g[i]), int(k[i]) or None) for t, (r, g, k) in self.ratings.items()
        }
        other = text["other_titles"]
        return FideListRow(
            int(self.fide_ids[i]),
            text["name"],
            text["surname"],
            text["given_names"],
            text["federation"],
            text["sex"],
            text["title"],
            text["women_title"],
            tuple(other.split(",")) if other else (),
            text["foa_title"],
            ratings.get("standard"),
            ratings.get("rapid"),
            ratings.get("blitz"),
            int(self.birth_years[i]) or None,
            text["flag"],
            int(self.lines[i]),
        )


class FideListFormatError(ValueError):
    """The file is not a FIDE rating list this reader knows (unrecognisable header / root element)."""


@dataclass(frozen=True)
class FideListLayout:
    kind: Literal["txt", "xml"]
    rating_types: tuple[str, ...]
    fields: dict[str, tuple[int, int | None]] = field(default_factory=dict)  # TXT: key -> [start, end)
    header: str = ""

    @property
    def has_foa(self) -> bool:
        return "foa_title" in self.fields


# Plausible values, so that what is read always fits the database (IDs bigint, ratings smallint):
# anything else is a typing or layout error in the line and is reported, not stored.
_MAX_FIDE_ID = 10**15 - 1  # the ID field is 15 characters wide
_LIMITS = {
    "rating": (1, 9999),
    "games": (0, 9999),
    "k": (1, 999),
    "birth_year": (1800, 2200),
    "birthday": (1800, 2200),
}


_MAX_DIGITS = 18  # more digits than any field holds: out of range without int() (which refuses > 4300 digits)


def _bounded(value: str) -> int | None:
    """``value`` as a number when it has at most ``_MAX_DIGITS`` ASCII digits, else None (check isdigit first)."""
    return int(value) if len(value.lstrip("0")) <= _MAX_DIGITS else None


def _number_problem(key: str, value: str) -> str | None:
    """Why ``value`` is not acceptable for ``key`` (a field key or XML tag), or None when it is."""
    if not (value.isdigit() and value.isascii()):
        return "is not a number"
    number = _bounded(value)
    low, high = _LIMITS[key if key in _LIMITS else re.split(r"[._]", key)[-1]]  # "rapid.k", "blitz_rating"
    if number is not None and (number == 0 or low <= number <= high):  # FIDE writes 0 for "none"
        return None
    return f"is outside {low}-{high}"


def _fide_id_problem(text: str) -> str | None:
    if not (text.isdigit() and text.isascii()):
        return "is not a number"
    number = _bounded(text)
    if number is None or not 0 < number <= _MAX_FIDE_ID:
        return f"is outside 1-{_MAX_FIDE_ID}"
    return None


def _shown(text: str) -> str:
    """A value as quoted in a problem: at most 20 characters of it (a hostile value may have millions)."""
    return repr(text) if len(text) <= 20 else f"{text[:20]!r}... ({len(text):,} characters)"


def _split_name(name: str) -> tuple[str, str]:
    surname, comma, given = name.partition(",")
    return surname.strip(), given.strip() if comma else ""


def _title(text: str) -> str:
    return _TITLES.get(text.lower(), text) if text else ""


# -------------------------------------------------------------------------------------------- TXT header


_LONGEST_LABEL = max(5, *map(len, _LABELS))  # a month token (oct26) has 5 characters


def _is_label(text: str) -> bool:
    return text in _LABELS or _MONTH_TOKEN.fullmatch(text) is not None


def _split_token(token: str) -> list[str] | None:
    """``titlfed`` -> [``titl``, ``fed``]: the pre-2012 header glues some labels together.

    The longest label first at each place, as long as the rest can still be split: decided from the end of
    the token backwards (each place tries at most ``_LONGEST_LABEL`` cuts), so time is linear in the token
    and there is no recursion, however long a hostile header token is.
    """
    if token in _LABELS or token in _IGNORED_LABELS or _MONTH_TOKEN.fullmatch(token):
        return [token]
    size = len(token)
    # cut[i]: the length of the label starting at i such that token[i + length:] splits too; 0: none
    cut = [0] * (size + 1)
    for start in range(size - 1, -1, -1):
        for length in range(min(_LONGEST_LABEL, size - start), 0, -1):
            end = start + length
            if (end == size or cut[end]) and _is_label(token[start:end]):
                cut[start] = length
                break
    if not cut[0]:
        return None
    parts, start = [], 0
    while start < size:
        parts.append(token[start : start + cut[start]])
        start += cut[start]
    return parts


def _txt_layout(header: str, rating_type: str | None) -> FideListLayout:
    starts: list[tuple[int, str]] = []
    unknown: list[str] = []
    for match in re.finditer(r"\S+", header):
        parts = _split_token(match.group().lower())
        if parts is None:
            unknown.append(match.group())
            continue
        position = match.start()
        for part in parts:
            if part not in _IGNORED_LABELS:
                key = "single.rating" if _MONTH_TOKEN.fullmatch(part) else _LABELS[part]
                starts.append((position, key))
            position += len(part)
    keys = [key for _, key in starts]
    has_rating = any(key.endswith(".rating") for key in keys)
    if "id" not in keys or "name" not in keys or not has_rating or len(set(keys)) != len(keys) or unknown:
        why = f"unknown column(s) {unknown}" if unknown else "expected ID, Name and a rating column"
        raise FideListFormatError(f"line 1: not a FIDE rating-list header ({why}): {header[:120]!r}")
    typed = [key.split(".")[0] for key in keys if key.endswith(".rating") and not key.startswith("single.")]
    single = "single.rating" in keys or (len(typed) == 1 and any(k.startswith("single.") for k in keys))
    # A single-type list: FIDE heads its rating with the month (OCT26), so the caller names the type;
    # a header written by write_fide_list_txt without a date says it (SRtng / RRtng / BRtng).
    single_type = rating_type or (typed[0] if len(typed) == 1 else "standard")
    fields: dict[str, tuple[int, int | None]] = {}
    for index, (start, key) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else None
        if single and "." in key:
            key = f"{single_type}.{key.split('.', 1)[1]}"
        fields[key] = (start, end)
    types = tuple(t for t in RATING_TYPES if f"{t}.rating" in fields)
    return FideListLayout("txt", types, fields, header)


# -------------------------------------------------------------------------------------------- the reader


def _chunks(stream: Any) -> Iterator[str | bytes]:
    """Text or bytes pieces of a binary/text file object, or of an iterable of lines."""
    if hasattr(stream, "read"):
        while chunk := stream.read(1 << 16):
            yield chunk
        return
    for item in stream:
        if isinstance(item, bytes | bytearray):
            yield bytes(item) if item.endswith(b"\n") else bytes(item) + b"\n"
        else:
            yield item if item.endswith("\n") else item + "\n"


def _decode_line(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


_MAX_LINE_CHARS = 1 << 20  # a line of FIDE's TXT lists has about 165 characters


def _too_long(number: int) -> str:
    return f"line {number}: longer than {_MAX_LINE_CHARS:,} characters; not a FIDE list, rest of file not read"


_XML_ENCODING = re.compile(rb"""\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']{0,40})""")


def _xml_encoding_refusal(first: str | bytes, exc: Exception) -> FideListFormatError:
    """expat reads single-byte encodings only and knows no others: the declaration named something else."""
    found = _XML_ENCODING.match(first) if isinstance(first, bytes) else None
    declared = found[1].decode("ascii", "replace") if found else "?"
    return FideListFormatError(f"XML declaration: encoding {declared!r} cannot be read ({exc}); nothing imported")


class _XmlTarget:
    """ElementTree parser target: one dict per <player>, no tree kept, so memory stays bounded."""

    def __init__(self) -> None:
        self.players: list[dict[str, str]] = []
        self.current: dict[str, str] | None = None
        self.text: list[str] = []  # pieces joined at the end tag: a long text stays linear
        self.root: str | None = None

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if self.root is None:
            self.root = tag
        elif tag == "player":
            self.current = {}
        self.text = []

    def end(self, tag: str) -> None:
        current = self.current
        if current is not None:
            if tag == "player":
                self.players.append(current)
                self.current = None
            else:
                current[tag] = "".join(self.text).strip()

    def data(self, data: str) -> None:
        self.text.append(data)

    def close(self) -> None:
        return None


class _FieldSpans:
    """The field slices of a TXT layout's lines. FIDE writes OTit wider than its field at times
    ("SI,FI,LSI,SLI,NAAFM": 163 characters); the fields after it then move right by the overflow."""

    def __init__(self, fields: dict[str, tuple[int, int | None]]) -> None:
        self.fields = fields
        self.otit_start, self.otit_end = fields.get("other_titles", (0, None))
        self.otit_width = (
            self.otit_end - self.otit_start if "other_titles" in fields and self.otit_end is not None else None
        )
        self.next_is_foa = "foa_title" in fields and fields["foa_title"][0] == self.otit_end
        self.by_shift: dict[int, tuple[tuple[str, int, int | None], ...]] = {}

    def spans(self, shift: int) -> tuple[tuple[str, int, int | None], ...]:
        """(field, start, end) of every field, those after OTit moved right by ``shift``."""
        if shift not in self.by_shift:
            otit_end = self.otit_end
            moved = []
            for key, (start, end) in self.fields.items():
                if otit_end is not None and start >= otit_end:
                    start += shift
                if otit_end is not None and end is not None and end >= otit_end:
                    end += shift
                moved.append((key, start, end))
            self.by_shift[shift] = tuple(moved)
        return self.by_shift[shift]

    def overflow(self, line: str) -> int:
        """Columns by which the line's OTit overflows its field."""
        token = line[self.otit_start :].split(" ", 1)[0]
        if self.otit_width is None or len(token) <= self.otit_width:
            return 0
        if self.next_is_foa:
            titles = next((token[: -len(c)] for c in _FOA_CODES if token.endswith(c)), token)
        else:
            titles = token.rstrip("0123456789")
        return max(0, len(titles) - self.otit_width)


# ------------------------------------------------------------------------------------ TXT read by columns

_BLOCK_BYTES = 1 << 22  # bytes read at a time by column_batches (more than _MAX_LINE_CHARS: a line fits)
_MAX_COLUMN_WIDTH = 512  # longer lines (FIDE's have about 165 characters) are read line by line
_SPACE, _COMMA = 32, 44


class _ByteLines:
    """The lines of a byte stream as offsets into blocks of about ``_BLOCK_BYTES``: the lines, numbers and
    too-long refusals of ``FideListReader._lines``, without a Python object per line."""

    def __init__(self, first: bytes, chunks: Iterator[str | bytes]) -> None:
        self.chunks = chain([first], chunks)
        self.data = np.zeros(0, dtype=np.uint8)
        self.starts = self.ends = np.zeros(0, dtype=np.int64)
        self.at = 0  # next line of the block
        self.tail = b""  # bytes after the block's last newline
        self.counted = 0  # lines in the blocks read so far
        self.eof = False

    def _refill(self) -> None:
        pieces, size = [self.tail], len(self.tail)
        while size < _BLOCK_BYTES and not self.eof:
            chunk = next(self.chunks, None)
            if chunk is None:
                self.eof = True
            else:
                pieces.append(chunk)  # type: ignore[arg-type]
                size += len(chunk)
        data = np.frombuffer(b"".join(pieces), dtype=np.uint8)
        newlines = np.flatnonzero(data == 10)
        starts = np.concatenate([[0], newlines + 1]).astype(np.int64)
        ends = np.concatenate([newlines, [len(data)]]).astype(np.int64)
        if self.eof:
            if starts[-1] == len(data):  # nothing after the last newline
                starts, ends = starts[:-1], ends[:-1]
            self.tail = b""
        else:
            self.tail = data[starts[-1] :].tobytes()
            starts, ends = starts[:-1], ends[:-1]
        too_long = np.flatnonzero(ends - starts > _MAX_LINE_CHARS)
        if too_long.size:
            raise FideListFormatError(_too_long(self.counted + int(too_long[0]) + 1))
        if len(self.tail) > _MAX_LINE_CHARS:
            raise FideListFormatError(_too_long(self.counted + len(starts) + 1))
        self.data, self.starts, self.ends, self.at = data, starts, ends, 0
        self.counted += len(starts)

    def take(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
        """Up to ``count`` lines: (the block's bytes, their starts, their ends before the newline, the number of
        the first); None at the end of the file."""
        while self.at >= len(self.starts):
            if self.eof:
                return None
            self._refill()
        stop = min(self.at + count, len(self.starts))
        first_number = self.counted - len(self.starts) + self.at + 1
        taken = (self.data, self.starts[self.at : stop], self.ends[self.at : stop], first_number)
        self.at = stop
        return taken


def _field_digits(sub: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, empty, clean) of a number field in each row: ``clean`` when it is spaces around one run of
    ASCII digits (at most ``_MAX_DIGITS``, a conservative bound) or spaces only (``empty``)."""
    n, width = sub.shape
    beyond = np.zeros(n, dtype=bool)
    if width > _MAX_DIGITS:
        beyond = (sub[:, _MAX_DIGITS:] != _SPACE).any(axis=1)
        sub, width = sub[:, :_MAX_DIGITS], _MAX_DIGITS
    if not width:  # the field starts past every line's end: empty
        return np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool), np.ones(n, dtype=bool)
    digit = (sub >= 48) & (sub <= 57)
    count = digit.sum(axis=1)
    empty = count == 0
    first = digit.argmax(axis=1)
    last = width - 1 - digit[:, ::-1].argmax(axis=1)
    clean = (digit | (sub == _SPACE)).all(axis=1) & ~beyond & (empty | (last - first + 1 == count))
    value = np.zeros(n, dtype=np.int64)
    for j in range(width):
        value = np.where(digit[:, j], value * 10 + (sub[:, j].astype(np.int64) - 48), value)
    return value, empty & ~beyond, clean


def _stripped(sub: np.ndarray, low: np.ndarray | None = None, high: np.ndarray | None = None) -> np.ndarray:
    """Each row's bytes in columns [low, high) of ``sub`` (default: all), spaces stripped, as an S array."""
    n, width = sub.shape
    if not width:
        return np.zeros(n, dtype="S1")
    columns = np.arange(width)
    inside = sub != _SPACE
    if low is not None:
        inside &= columns >= low[:, None]
    if high is not None:
        inside &= columns < high[:, None]
    found = inside.any(axis=1)
    first = np.where(found, inside.argmax(axis=1), 0)
    length = np.where(found, width - inside[:, ::-1].argmax(axis=1) - first, 0)
    widest = max(int(length.max()) if n else 0, 1)
    if not first.any():  # left-aligned already (FIDE's fields are): no gather
        out = np.zeros((n, widest), dtype=np.uint8)
        out[:, : min(widest, width)] = sub[:, :widest]
    else:
        out = sub[np.arange(n)[:, None], np.minimum(first[:, None] + np.arange(widest), width - 1)]
    out[np.arange(widest) >= length[:, None]] = 0
    return np.ascontiguousarray(out).view(f"S{widest}").reshape(n)


def _mapped(values: np.ndarray, function: Callable[[str], str]) -> np.ndarray:
    """``function`` of each value of an S array, computed once per distinct value."""
    if not len(values):
        return values
    distinct, inverse = np.unique(values, return_inverse=True)
    # latin-1: any byte (rows not read by columns hold anything; their values are dropped)
    return np.array([function(value.decode("latin-1")).encode("latin-1") for value in distinct.tolist()])[
        inverse.reshape(-1)
    ]


def _joined_titles(other: str) -> str:
    return ",".join(t.strip() for t in other.split(",") if t.strip())


class _ColumnParser:
    """The rows of lines of printable ASCII cut into columns (see FideListReader.column_batches): which
    lines are blank, which are read here, and their values; every other line is for the per-line parser."""

    def __init__(self, layout: FideListLayout) -> None:
        self.layout = layout
        self.fields = layout.fields
        self.spans = _FieldSpans(layout.fields)
        self.number_keys = tuple(
            (key, *_LIMITS[key.split(".")[-1]])
            for key in (
                *(f"{t}.{part}" for t in layout.rating_types for part in ("rating", "games", "k")),
                "birth_year",
            )
            if key in self.fields
        )

    def lines(self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lines as rows of a 2-D byte array, padded with spaces to the longest (a slice past a line's
        end is empty, a slice of padding strips to empty: the same field values), and their kind: 0 blank,
        1 read here, 2 for the per-line parser."""
        length = ends - starts
        n = len(starts)
        raw = int(length[0]) if n else 0
        span = int(starts[0]) + n * (raw + 1) if n else 0
        if (
            n
            and 0 < raw <= _MAX_COLUMN_WIDTH
            and span <= len(data)
            and (length == raw).all()
            and (starts[1:] == ends[:-1] + 1).all()
        ):
            # lines of one length one after the other (FIDE's file): a 2-D view of the bytes, no copy
            table = data[starts[0] : span].reshape(n, raw + 1)[:, :raw]
            carriage = table[:, -1] == 13
            if carriage.all() or not carriage.any():
                table = table[:, : raw - 1] if carriage[0] else table
                printable = ((table >= 32) & (table <= 126)).all(axis=1)
                blank = printable & (table == _SPACE).all(axis=1)
                return table, np.where(blank, 0, np.where(printable, 1, 2))
        if len(data):
            carriage = (data[np.maximum(ends - 1, 0)] == 13) & (length > 0)
            length = length - carriage  # rstrip("\r\n") (a second \r is not printable: per line)
        width = int(min(length.max(), _MAX_COLUMN_WIDTH)) if len(length) else 0
        at = starts[:, None] + np.arange(width)
        inside = np.arange(width) < length[:, None]
        table = np.where(inside, data[np.minimum(at, max(len(data) - 1, 0))] if len(data) else _SPACE, _SPACE)
        table = table.astype(np.uint8)
        printable = ((table >= 32) & (table <= 126)).all(axis=1) & (length <= width)
        blank = printable & (table == _SPACE).all(axis=1)
        return table, np.where(blank, 0, np.where(printable, 1, 2))

    def field(self, table: np.ndarray, key: str) -> np.ndarray:
        start, end = self.fields[key]
        return table[:, start:end]

    def parse(self, table: np.ndarray, kind: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
        """The values of the lines of kind 1 (others: anything), and the kind with the lines that would raise
        a problem or whose OTit may overflow moved to 2."""
        width = table.shape[1]
        spans = self.spans
        clean = kind == 1
        if spans.otit_width is not None and spans.otit_end is not None and spans.otit_end < width:
            start, end = spans.otit_start, spans.otit_end
            clean &= ~((table[:, start:end] != _SPACE).all(axis=1) & (table[:, end] != _SPACE))
        fide_ids, empty, ok = _field_digits(self.field(table, "id"))
        clean &= ok & ~empty & (fide_ids > 0) & (fide_ids <= _MAX_FIDE_ID)
        values: dict[str, Any] = {"fide_ids": fide_ids}
        for key, low, high in self.number_keys:
            number, empty, ok = _field_digits(self.field(table, key))
            clean &= ok & (empty | (number == 0) | ((number >= low) & (number <= high)))
            values[key] = number
        name = _stripped(self.field(table, "name"))
        clean &= name != b""
        text = {"name": name}
        name_bytes = name.view(np.uint8).reshape(len(name), -1)
        comma = name_bytes == _COMMA
        has_comma = comma.any(axis=1)
        at = np.where(has_comma, comma.argmax(axis=1), name_bytes.shape[1])
        text["surname"] = _stripped(name_bytes, high=at)
        text["given_names"] = np.where(has_comma, _stripped(name_bytes, low=at + 1), b"")
        for key in ("federation", "sex", "title", "women_title", "other_titles", "foa_title", "flag"):
            text[key] = _stripped(self.field(table, key)) if key in self.fields else np.zeros(len(table), dtype="S1")
        text["title"] = _mapped(text["title"], _title)
        text["other_titles"] = _mapped(text["other_titles"], _joined_titles)
        flag = text["flag"].view(np.uint8).reshape(len(table), -1)
        values["inactive"] = ((flag == ord("i")) | (flag == ord("I"))).any(axis=1)
        values["text"] = text
        return np.where(clean, 1, np.where(kind == 0, 0, 2)), values


def _rating_part(rating_type: str, attribute: str) -> Callable[[FideListRow], int | None]:
    """row -> its ``attribute`` (rating, games, k_factor) of ``rating_type``."""
    return lambda row: getattr(row.rating(rating_type), attribute)


def _txt_columns(
    layout: FideListLayout, lines: np.ndarray, values: dict[str, Any], rows: dict[int, FideListRow], count: int
) -> FideListColumns:
    """Columns of ``count`` rows: those at ``lines`` of the per-line parser (``rows``, by position) and
    the rest from ``values`` (already the rows read by columns, in order)."""
    plain = np.ones(count, dtype=bool)
    plain[list(rows)] = False
    fallback = [rows[i] for i in sorted(rows)]
    at = np.flatnonzero(~plain)

    def column(values_of_plain: np.ndarray, of_row: Callable[[FideListRow], int | None]) -> np.ndarray:
        out = np.zeros(count, dtype=np.int64)
        out[plain] = values_of_plain
        out[at] = [of_row(row) or 0 for row in fallback]
        return out

    ratings = {}
    for t in layout.rating_types:
        parts = []
        for part, attribute in (("rating", "rating"), ("games", "games"), ("k", "k_factor")):
            key = f"{t}.{part}"
            plain_values = values[key] if key in values else np.zeros(int(plain.sum()), dtype=np.int64)
            parts.append(column(plain_values, _rating_part(t, attribute)))
        ratings[t] = (parts[0], parts[1], parts[2])
    inactive = np.zeros(count, dtype=bool)
    inactive[plain] = values["inactive"]
    inactive[at] = [row.inactive for row in fallback]
    text = {}
    for key, plain_text in values["text"].items():
        out = np.zeros(count, dtype=plain_text.dtype)
        out[plain] = plain_text
        text[key] = out
    return FideListColumns(
        lines=lines,
        fide_ids=column(values["fide_ids"], lambda row: row.fide_id),
        ratings=ratings,
        birth_years=column(
            values["birth_year"] if "birth_year" in values else np.zeros(int(plain.sum()), np.int64),
            lambda row: row.birth_year,
        ),
        inactive=inactive,
        plain=plain,
        text=text,
        rows={int(i): row for i, row in zip(at.tolist(), fallback, strict=True)},
    )


class FideListReader:
    """Iterate a FIDE list: ``for row in FideListReader(stream): ...``; then ``.problems``, ``.layout``.

    ``stream``: a binary or text file object, or an iterable of lines (str or bytes). ``rating_type``
    names the rating of a single-type list (FIDE heads it with the month, e.g. ``OCT26``; default
    standard). ``on_problem`` receives every problem as it is found; ``problems`` keeps the first 10,000
    (``problem_count`` counts all).
    """

    def __init__(
        self,
        stream: IO[bytes] | IO[str] | Iterable[str] | Iterable[bytes],
        *,
        rating_type: str | None = None,
        on_problem: Callable[[FideListProblem], None] | None = None,
    ):
        if rating_type is not None and rating_type not in RATING_TYPES:
            raise ValueError(f"rating_type must be one of {RATING_TYPES}, not {rating_type!r}")
        self.stream = stream
        self.rating_type = rating_type
        self.on_problem = on_problem
        self.problems: list[FideListProblem] = []
        self.problem_count = 0
        self.layout: FideListLayout | None = None

    def problem(self, line: int, column: int | None, severity: str, message: str) -> None:
        problem = FideListProblem(line, column, severity, message)  # type: ignore[arg-type]
        self.problem_count += 1
        if len(self.problems) < _MAX_KEPT_PROBLEMS:
            self.problems.append(problem)
        if self.on_problem is not None:
            self.on_problem(problem)

    def __iter__(self) -> Iterator[FideListRow]:
        first, chunks, is_xml = self._open()
        if is_xml:
            yield from self._iter_xml(first, chunks)
        else:
            yield from self._iter_txt(first, chunks)

    def column_batches(self, size: int) -> Iterator[FideListColumns]:
        """The rows of ``iter(self)``, ``size`` at a time (the last batch may be shorter), as columns.

        The same rows, the same problems in the same order, and a problem of a line is reported when the
        batch holding its row (or the next row) is read, as when ``size`` rows are taken from ``iter(self)``
        at a time. A refusal of the whole file (``FideListFormatError``) may come a batch earlier.

        A TXT list read as bytes is cut into columns with NumPy: the lines of printable ASCII that raise no
        problem and whose OTit cannot overflow are read as a whole (each field a slice of a 2-D array of
        bytes); every other line (non-ASCII, control characters, an OTit overflow, a bad number, no name)
        goes through the same per-line parser as ``iter(self)``, and its row is kept in ``rows``. XML lists
        and text streams are read row by row and given as columns.
        """
        if size < 1:
            raise ValueError("column_batches: size must be at least 1")
        first, chunks, is_xml = self._open()
        if is_xml or not isinstance(first, bytes):
            rows = self._iter_xml(first, chunks) if is_xml else self._iter_txt(first, chunks)
            while batch := list(islice(rows, size)):
                yield FideListColumns.from_rows(batch, RATING_TYPES)  # 0 where a row has no such rating
            return
        yield from self._txt_column_batches(first, chunks, size)

    def _open(self) -> tuple[Any, Iterator[str | bytes], bool]:
        """The file's first piece (leading blank lines kept, a byte-order mark dropped), the rest, and
        whether it is XML."""
        chunks = _chunks(self.stream)
        leading: list[Any] = []  # leading blank lines keep their numbers (joined once: linear)
        for chunk in chunks:
            leading.append(chunk)
            stripped = (
                chunk.lstrip(b"\xef\xbb\xbf \t\r\n") if isinstance(chunk, bytes) else chunk.lstrip("\ufeff \t\r\n")
            )
            if stripped:
                break
        else:
            raise FideListFormatError("the file is empty")
        first: Any = leading[0][:0].join(leading)
        if isinstance(first, bytes):
            first = first.removeprefix(b"\xef\xbb\xbf")
            is_xml = first.lstrip().startswith(b"<")
        else:
            first = first.removeprefix("\ufeff")
            is_xml = first.lstrip().startswith("<")
        return first, chunks, is_xml

    # -- TXT

    def _lines(self, first: str | bytes, chunks: Iterator[str | bytes]) -> Iterator[str]:
        """The file's lines, decoded. A line longer than ``_MAX_LINE_CHARS`` ends the file (a FIDE line has
        about 165): the pieces of an unfinished line are kept apart and joined once, so time stays linear."""
        newline: Any = b"\n" if isinstance(first, bytes) else "\n"
        empty: Any = newline[:0]
        pending: list[Any] = []  # pieces of the line not ended yet
        pending_size = number = 0
        for chunk in chain([first], chunks):
            *ended, rest = chunk.split(newline)
            for piece in ended:
                if pending:
                    piece = empty.join([*pending, piece])
                    pending, pending_size = [], 0
                number += 1
                if len(piece) > _MAX_LINE_CHARS:
                    raise FideListFormatError(_too_long(number))
                yield _decode_line(piece) if isinstance(piece, bytes) else piece
            if rest:
                pending.append(rest)
                pending_size += len(rest)
                if pending_size > _MAX_LINE_CHARS:
                    raise FideListFormatError(_too_long(number + 1))
        if pending:
            tail = empty.join(pending)
            yield _decode_line(tail) if isinstance(tail, bytes) else tail

    def _iter_txt(self, first: str | bytes, chunks: Iterator[str | bytes]) -> Iterator[FideListRow]:
        lines = self._lines(first, chunks)
        number = 0
        for raw in lines:
            number += 1
            header = raw.rstrip("\r\n")
            if header.strip():
                break
        else:
            raise FideListFormatError("the file has no header line")
        self.layout = layout = _txt_layout(header.rstrip(), self.rating_type)
        parse = self._line_parser(layout)
        for raw in lines:
            number += 1
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            row = parse(line, number)
            if row is not None:
                yield row

    def _txt_column_batches(self, first: bytes, chunks: Iterator[str | bytes], size: int) -> Iterator[FideListColumns]:
        source = _ByteLines(first, chunks)
        while True:
            taken = source.take(1)
            if taken is None:
                raise FideListFormatError("the file has no header line")
            data, starts, ends, _ = taken
            header = _decode_line(data[starts[0] : ends[0]].tobytes()).rstrip("\r\n")
            if header.strip():
                break
        self.layout = layout = _txt_layout(header.rstrip(), self.rating_type)
        parse = self._line_parser(layout)
        columns = _ColumnParser(layout)
        parts: list[FideListColumns] = []
        count = 0
        while True:
            taken = source.take(size - count)  # a line gives at most one row: never more than the batch
            if taken is None:
                break
            data, starts, ends, first_number = taken
            table, kind = columns.lines(data, starts, ends)
            kind, values = columns.parse(table, kind)
            keep = kind == 1
            rows: dict[int, FideListRow] = {}
            for i in np.flatnonzero(kind == 2).tolist():  # in line order: problems come in reading order
                line = _decode_line(data[starts[i] : ends[i]].tobytes()).rstrip("\r\n")
                if line.strip() and (row := parse(line, first_number + i)) is not None:
                    rows[i] = row
                    keep[i] = True
            row_lines = np.flatnonzero(keep)
            plain = kind[row_lines] == 1
            selected = {key: value[kind == 1] for key, value in values.items() if key != "text"}
            selected["text"] = {key: value[kind == 1] for key, value in values["text"].items()}
            at = np.searchsorted(row_lines, list(rows))
            part = _txt_columns(
                layout,
                row_lines.astype(np.int64) + first_number,
                selected,
                dict(zip(at.tolist(), rows.values(), strict=True)),
                len(row_lines),
            )
            assert part.plain.sum() == plain.sum()
            if len(part):
                parts.append(part)
                count += len(part)
            if count == size:
                yield FideListColumns.concatenate(parts)
                parts, count = [], 0
        if parts:
            yield FideListColumns.concatenate(parts)

    def _line_parser(self, layout: FideListLayout) -> Callable[[str, int], FideListRow | None]:
        fields = layout.fields
        field_spans = _FieldSpans(fields)
        spans, overflow, otit_start = field_spans.spans, field_spans.overflow, field_spans.otit_start
        rating_types = layout.rating_types
        name_column = fields["name"][0] + 1
        problem = self.problem

        def bad_number(line_number: int, key: str, value: str, shift: int, why: str) -> None:
            column = next(start for k, start, _ in spans(shift) if k == key) + 1
            what = key.replace(".k", " K").replace(".", " ").replace("_", " ")
            problem(line_number, column, "warning", f"{what} {_shown(value)} {why}; ignored")

        number_keys = (  # in column order, so that problems come out in reading order
            *(f"{t}.{part}" for t in rating_types for part in ("rating", "games", "k")),
            "birth_year",
        )
        number_limits = tuple((key, *_LIMITS[re.split(r"[.]", key)[-1]]) for key in number_keys)
        rating_keys = tuple((t, f"{t}.rating", f"{t}.games", f"{t}.k") for t in rating_types)
        has_otit = field_spans.otit_width is not None

        def parse(line: str, line_number: int) -> FideListRow | None:
            shift = overflow(line) if has_otit and line[otit_start : otit_start + 1] not in ("", " ") else 0
            v = {key: line[start:end].strip() for key, start, end in spans(shift)}
            id_text = v["id"]
            if why := _fide_id_problem(id_text):
                problem(line_number, 1, "error", f"FIDE ID {_shown(id_text)} {why}; row skipped")
                return None
            numbers: dict[str, int | None] = {}
            for key, low, high in number_limits:
                value = v.get(key, "")
                number = _bounded(value) if value.isdigit() and value.isascii() else None
                if number is not None and (low <= number <= high or number == 0):
                    numbers[key] = number
                else:
                    numbers[key] = None
                    if value:
                        bad_number(line_number, key, value, shift, _number_problem(key, value) or "")
            ratings = {
                t: FideListRating(numbers[r] or None, numbers[g] or 0, numbers[k] or None) for t, r, g, k in rating_keys
            }
            name = v["name"]
            if not name:
                problem(line_number, name_column, "warning", "no name")
            surname, given = _split_name(name)
            other = v.get("other_titles", "")
            return FideListRow(
                int(id_text),
                name,
                surname,
                given,
                v.get("federation", ""),
                v.get("sex", ""),
                _title(v.get("title", "")),
                v.get("women_title", ""),
                tuple(t.strip() for t in other.split(",") if t.strip()) if other else (),
                v.get("foa_title", ""),
                ratings.get("standard"),
                ratings.get("rapid"),
                ratings.get("blitz"),
                numbers["birth_year"] or None,
                v.get("flag", ""),
                line_number,
            )

        return parse

    # -- XML

    def _iter_xml(self, first: str | bytes, chunks: Iterator[str | bytes]) -> Iterator[FideListRow]:
        target = _XmlTarget()
        parser = XMLParser(target=target)
        count = 0
        self.layout = None
        pending = [first]
        try:
            while True:
                for chunk in pending:
                    parser.feed(chunk)
                if target.root is not None and target.root != "playerslist":
                    raise FideListFormatError(f"XML root element is <{target.root}>, expected <playerslist>")
                for player in target.players:
                    count += 1
                    if self.layout is None:
                        self.layout = self._xml_layout(player)
                    row = self._xml_row(player, count)
                    if row is not None:
                        yield row
                target.players.clear()
                following = next(chunks, None)
                if following is None:
                    break
                pending = [following]
            parser.close()
        except FideListFormatError:
            raise
        except (LookupError, ValueError) as exc:  # an unknown (LookupError) or multi-byte (ValueError) encoding
            raise _xml_encoding_refusal(first, exc) from None
        except ParseError as exc:
            if count == 0 and not target.players:
                raise FideListFormatError(f"not a FIDE XML list: {exc}") from exc
            self.problem(count + 1, None, "error", f"XML broken after player {count}: {exc}; rest of file skipped")
        for player in target.players:  # anything completed before close()
            count += 1
            row = self._xml_row(player, count)
            if row is not None:
                yield row
        if self.layout is None:
            self.layout = FideListLayout("xml", ())

    def _xml_layout(self, player: dict[str, str]) -> FideListLayout:
        combined = "rapid_rating" in player or "blitz_rating" in player
        types = RATING_TYPES if combined else (self.rating_type or "standard",)
        return FideListLayout("xml", types)

    def _xml_row(self, player: dict[str, str], count: int) -> FideListRow | None:
        id_text = player.get("fideid", "")
        if why := _fide_id_problem(id_text):
            self.problem(count, None, "error", f"player {count}: fideid {_shown(id_text)} {why}; skipped")
            return None
        # A single-type XML list has rating/games/k only; the combined one adds rapid_* and blitz_*.
        if "rapid_rating" in player or "blitz_rating" in player:
            sources = [(t, _XML_PREFIX[t]) for t in RATING_TYPES if f"{_XML_PREFIX[t]}rating" in player]
        else:
            sources = [(self.rating_type or "standard", "")] if "rating" in player else []
        numbers: dict[str, int | None] = {}
        for tag in (
            *(f"{prefix}{part}" for _, prefix in sources for part in ("rating", "games", "k")),
            "birthday",
        ):
            value = player.get(tag, "")
            if not value:
                numbers[tag] = None
            elif why := _number_problem(tag, value):
                numbers[tag] = None
                self.problem(
                    count, None, "warning", f"player {count} ({id_text}): <{tag}> {_shown(value)} {why}; ignored"
                )
            else:
                numbers[tag] = int(value)
        ratings = {
            t: FideListRating(numbers[f"{p}rating"] or None, numbers[f"{p}games"] or 0, numbers[f"{p}k"] or None)
            for t, p in sources
        }
        name = player.get("name", "")
        surname, given = _split_name(name)
        other = player.get("o_title", "")
        return FideListRow(
            fide_id=int(id_text),
            name=name,
            surname=surname,
            given_names=given,
            federation=player.get("country", ""),
            sex=player.get("sex", ""),
            title=_title(player.get("title", "")),
            women_title=player.get("w_title", ""),
            other_titles=tuple(t.strip() for t in other.split(",") if t.strip()) if other else (),
            foa_title=player.get("foa_title", ""),
            birth_year=numbers["birthday"] or None,
            flag=player.get("flag", ""),
            line=count,
            **ratings,  # type: ignore[arg-type]
        )


def iter_fide_list(
    stream: IO[bytes] | IO[str] | Iterable[str] | Iterable[bytes],
    *,
    rating_type: str | None = None,
    on_problem: Callable[[FideListProblem], None] | None = None,
) -> Iterator[FideListRow]:
    """Rows of a FIDE list, one at a time (see ``FideListReader``; use it directly to get ``.problems``).

    Raises ``FideListFormatError`` only when the header (TXT) or the root element (XML) is not recognised.
    """
    return iter(FideListReader(stream, rating_type=rating_type, on_problem=on_problem))


# ------------------------------------------------------------------------------------ the file as downloaded

# What a damaged archive raises while it is opened or read (zipfile lets the codecs' errors through): a bad
# header or CRC (BadZipFile), corrupt deflate/lzma data, an unknown method (NotImplementedError), an
# encrypted member (RuntimeError), offsets past the end (OSError, EOFError), a short structure (struct.error).
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    NotImplementedError,
    RuntimeError,
    OSError,
    EOFError,
    ValueError,
    struct.error,
)


class _LimitedStream:
    """A binary stream read through: at most ``max_bytes`` bytes (then FideListFormatError, having read no
    more than the limit and one chunk), and an archive's damage reported as FideListFormatError naming
    ``where`` (the archive and its member)."""

    def __init__(self, raw: IO[bytes], where: str, max_bytes: int | None) -> None:
        self.raw, self.where, self.max_bytes, self.done = raw, where, max_bytes, 0

    def read(self, size: int = -1) -> bytes:
        if self.max_bytes is not None:
            left = self.max_bytes + 1 - self.done  # one byte more than the limit tells "too large"
            size = left if size < 0 else min(size, left)
        try:
            data = self.raw.read(size)
        except FideListFormatError:
            raise
        except _ARCHIVE_ERRORS as exc:
            raise FideListFormatError(f"{self.where}: damaged archive member ({type(exc).__name__}: {exc})") from None
        self.done += len(data)
        if self.max_bytes is not None and self.done > self.max_bytes:
            raise FideListFormatError(
                f"{self.where}: more than {self.max_bytes:,} bytes; a FIDE list may have at most "
                f"{self.max_bytes:,} bytes (FIDE_LIST_MAX_BYTES); nothing imported"
            )
        return data


def fide_list_source(handle: IO[bytes], name: str, *, max_bytes: int | None = None) -> tuple[str, int, IO[bytes]]:
    """The list in a download as FIDE serves it: ``(source name, size, binary stream)``.

    ``handle``: the downloaded file, seekable; a ZIP must hold exactly one file, whose name becomes the
    source name (``players_list_foa.txt``: it tells a single-type list's type). ``size``: the (declared)
    uncompressed size, for progress. The stream raises ``FideListFormatError`` naming the archive and its
    member when the archive is damaged (when opened or while read: a bad CRC shows at the end), and naming
    the file when it has more than ``max_bytes`` bytes (counted as read, so a ZIP bomb stops there).
    """
    try:
        is_zip = zipfile.is_zipfile(handle)
        handle.seek(0)
        if not is_zip:
            size = handle.seek(0, io.SEEK_END)
            handle.seek(0)
            return name, size, _LimitedStream(handle, name, max_bytes)  # type: ignore[return-value]
        archive = zipfile.ZipFile(handle)
        members = [m for m in archive.infolist() if not m.is_dir()]
    except _ARCHIVE_ERRORS as exc:
        raise FideListFormatError(f"{name}: not a readable ZIP archive ({type(exc).__name__}: {exc})") from None
    if len(members) != 1:
        names = ", ".join(m.filename for m in members) or "nothing"
        raise FideListFormatError(f"{name}: expected one list in the ZIP, found {_shown(names)[1:-1]}")
    member = members[0]
    where = f"{name}: {member.filename}"
    try:
        raw = archive.open(member)
    except _ARCHIVE_ERRORS as exc:
        raise FideListFormatError(f"{where}: damaged archive member ({type(exc).__name__}: {exc})") from None
    return member.filename, member.file_size, _LimitedStream(raw, where, max_bytes)  # type: ignore[return-value]


# -------------------------------------------------------------------------------------------- the writers


def _rating_cells(rating: FideListRating | None) -> tuple[str, str, str]:
    if rating is None:
        return "0", "0", "0"
    return str(rating.rating or 0), str(rating.games or 0), str(rating.k_factor or 0)


def _head_cells(row: FideListRow, foa: bool) -> str:
    # ID [0,15) Name [15,76) Fed [76,80) Sex [80,84) Tit [84,89) WTit [89,94) OTit [94,109) FOA [109,113)
    # (formats.md §4.2). An OTit longer than 15 overflows into FOA, as in FIDE's own file.
    head = (
        f"{row.fide_id:<15}{row.name[:60]:<61}{row.federation[:3]:<4}{row.sex[:3]:<4}{row.title[:4]:<5}"
        f"{row.women_title[:4]:<5}{','.join(row.other_titles):<15}"
    )
    return head + (f"{row.foa_title[:4]:<4}" if foa else "")


def write_fide_list_txt(
    rows: Iterable[FideListRow], rating_type: str | None = None, *, list_date: dt.date | None = None
) -> Iterator[str]:
    """Lines (ending CR LF, as FIDE's files) of a FIDE fixed-width list.

    ``rating_type`` None: the combined list with FOA (``players_list_foa.txt``, 162 columns). A rating
    type: that single-type list (``standard_rating_list.txt`` etc., 136 columns), its rating column headed
    by the month of ``list_date`` (``OCT26``) as FIDE does, or by SRtng/RRtng/BRtng when no date is given
    so that ``iter_fide_list`` knows the type without being told.
    """
    if rating_type is None:
        yield COMBINED_FOA_HEADER + "\r\n"
        for row in rows:
            cells = [_head_cells(row, True)]
            for each in RATING_TYPES:
                rating, games, k = _rating_cells(row.rating(each))
                cells.append(f"{rating:<6}{games:<4}{k:<3}")
            cells.append(f"{row.birth_year or 0:<6}{row.flag[:4]:<4}")
            yield "".join(cells) + "\r\n"
        return
    if rating_type not in RATING_TYPES:
        raise ValueError(f"rating_type must be one of {RATING_TYPES} or None, not {rating_type!r}")
    token = list_date.strftime("%b%y").upper() if list_date else f"{_TYPE_PREFIX[rating_type]}Rtng"
    yield f"{_SINGLE_HEADER_HEAD}{token:<6}Gms K  B-day Flag\r\n"
    for row in rows:
        rating, games, k = _rating_cells(row.rating(rating_type))
        tail = f"{rating:<6}{games:<4}{k:<3}{row.birth_year or 0:<6}{row.flag[:4]:<4}"
        yield f"{_head_cells(row, True)}{tail}\r\n"


def write_fide_list_xml(rows: Iterable[FideListRow], rating_type: str | None = None) -> Iterator[str]:
    """FIDE's XML layout (formats.md §4.4): ``<playerslist>``, no declaration, children in FIDE's order.

    With a ``rating_type``, only ``rating``/``games``/``k`` of that type are written (single-type list).
    """
    if rating_type is not None and rating_type not in RATING_TYPES:
        raise ValueError(f"rating_type must be one of {RATING_TYPES} or None, not {rating_type!r}")
    yield "<playerslist>\n"
    for row in rows:
        values = {
            "fideid": str(row.fide_id),
            "name": row.name,
            "country": row.federation,
            "sex": row.sex,
            "title": row.title,
            "w_title": row.women_title,
            "o_title": ",".join(row.other_titles),
            "foa_title": row.foa_title,
            "birthday": str(row.birth_year or ""),
            "flag": row.flag,
        }
        for each in RATING_TYPES if rating_type is None else (rating_type,):
            prefix = _XML_PREFIX[each] if rating_type is None else ""
            rating, games, k = _rating_cells(row.rating(each))
            values.update({f"{prefix}rating": rating, f"{prefix}games": games, f"{prefix}k": k})
        parts = "".join(f"<{tag}>{escape(values[tag])}</{tag}>" for tag in _XML_FIELDS if tag in values)
        yield f"<player>{parts}</player>\n"
    yield "</playerslist>\n"


def write_fide_list_csv(rows: Iterable[FideListRow], rating_type: str | None = None) -> Iterator[str]:
    """CSV with a header row: ID, names, federation, titles, rating/games/K per type, birth year, flag."""
    types = RATING_TYPES if rating_type is None else (rating_type,)
    columns = [
        "fide_id",
        "name",
        "surname",
        "given_names",
        "federation",
        "sex",
        "title",
        "women_title",
        "other_titles",
        "foa_title",
    ]
    for each in types:
        columns += [f"{each}_rating", f"{each}_games", f"{each}_k_factor"]
    columns += ["birth_year", "flag"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")

    def flush() -> str:
        value = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return value

    writer.writerow(columns)
    yield flush()
    for row in rows:
        record: list[object] = [
            row.fide_id,
            row.name,
            row.surname,
            row.given_names,
            row.federation,
            row.sex,
            row.title,
            row.women_title,
            ",".join(row.other_titles),
            row.foa_title,
        ]
        for each in types:
            rating = row.rating(each)
            record += [rating.rating or "", rating.games, rating.k_factor or ""] if rating else ["", "", ""]
        record += [row.birth_year or "", row.flag]
        writer.writerow(record)
        yield flush()
