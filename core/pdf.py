"""Printable documents (certificates, reports, crosstables) as PDF with fpdf2: one small builder for every document.

Text is drawn in a Unicode TrueType font where the machine has one (DejaVu Sans, shipped by most Linux
distributions). Otherwise fpdf2's standard Helvetica, which holds Latin-1 only (no font file ships with the
package), and text is brought into Latin-1 first (``pdf_text``): accents outside it lose their mark (ą -> a), a few
letters without a decomposition are spelled out (Ł -> L, Œ -> OE), and anything else becomes "?" — never an error.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import XPos, YPos
from fpdf.fonts import FontFace

# Unicode TrueType fonts looked for, first found wins (Debian/Ubuntu, Fedora, Arch spell the path differently).
UNICODE_FONT_DIRECTORIES = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/dejavu-sans-fonts"),
    Path("/usr/share/fonts/TTF"),
)


def unicode_font() -> tuple[Path, Path] | None:
    """(regular, bold) DejaVu Sans files where the machine has them (bold: the regular file if missing)."""
    for directory in UNICODE_FONT_DIRECTORIES:
        regular = directory / "DejaVuSans.ttf"
        if regular.is_file():
            bold = directory / "DejaVuSans-Bold.ttf"
            return regular, bold if bold.is_file() else regular
    return None


_SPELLED = str.maketrans(
    {
        "\u0141": "L",  # Ł
        "\u0142": "l",  # ł
        "\u0110": "D",  # Đ
        "\u0111": "d",  # đ
        "\u0131": "i",  # dotless i
        "\u0152": "OE",  # Œ
        "\u0153": "oe",  # œ
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2212": "-",  # minus sign
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2026": "...",
    }
)


def pdf_text(value: object) -> str:
    """``value`` as Latin-1 text the standard PDF fonts can show (see the module's docstring)."""
    text = str(value).translate(_SPELLED)
    out = []
    for char in text:
        if ord(char) < 256:
            out.append(char)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
        out.append(base if base and all(ord(c) < 256 for c in base) else "?")
    return "".join(out)


class PdfDocument:
    """An A4 document: a title, facts (label: value), tables, paragraphs and signature lines."""

    def __init__(self, title: str, landscape: bool = False, font: tuple[Path, Path] | None = None) -> None:
        self.pdf = FPDF(orientation="L" if landscape else "P", unit="mm", format="A4")
        self.pdf.set_auto_page_break(auto=True, margin=12)
        files = font if font is not None else unicode_font()
        self.text: Callable[[object], str]
        if files is not None:
            self.family = "Body"
            self.pdf.add_font(self.family, "", str(files[0]))
            self.pdf.add_font(self.family, "B", str(files[1]))
            self.text = str
        else:
            self.family, self.text = "Helvetica", pdf_text
        self.pdf.set_title(self.text(title))
        self.pdf.add_page()
        self._font("B", 14)
        self.pdf.multi_cell(0, 8, self.text(title), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.pdf.ln(2)

    def _font(self, style: str, size: float) -> None:
        self.pdf.set_font(self.family, style, size)

    @property
    def width(self) -> float:
        return float(self.pdf.epw)

    def heading(self, text: str) -> None:
        self.pdf.ln(2)
        self._font("B", 11)
        self.pdf.multi_cell(0, 6, self.text(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def facts(self, rows: Sequence[tuple[str, object]], label_width: float = 55) -> None:
        for label, value in rows:
            self._font("B", 9)
            self.pdf.cell(label_width, 5, self.text(label))
            self._font("", 9)
            self.pdf.multi_cell(0, 5, self.text(str(value) if value not in (None, "") else "-"), new_x=XPos.LMARGIN)
            self.pdf.set_y(self.pdf.get_y())

    def paragraph(self, text: str, size: int = 9) -> None:
        self._font("", size)
        self.pdf.multi_cell(0, 4.5, self.text(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def table(
        self,
        headers: Sequence[str],
        rows: Sequence[Sequence[object]],
        widths: Sequence[float],
        size: float = 8,
    ) -> None:
        """A table with a shaded header row; ``widths`` relative, the table as wide as the page allows."""
        scale = self.width / sum(widths)
        self._font("", size)
        with self.pdf.table(
            [[self.text("" if v is None else str(v)) for v in line] for line in [headers, *rows]],
            col_widths=tuple(w * scale for w in widths),
            text_align="LEFT",
            line_height=size * 0.55,
            width=self.width,
            first_row_as_headings=True,
            headings_style=FontFace(emphasis="BOLD", fill_color=(230, 234, 238)),
        ):
            pass

    def signatures(self, labels: Sequence[str]) -> None:
        self.pdf.ln(10)
        self._font("", 9)
        column = self.width / max(len(labels), 1)
        for _ in labels:
            self.pdf.cell(column - 6, 5, "_" * 34)
            self.pdf.cell(6, 5, "")
        self.pdf.ln(5)
        for label in labels:
            self.pdf.cell(column, 5, self.text(label))
        self.pdf.ln(5)

    def bytes(self) -> bytes:
        return bytes(self.pdf.output())
