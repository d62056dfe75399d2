"""Hostile files, defined once: the seed files and the mutations that the hostile-input tests (hypothesis)
and the trust command (``bench/trust.py``, a seeded ``random.Random``) apply to them.

A mutation draws its choices from a ``Chooser``: ``HypothesisChooser`` (tests: shrinkable examples) or
``RandomChooser`` (the trust command: thousands of inputs, reproducible from one seed). Kinds: the byte-,
column- and line-level accidents of arbiters' tools and transfers (truncation, lost or doubled lines,
shifted columns, wrong encodings, junk) and the hostile classes of issue 20 (long unbroken tokens, numbers of
thousands of digits, round counts past the field, player lines with thousands of rounds, XML declarations of
unreadable encodings); ``zipped`` and ``damage_zip`` make the archives FIDE serves, whole or damaged.
"""

from __future__ import annotations

import io
import random
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

ROOT = Path(__file__).resolve().parents[1]
SHARED_TRF = ROOT.parent / "shared" / "data" / "trf"

T = TypeVar("T")


# ------------------------------------------------------------------------------------------ choices


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int: ...
    def choice(self, options: Sequence[T]) -> T: ...
    def binary(self, low: int, high: int) -> bytes: ...
    def latin1(self, low: int, high: int) -> str: ...


class RandomChooser:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def choice(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def binary(self, low: int, high: int) -> bytes:
        return self.rng.randbytes(self.rng.randint(low, high))

    def latin1(self, low: int, high: int) -> str:
        return "".join(chr(self.rng.randint(0, 255)) for _ in range(self.rng.randint(low, high)))


class HypothesisChooser:
    def __init__(self, draw: Callable[[Any], Any]) -> None:
        self.draw = draw

    def integer(self, low: int, high: int) -> int:
        from hypothesis import strategies as st

        return self.draw(st.integers(low, high))

    def choice(self, options: Sequence[T]) -> T:
        from hypothesis import strategies as st

        return self.draw(st.sampled_from(options))

    def binary(self, low: int, high: int) -> bytes:
        from hypothesis import strategies as st

        return self.draw(st.binary(min_size=low, max_size=high))

    def latin1(self, low: int, high: int) -> str:
        from hypothesis import strategies as st

        return self.draw(st.text(st.characters(codec="latin-1"), min_size=low, max_size=high))


# ------------------------------------------------------------------------------------------ seeds


def trf_player(rank, name, rating, fed, fide_id, birth, points, rounds) -> str:
    """A 001 line with every field at its TRF16 column (reference/formats.md §2.1, 1-based inclusive)."""
    line = [" "] * (91 + 10 * len(rounds))

    def put(start, text):
        line[start - 1 : start - 1 + len(text)] = text

    put(1, "001")
    put(5, f"{rank:>4}")
    put(10, "m")
    put(15, name[:33])
    put(49, f"{rating:>4}")
    put(54, fed)
    put(58, f"{fide_id:>11}")
    put(70, birth)
    put(81, f"{points:>4.1f}")
    put(86, f"{rank:>4}")
    for i, (opponent, colour, result) in enumerate(rounds):
        put(92 + 10 * i, f"{opponent:>4} {colour} {result}")
    return "".join(line).rstrip()


SMALL_TRF = (
    "\r\n".join(
        [
            "012 Hostile Input Open",
            "022 Valencia",
            "032 ESP",
            "042 2026/01/10",
            "052 2026/01/12",
            "062 4",
            "072 4",
            "092 Individual: Swiss-System",
            "102 Chief Arbiter",
            "132" + " " * 88 + "26/01/10  26/01/11  26/01/12",
            trf_player(
                1, "Alpha, Ana", 2100, "ESP", 2200001, "1990/01/01", 2.5, [(2, "w", "1"), (3, "b", "="), (4, "w", "1")]
            ),
            trf_player(
                2, "Beta, Bruno", 2000, "ESP", 2200002, "1985/05/05", 1.0, [(1, "b", "0"), (4, "w", "1"), (3, "b", "0")]
            ),
            trf_player(
                3,
                "Gamma, Gloria",
                1900,
                "ESP",
                2200003,
                "2001/03/03",
                2.5,
                [(4, "b", "1"), (1, "w", "="), (2, "w", "1")],
            ),
            trf_player(
                4,
                "Delta, Diego",
                1800,
                "FRA",
                2200004,
                "1970/07/07",
                0.0,
                [(3, "w", "0"), (2, "b", "0"), (1, "b", "0")],
            ),
        ]
    )
    + "\r\n"
)


def trf_seeds(max_size: int = 40_000) -> list[bytes]:
    """SMALL_TRF and the real corpus (odd encodings, BOMs, CR-only lines, team files) up to ``max_size``."""
    seeds = [SMALL_TRF.encode()]
    if SHARED_TRF.is_dir():
        seeds += [
            p.read_bytes()
            for p in sorted(SHARED_TRF.glob("*"))
            if p.suffix in (".trf", ".tab") and p.stat().st_size < max_size
        ]
    return seeds


TRF_SEEDS = trf_seeds()
SMALL_TRF_SEEDS = [seed for seed in TRF_SEEDS if len(seed) < 8_000]  # whole uploads: the quick ones


def fide_list_rows(rows: int = 6) -> list:
    from ratings.fide_list import FideListRating, FideListRow

    return [
        FideListRow(
            fide_id=4100000 + i,
            name=f"Player{i}, Test",
            surname=f"Player{i}",
            given_names="Test",
            federation=("ESP", "FRA", "GER")[i % 3],
            sex="M" if i % 2 else "F",
            title="FM" if i == 1 else "",
            standard=FideListRating(rating=1800 + 37 * i, games=i % 4, k_factor=20),
            rapid=FideListRating(rating=None, games=0, k_factor=None)
            if i % 2
            else FideListRating(rating=1750 + 11 * i, games=1, k_factor=20),
            blitz=FideListRating(rating=1700 + 5 * i, games=0, k_factor=20),
            birth_year=1960 + i,
            flag="i" if i == 3 else "",
        )
        for i in range(rows)
    ]


def fide_list_seed(rows: int = 6) -> bytes:
    """The combined TXT list with FOA (players_list_foa.txt) of ``rows`` generated players."""
    from ratings.fide_list import write_fide_list_txt

    return "".join(write_fide_list_txt(fide_list_rows(rows))).encode("ascii")


def fide_list_seeds(rows: int = 12) -> dict[str, bytes]:
    """File name -> a generated list in each layout FIDE serves (combined TXT, single-type TXT, XML)."""
    import datetime as dt

    from ratings.fide_list import write_fide_list_txt, write_fide_list_xml

    players = fide_list_rows(rows)
    return {
        "players_list_foa.txt": "".join(write_fide_list_txt(players)).encode("ascii"),
        "rapid_rating_list.txt": "".join(write_fide_list_txt(players, "rapid", list_date=dt.date(2026, 10, 1))).encode(
            "ascii"
        ),
        "players_list_xml_foa.xml": "".join(write_fide_list_xml(players)).encode("ascii"),
        "standard_rating_list_xml.xml": "".join(write_fide_list_xml(players, "standard")).encode("ascii"),
    }


# ------------------------------------------------------------------------------------------ mutations

ACCIDENTS = (
    "flip",
    "insert",
    "delete",
    "truncate",
    "overwrite",
    "line_dup",
    "line_drop",
    "line_swap",
    "line_endings",
    "digits",
    "huge_number",
)
# The hostile classes of issue 20.
HOSTILE = ("long_token", "giant_number", "hostile_record", "many_rounds", "xml_declaration")
HOSTILE_RECORDS = (
    b"XXR 9223372036854775808",
    b"142 32768",
    b"XXR " + b"9" * 5000,
    b"062 " + b"9" * 5000,
    b"132" + b" " * 88 + b"26/01/10  " * 40,
    b"XXS W=" + b"9" * 400,
    b"240 H " + b"999",
)
XML_ENCODINGS = ("utf-16", "utf-32", "shift_jis", "no-such-encoding", "ebcdic-cp-us", "cp1252", "x-mac-japanese")


def _lines_mutation(choose: Chooser, kind: str, data: bytes) -> bytes:
    lines = data.split(b"\n")
    i, j = choose.integer(0, len(lines) - 1), choose.integer(0, len(lines) - 1)
    if kind == "line_dup":
        lines.insert(i, lines[j])
    elif kind == "line_drop" and len(lines) > 1:
        del lines[i]
    elif kind == "line_swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "line_endings":
        joined = b"\n".join(lines)
        return choose.choice(
            [joined.replace(b"\r\n", b"\n"), joined.replace(b"\n", b"\r"), joined.replace(b"\r\n", b"\r\r\n")]
        )
    elif kind == "many_rounds":  # a line's last field repeated: thousands of rounds on a 001 line
        line = lines[i].rstrip(b"\r")
        tail = line[-10:] if len(line) >= 10 else b"   1 w 1  "
        lines[i] = line + tail.ljust(10) * choose.integer(100, 32_800)
    elif kind == "hostile_record":
        lines.insert(i, choose.choice(HOSTILE_RECORDS) + b"\r")
    return b"\n".join(lines)


def _mutation(choose: Chooser, kind: str, data: bytes) -> bytes:
    size = len(data)
    at = choose.integer(0, max(size - 1, 0))
    if kind == "flip" and size:
        return data[:at] + bytes([choose.integer(0, 255)]) + data[at + 1 :]
    if kind == "insert":
        return data[:at] + choose.binary(1, 40) + data[at:]
    if kind == "delete" and size:
        return data[:at] + data[at + choose.integer(1, 60) :]
    if kind == "truncate":
        return data[:at]
    if kind == "overwrite" and size:
        text = choose.latin1(1, 12).encode("latin-1")
        return data[:at] + text + data[at + len(text) :]
    if kind == "digits" and size:
        return data[:at] + str(choose.integer(-9999, 99999)).encode() + data[at + 4 :]
    if kind == "huge_number" and size:
        return data[:at] + b"99999999999999999999999" + data[at + 4 :]
    if kind == "giant_number":  # past Python's 4,300-digit limit of int()
        return data[:at] + b"9" * choose.integer(4_300, 6_000) + data[at + 4 :]
    if kind == "long_token":  # one unbroken token: glued header labels or junk, up to 320 kB
        token = choose.choice([b"sk", b"titlfed", b"x", b"rtngk"]) * choose.integer(500, 40_000)
        return data[:at] + token + data[at:]
    if kind == "xml_declaration":
        declaration = f'<?xml version="1.0" encoding="{choose.choice(XML_ENCODINGS)}"?>\n'.encode()
        return declaration + data
    if kind in ("line_dup", "line_drop", "line_swap", "line_endings", "many_rounds", "hostile_record"):
        return _lines_mutation(choose, kind, data)
    return data


def mutate(choose: Chooser, data: bytes, *, hostile: bool = True) -> bytes:
    """``data`` after one to six mutations (with ``hostile``, the issue-20 classes among them)."""
    kinds = ACCIDENTS + HOSTILE if hostile else ACCIDENTS
    for _ in range(choose.integer(1, 6)):
        data = _mutation(choose, choose.choice(kinds), data)
    return data


def mutated(seeds: list[bytes], *, hostile: bool = False):
    """A hypothesis strategy: a seed after ``mutate`` (the accidents only unless ``hostile``)."""
    from hypothesis import strategies as st

    @st.composite
    def strategy(draw):
        choose = HypothesisChooser(draw)
        return mutate(choose, choose.choice(seeds), hostile=hostile)

    return strategy()


# ------------------------------------------------------------------------------------------ archives

ZIP_DAMAGE = (
    "corrupt compressed data",
    "unknown compression method",
    "encrypted member",
    "offsets cut short",
    "bad CRC",
    "truncated",
)


def zipped(data: bytes, method: int = zipfile.ZIP_DEFLATED, name: str = "players_list_foa.txt") -> bytes:
    """A ZIP holding ``data`` as ``name``, as FIDE serves its lists."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def damage_zip(archive: bytes, kind: str, at: int = 5) -> bytes:
    """A one-member ZIP (``zipped``) damaged as downloads are: ``kind`` one of ``ZIP_DAMAGE``; ``at``
    places the corruption in the compressed data."""
    data = bytearray(archive)
    name_length = int.from_bytes(data[26:28], "little")
    extra_length = int.from_bytes(data[28:30], "little")
    body = 30 + name_length + extra_length  # the local file header before the compressed data
    central = data.rfind(b"PK\x01\x02")
    if kind == "corrupt compressed data":
        start = body + at % max(central - body, 1)
        end = min(start + 35, central)  # the compressed data only: the directory stays readable
        data[start:end] = b"\xff" * (end - start)
    elif kind == "unknown compression method":
        data[8:10] = b"\x63\x00"  # method 99 (AES), in the local and the central header
        data[central + 10 : central + 12] = b"\x63\x00"
    elif kind == "encrypted member":
        data[6] |= 1
        data[central + 8] |= 1
    elif kind == "offsets cut short":
        data[central + 42 : central + 46] = (len(data) - 10).to_bytes(4, "little")  # the member past the data
    elif kind == "bad CRC":
        data[central + 16] ^= 0xFF
        data[14] ^= 0xFF
    elif kind == "truncated":
        del data[len(data) // 2 :]
        data += zipped(b"x")[-22:]  # an end record pointing nowhere
    return bytes(data)


def fuzz(examples: int) -> Any:
    """Hypothesis settings of the hostile-input tests: ``examples`` inputs, no deadline, no health check."""
    from hypothesis import HealthCheck, settings

    # No example database: each run draws afresh (the suite stays deterministic in length, not in inputs).
    return settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
