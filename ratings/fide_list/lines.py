"""A file's pieces and lines as the reader takes them: chunks of a stream, a line decoded, the longest line
accepted, and the field slices of a TXT line (OTit overflowing into the fields after it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ratings.fide_list.layout import _FOA_CODES

# ------------------------------------------------------------------------------------ the file's lines


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
