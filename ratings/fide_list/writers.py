"""The writers: a list's rows as FIDE's fixed-width TXT, its XML, or CSV."""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable, Iterator
from xml.sax.saxutils import escape

from ratings.engine.rating_types import RATING_TYPES
from ratings.fide_list.layout import _SINGLE_HEADER_HEAD, _TYPE_PREFIX, _XML_FIELDS, _XML_PREFIX, COMBINED_FOA_HEADER
from ratings.fide_list.rows import FideListRating, FideListRow

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
