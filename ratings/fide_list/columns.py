"""A TXT list read by columns (FideListReader.column_batches): lines cut into a 2-D array of bytes with
NumPy, each field a slice, the rows that need the per-line parser set apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any

import numpy as np

from ratings.fide_list.layout import _LIMITS, _MAX_DIGITS, _MAX_FIDE_ID, _title
from ratings.fide_list.lines import _MAX_LINE_CHARS, _FieldSpans, _too_long
from ratings.fide_list.rows import FideListColumns, FideListFormatError, FideListLayout, FideListRow

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
