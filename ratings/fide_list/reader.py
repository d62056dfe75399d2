"""The reader: ``FideListReader`` (rows one at a time, or batches of columns) and ``iter_fide_list``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from typing import IO, Any
from xml.etree.ElementTree import ParseError, XMLParser

import numpy as np

from ratings.engine.rating_types import RATING_TYPES
from ratings.fide_list.columns import _ByteLines, _ColumnParser, _txt_columns
from ratings.fide_list.layout import (
    _LIMITS,
    _XML_PREFIX,
    _bounded,
    _fide_id_problem,
    _number_problem,
    _shown,
    _split_name,
    _title,
    _txt_layout,
)
from ratings.fide_list.lines import _MAX_LINE_CHARS, _chunks, _decode_line, _FieldSpans, _too_long
from ratings.fide_list.rows import (
    FideListColumns,
    FideListFormatError,
    FideListLayout,
    FideListProblem,
    FideListRating,
    FideListRow,
)
from ratings.fide_list.xml_reader import _xml_encoding_refusal, _XmlTarget

_MAX_KEPT_PROBLEMS = 10_000  # FideListReader.problems keeps this many; the count goes on


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
            **ratings,
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
