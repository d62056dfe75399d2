"""An event's crosstable as CSV and PDF (the downloads chess-results offers beside its crosstable).

Both are written from one table (``crosstable_table``): the columns the page shows, in the active language. The
PDF is drawn by core.pdf (a Unicode font where the machine has one, otherwise Latin-1 text: no name can make the
document fail).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from django.utils.translation import gettext as _

from core.pdf import PdfDocument
from public.selectors.events import Crosstable, fraction_text


def plain(value: float) -> str:
    """Points as a number a spreadsheet reads: 2.5."""
    return f"{value:g}"


def crosstable_table(
    crosstable: Crosstable, points: Callable[[float], str] = plain
) -> tuple[list[str], list[list[str]]]:
    """The header and rows the downloads write: rank, starting number, name, title, federation, rating, one
    column per round (a round robin: per opponent, in rank order), points, tie-break, Rp, rating change."""
    columns = (
        [str(n) for n in range(1, len(crosstable.rows) + 1)]
        if crosstable.round_robin
        else [_("R%(round)s") % {"round": n} for n in crosstable.rounds]
    )
    header = [
        _("Rk"),
        _("SNo"),
        _("Name"),
        _("Title"),
        _("Fed"),
        _("Rating"),
        *columns,
        _("Pts"),
        crosstable.tie_break.code,
        "Rp",
        _("Change"),
    ]
    rows = []
    for row in crosstable.rows:
        standing = row.standing
        cells = row.grid if crosstable.round_robin else [cell.text for cell in standing.cells]
        rows.append(
            [
                str(standing.rank),
                str(standing.start_rank),
                standing.name,
                standing.title,
                standing.federation,
                str(standing.rating or ""),
                *cells,
                points(standing.points),
                points(row.tie_break_value),
                str(row.performance or ""),
                f"{row.rating_change:+.2f}" if row.rating_change is not None else "",
            ]
        )
    return header, rows


def crosstable_csv(crosstable: Crosstable) -> str:
    """The crosstable as CSV (UTF-8 text, one header line, one line per player in standings order)."""
    header, rows = crosstable_table(crosstable)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def crosstable_pdf(crosstable: Crosstable, title: str, subtitle: str) -> bytes:
    """The crosstable as a landscape A4 PDF: the event's name, a line of facts, then the table."""
    header, rows = crosstable_table(crosstable, fraction_text)
    document = PdfDocument(title, landscape=True)
    document.paragraph(subtitle)
    document.table(header, rows, _widths(header), size=7 if len(header) > 16 else 8)
    return document.bytes()


def _widths(header: list[str]) -> list[float]:
    """Relative widths: the name wide, the round or opponent columns narrow."""
    last = len(header) - 4
    return [3.0 if index == 2 else 1.6 if index < 6 or index >= last else 1.3 for index in range(len(header))]
