"""The XML list's parsing pieces: a parser target keeping one dict per <player>, and the refusal of an
encoding expat cannot read.
"""

from __future__ import annotations

import re

from ratings.fide_list.rows import FideListFormatError

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
