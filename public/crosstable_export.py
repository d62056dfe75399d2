"""An event's crosstable as CSV and PDF (the downloads chess-results offers beside its crosstable).

Both are written from one table (``crosstable_table``): the columns the page shows, in the active language.
The PDF uses a Unicode TrueType font where the machine has one (DejaVu Sans, shipped by most Linux
distributions); otherwise fpdf2's core Helvetica, which covers Latin-1 only, with every other character
transliterated (accents dropped, anything else "?") so that no name can make the document fail.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Callable
from pathlib import Path

from django.utils.translation import gettext as _
from fpdf import FPDF
from fpdf.fonts import FontFace

from public.selectors.events import Crosstable, fraction_text

# Unicode TrueType fonts looked for, first found wins (Debian/Ubuntu, Fedora, Arch spell the path differently).
UNICODE_FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans.ttf"),
)


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


def latin1_safe(text: str) -> str:
    """``text`` in Latin-1 for a core PDF font: accents kept where Latin-1 has the letter, dropped where it has
    only the base letter (Ł has none: "L"), any other character "?"."""
    out = []
    for char in text:
        try:
            char.encode("latin-1")
            out.append(char)
            continue
        except UnicodeEncodeError:
            pass
        base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
        out.append(base if base and all(ord(c) < 256 for c in base) else _STROKES.get(char, "?"))
    return "".join(out).replace("−", "-")


# Letters whose decomposition has no base letter in Latin-1 (they are letters of their own in Unicode).
_STROKES = {"Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "\u0131": "i", "−": "-", "–": "-"}  # U+0131: dotless i


def _unicode_font() -> Path | None:
    return next((path for path in UNICODE_FONTS if path.is_file()), None)


def crosstable_pdf(crosstable: Crosstable, title: str, subtitle: str) -> bytes:
    """The crosstable as a landscape A4 PDF: the event's name, a line of facts, then the table."""
    header, rows = crosstable_table(crosstable, fraction_text)
    pdf = FPDF(orientation="L", unit="mm", format="A4")
    pdf.set_auto_page_break(auto=True, margin=10)
    font_path = _unicode_font()
    clean: Callable[[str], str]
    if font_path is not None:
        pdf.add_font("Body", "", str(font_path))
        family, clean = "Body", str
    else:
        family, clean = "Helvetica", latin1_safe
    pdf.add_page()
    pdf.set_font(family, size=14)
    pdf.cell(0, 8, clean(title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(family, size=9)
    pdf.cell(0, 6, clean(subtitle), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    size = 7 if len(header) > 16 else 8
    pdf.set_font(family, size=size)
    with pdf.table(
        [[clean(value) for value in line] for line in [header, *rows]],
        col_widths=_widths(header),
        text_align="LEFT",
        line_height=size * 0.6,
        first_row_as_headings=True,
        headings_style=FontFace(emphasis="", fill_color=(230, 234, 238)),  # one regular font face: no bold needed
    ):
        pass
    return bytes(pdf.output())


def _widths(header: list[str]) -> list[float]:
    """Relative widths: the name wide, the round or opponent columns narrow."""
    last = len(header) - 4
    return [3.0 if index == 2 else 1.6 if index < 6 or index >= last else 1.3 for index in range(len(header))]
