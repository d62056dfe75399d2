"""Printable documents (certificates, reports, crosstables) as PDF with fpdf2: one small builder for every document.

fpdf2's standard fonts (Helvetica) hold Latin-1 only and no font file ships with the package, so text is brought
into Latin-1 first (``pdf_text``): accents outside it lose their mark (ą -> a), a few letters without a
decomposition are spelled out (Ł -> L, Œ -> OE), and anything else becomes "?" — never an error.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from fpdf import FPDF
from fpdf.enums import XPos, YPos

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

    def __init__(self, title: str, landscape: bool = False) -> None:
        self.pdf = FPDF(orientation="L" if landscape else "P", unit="mm", format="A4")
        self.pdf.set_auto_page_break(auto=True, margin=15)
        self.pdf.set_title(pdf_text(title))
        self.pdf.add_page()
        self.pdf.set_font("Helvetica", "B", 14)
        self.pdf.multi_cell(0, 8, pdf_text(title), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.pdf.ln(2)

    @property
    def width(self) -> float:
        return float(self.pdf.epw)

    def heading(self, text: str) -> None:
        self.pdf.ln(2)
        self.pdf.set_font("Helvetica", "B", 11)
        self.pdf.multi_cell(0, 6, pdf_text(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def facts(self, rows: Sequence[tuple[str, object]], label_width: float = 55) -> None:
        for label, value in rows:
            self.pdf.set_font("Helvetica", "B", 9)
            self.pdf.cell(label_width, 5, pdf_text(label))
            self.pdf.set_font("Helvetica", "", 9)
            self.pdf.multi_cell(0, 5, pdf_text(value if value not in (None, "") else "-"), new_x=XPos.LMARGIN)
            self.pdf.set_y(self.pdf.get_y())

    def paragraph(self, text: str, size: int = 9) -> None:
        self.pdf.set_font("Helvetica", "", size)
        self.pdf.multi_cell(0, 4.5, pdf_text(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]], widths: Sequence[float]) -> None:
        """A table with a bold header row; columns of ``widths`` mm (scaled to the page when wider)."""
        scale = min(1.0, self.width / sum(widths))
        sizes = tuple(w * scale for w in widths)
        self.pdf.set_font("Helvetica", "", 8)
        with self.pdf.table(col_widths=sizes, text_align="LEFT", line_height=4.5, width=sum(sizes)) as table:
            header = table.row()
            for text in headers:
                header.cell(pdf_text(text))
            for values in rows:
                row = table.row()
                for value in values:
                    row.cell(pdf_text("" if value is None else value))

    def signatures(self, labels: Sequence[str]) -> None:
        self.pdf.ln(10)
        self.pdf.set_font("Helvetica", "", 9)
        column = self.width / max(len(labels), 1)
        for _ in labels:
            self.pdf.cell(column - 6, 5, "_" * 34)
            self.pdf.cell(6, 5, "")
        self.pdf.ln(5)
        for label in labels:
            self.pdf.cell(column, 5, pdf_text(label))
        self.pdf.ln(5)

    def bytes(self) -> bytes:
        return bytes(self.pdf.output())
