"""The values a FIDE list is read into: a row and its ratings, a problem, a batch of rows as NumPy
columns, the layout a header gave, and the one refusal of a whole file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

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
        rating: FideListRating | None = getattr(self, rating_type)
        return rating


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
