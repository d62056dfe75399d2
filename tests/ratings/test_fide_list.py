"""ratings.fide_list: every FIDE download layout, built here from the header lines in reference/formats.md §4.

Fixture lines put each value where its header token starts (FIDE's rule), independently of the module.
No database: these tests run with or without pytest-django.
"""

import csv
import dataclasses
import datetime as dt
import io
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.models import RatingType
from ratings.engine import difference_cap
from ratings.fide_list import (
    COMBINED_FOA_HEADER,
    RATING_TYPES,
    FideListFormatError,
    FideListRating,
    FideListReader,
    FideListRow,
    iter_fide_list,
    write_fide_list_csv,
    write_fide_list_txt,
    write_fide_list_xml,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_pure_modules_rating_types_are_the_models_choices_in_their_order():
    # The engine and the FIDE list files cannot import models: they keep the engine's tuple, which must name
    # exactly the rating types of events.models.RatingType (the choices every model and command uses).
    assert tuple(RatingType.values) == difference_cap.RATING_TYPES
    assert RATING_TYPES is difference_cap.RATING_TYPES


# formats.md §4.2 (exact) and §4.3 (single-type: same through FOA, then the month; legacy: no FOA).
FOA_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit"
    "           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
LEGACY_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit"
    "           SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
STANDARD_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit"
    "           FOA OCT26 Gms K  B-day Flag"
)
PRE_2012_HEADER = "ID number Name                              TitlFed  Mar11 GamesBorn  Flag"


def fixed_line(header: str, values: dict[str, str]) -> str:
    """A data line with each value left-aligned where its header token starts, padded to the header width."""
    starts = {m.group(): m.start() for m in re.finditer(r"\S+", header)}
    line = [" "] * len(header)
    for token, value in values.items():
        start = starts[token]
        line[start : start + len(value)] = value
    return "".join(line)


CARLSEN = {
    "ID": "1503014",
    "Name": "Carlsen, Magnus",
    "Fed": "NOR",
    "Sex": "M",
    "Tit": "GM",
    "SRtng": "2823",
    "SGm": "0",
    "SK": "10",
    "RRtng": "2801",
    "RGm": "12",
    "Rk": "10",
    "BRtng": "2860",
    "BGm": "0",
    "BK": "10",
    "B-day": "1990",
}
INACTIVE_WOMAN = {
    "ID": "4100018",
    "Name": "Ivanova, Olga Petrovna",
    "Fed": "RUS",
    "Sex": "F",
    "Tit": "WIM",
    "WTit": "WIM",
    "OTit": "IA,FA",
    "FOA": "AGM",
    "SRtng": "2205",
    "SGm": "3",
    "SK": "20",
    "RRtng": "0",
    "RGm": "0",
    "Rk": "0",
    "BRtng": "2150",
    "BGm": "0",
    "BK": "20",
    "B-day": "1970",
    "Flag": "wi",
}
UNRATED_MONONYM = {
    "ID": "10001",
    "Name": "Ababil",
    "Fed": "BAN",
    "Sex": "M",
    "SRtng": "0",
    "SGm": "0",
    "SK": "0",
    "RRtng": "0",
    "RGm": "0",
    "Rk": "0",
    "BRtng": "0",
    "BGm": "0",
    "BK": "0",
    "B-day": "0",
}


def txt(header: str, *rows: str, ending: str = "\r\n") -> bytes:
    return ending.join([header, *rows, ""]).encode("ascii")


def read(data: bytes, **options) -> tuple[list[FideListRow], FideListReader]:
    reader = FideListReader(io.BytesIO(data), **options)
    return list(reader), reader


# --------------------------------------------------------------------------------------------- layouts


def test_combined_list_with_foa_reads_every_field():
    rows, reader = read(
        txt(FOA_HEADER, *(fixed_line(FOA_HEADER, v) for v in (CARLSEN, INACTIVE_WOMAN, UNRATED_MONONYM)))
    )

    assert reader.problems == []
    assert reader.layout.has_foa
    assert reader.layout.rating_types == ("standard", "rapid", "blitz")
    carlsen, olga, ababil = rows
    assert (carlsen.fide_id, carlsen.name, carlsen.surname, carlsen.given_names) == (
        1503014,
        "Carlsen, Magnus",
        "Carlsen",
        "Magnus",
    )
    assert (carlsen.federation, carlsen.sex, carlsen.title, carlsen.birth_year) == ("NOR", "M", "GM", 1990)
    assert carlsen.standard == FideListRating(2823, 0, 10)
    assert carlsen.rapid == FideListRating(2801, 12, 10)
    assert carlsen.blitz == FideListRating(2860, 0, 10)
    assert (carlsen.flag, carlsen.inactive, carlsen.woman, carlsen.line) == ("", False, False, 2)
    assert (olga.given_names, olga.women_title, olga.other_titles, olga.foa_title) == (
        "Olga Petrovna",
        "WIM",
        ("IA", "FA"),
        "AGM",
    )
    assert (olga.rapid, olga.flag, olga.inactive, olga.woman) == (
        FideListRating(None, 0, None),
        "wi",
        True,
        True,
    )
    assert (ababil.surname, ababil.given_names, ababil.birth_year) == ("Ababil", "", None)
    assert ababil.standard == ababil.rapid == ababil.blitz == FideListRating(None, 0, None)


def test_otit_overflowing_into_foa_shifts_the_rest_of_the_line():
    # FIDE's own file has three 163-character lines: "SI,FI,LSI,SLI,NA" (16 chars) runs into FOA "AFM".
    normal = fixed_line(FOA_HEADER, {**CARLSEN, "ID": "2000001", "Name": "Overflow, Olaf", "Flag": "i"})
    overflow = normal[:94] + "SI,FI,LSI,SLI,NA" + "AFM " + normal[113:]
    assert len(normal) == 162
    assert len(overflow) == 163

    (row, after), reader = read(txt(FOA_HEADER, overflow, fixed_line(FOA_HEADER, CARLSEN)))

    assert reader.problems == []
    assert (row.other_titles, row.foa_title) == (("SI", "FI", "LSI", "SLI", "NA"), "AFM")
    assert (row.standard, row.rapid, row.blitz) == (
        FideListRating(2823, 0, 10),
        FideListRating(2801, 12, 10),
        FideListRating(2860, 0, 10),
    )
    assert (row.birth_year, row.flag) == (1990, "i")
    assert after.standard == FideListRating(2823, 0, 10)
    assert after.other_titles == ()


def test_otit_of_exactly_fifteen_characters_next_to_foa_is_not_an_overflow():
    values = {**CARLSEN, "OTit": "FA,IO,FST,LSI,A", "FOA": "AIM"}  # 15 characters fill the field

    (row,), _reader = read(txt(FOA_HEADER, fixed_line(FOA_HEADER, values)))

    assert (row.other_titles, row.foa_title, row.standard) == (
        ("FA", "IO", "FST", "LSI", "A"),
        "AIM",
        FideListRating(2823, 0, 10),
    )


def test_legacy_combined_list_without_foa():
    starts = {m.group(): m.start() for m in re.finditer(r"\S+", LEGACY_HEADER)}
    # formats.md §4.3: SRtng 109, SGm 115, SK 119, RRtng 122, RGm 128, Rk 132, BRtng 135, BGm 141, BK 145,
    # B-day 148, Flag 154.
    assert [starts[t] for t in ("SRtng", "SGm", "SK", "RRtng", "Rk", "BK", "B-day", "Flag")] == [
        109,
        115,
        119,
        122,
        132,
        145,
        148,
        154,
    ]
    values = {k: v for k, v in INACTIVE_WOMAN.items() if k != "FOA"}

    (row,), reader = read(txt(LEGACY_HEADER, fixed_line(LEGACY_HEADER, values)))

    assert not reader.layout.has_foa
    assert reader.problems == []
    assert (row.other_titles, row.foa_title, row.standard, row.blitz, row.birth_year, row.flag) == (
        ("IA", "FA"),
        "",
        FideListRating(2205, 3, 20),
        FideListRating(2150, 0, 20),
        1970,
        "wi",
    )


@pytest.mark.parametrize("rating_type", ["standard", "rapid", "blitz"])
def test_single_type_list_headed_by_the_month(rating_type):
    starts = {m.group(): m.start() for m in re.finditer(r"\S+", STANDARD_HEADER)}
    assert [starts[t] for t in ("FOA", "OCT26", "Gms", "K", "B-day", "Flag")] == [
        109,
        113,
        119,
        123,
        126,
        132,
    ]
    line = fixed_line(
        STANDARD_HEADER,
        {
            "ID": "25121731",
            "Name": "A C J John",
            "Fed": "IND",
            "Sex": "M",
            "OCT26": "1063",
            "Gms": "0",
            "K": "40",
            "B-day": "1987",
            "Flag": "i",
        },
    )

    (row,), reader = read(txt(STANDARD_HEADER, line), rating_type=rating_type)

    assert reader.layout.rating_types == (rating_type,)
    assert row.rating(rating_type) == FideListRating(1063, 0, 40)
    others = [t for t in ("standard", "rapid", "blitz") if t != rating_type]
    assert all(row.rating(t) is None for t in others)
    assert (row.surname, row.given_names, row.birth_year, row.inactive) == ("A C J John", "", 1987, True)


def test_single_type_list_defaults_to_standard():
    line = fixed_line(STANDARD_HEADER, {"ID": "1", "Name": "One, A", "OCT26": "1500", "Gms": "2", "K": "20"})

    (row,), _ = read(txt(STANDARD_HEADER, line))

    assert row.standard == FideListRating(1500, 2, 20)
    assert row.rapid is None


def test_pre_2012_list_with_glued_labels_and_one_letter_titles():
    # CPAN Chess::FIDE test data (formats.md §4.3): right-aligned IDs, "TitlFed", "GamesBorn".
    lines = [
        " 4158814  Andreikin, Dmitry                 g   RUS  2686    9  1990  ",
        "10206612  A K M, Sourab                         BAN  1714    0        ",
        " 5080444  A, Sohita                             IND  1447    0  1995  wi",
    ]

    rows, reader = read(txt(PRE_2012_HEADER, *lines))

    assert reader.problems == []
    assert [(r.fide_id, r.surname, r.given_names, r.title, r.federation) for r in rows] == [
        (4158814, "Andreikin", "Dmitry", "GM", "RUS"),
        (10206612, "A K M", "Sourab", "", "BAN"),
        (5080444, "A", "Sohita", "", "IND"),
    ]
    assert [(r.standard, r.birth_year, r.flag) for r in rows] == [
        (FideListRating(2686, 9, None), 1990, ""),
        (FideListRating(1714, 0, None), None, ""),
        (FideListRating(1447, 0, None), 1995, "wi"),
    ]


XML = (
    "<playerslist>\n"
    "<player><fideid>1503014</fideid><name>Carlsen, Magnus</name><country>NOR</country><sex>M</sex>"
    "<title>GM</title><w_title></w_title><o_title></o_title><foa_title></foa_title><rating>2823</rating>"
    "<games>0</games><k>10</k><rapid_rating>2801</rapid_rating><rapid_games>12</rapid_games><rapid_k>10</rapid_k>"
    "<blitz_rating>2860</blitz_rating><blitz_games>0</blitz_games><blitz_k>10</blitz_k><birthday>1990</birthday>"
    "<flag></flag></player>\n"
    "<player><fideid>4100018</fideid><name>Ivanova, Olga</name><country>RUS</country><sex>F</sex>"
    "<title>WIM</title><w_title>WIM</w_title><o_title>IA,FA</o_title><foa_title>AGM</foa_title>"
    "<rating>2205</rating><games>3</games><k>20</k><rapid_rating>0</rapid_rating><rapid_games>0</rapid_games>"
    "<rapid_k>0</rapid_k><blitz_rating>2150\n</blitz_rating><blitz_games>0</blitz_games><blitz_k>20</blitz_k>"
    "<birthday>1970</birthday><flag>wi</flag></player>\n"
    "</playerslist>\n"
)


def test_xml_list_is_read_like_the_txt():
    txt_rows, _ = read(txt(FOA_HEADER, fixed_line(FOA_HEADER, CARLSEN)))

    rows, reader = read(XML.encode())

    assert reader.problems == []
    assert reader.layout.kind == "xml"
    assert rows[0] == txt_rows[0]  # same values; line numbers (not compared) differ
    olga = rows[1]
    assert (olga.women_title, olga.other_titles, olga.foa_title, olga.flag) == (
        "WIM",
        ("IA", "FA"),
        "AGM",
        "wi",
    )
    assert (olga.standard, olga.rapid, olga.blitz) == (
        FideListRating(2205, 3, 20),
        FideListRating(None, 0, None),
        FideListRating(2150, 0, 20),
    )


def test_single_type_xml_takes_the_rating_type_it_is_given():
    xml = (
        "<playerslist><player><fideid>7</fideid><name>Seven, S</name><country>IRL</country>"
        "<rating>1800</rating><games>4</games><k>40</k><birthday>2001</birthday><flag>w</flag></player>"
        "</playerslist>"
    )

    (row,), _ = read(xml.encode(), rating_type="blitz")

    assert row.blitz == FideListRating(1800, 4, 40)
    assert row.standard is None
    assert row.woman


# -------------------------------------------------------------------------------------------- problems


def test_bad_lines_are_reported_and_the_rest_of_the_file_is_read():
    bad_id = fixed_line(FOA_HEADER, {**CARLSEN, "ID": "12AB"})
    bad_rating = fixed_line(FOA_HEADER, {**CARLSEN, "ID": "55", "SRtng": "2x00"})
    seen = []

    rows, reader = read(
        txt(FOA_HEADER, bad_id, "", bad_rating, fixed_line(FOA_HEADER, CARLSEN)), on_problem=seen.append
    )

    assert [r.fide_id for r in rows] == [55, 1503014]
    assert rows[0].standard == FideListRating(None, 0, 10)
    assert rows[0].rapid == FideListRating(2801, 12, 10)
    assert seen == reader.problems
    assert reader.problem_count == 2
    assert [(p.line, p.column, p.severity) for p in reader.problems] == [(2, 1, "error"), (4, 114, "warning")]
    assert "FIDE ID '12AB' is not a number; row skipped" in reader.problems[0].message
    assert str(reader.problems[1]) == "line 4, column 114: warning: standard rating '2x00' is not a number; ignored"


def test_implausible_numbers_are_reported_not_stored():
    # Values must fit the database (bigint IDs, smallint ratings); a layout slip can glue digits together.
    glued = fixed_line(FOA_HEADER, {**CARLSEN, "SRtng": "99999", "SK": "999", "B-day": "1066"})
    xml = "<playerslist><player><fideid>99999999999999999999</fideid></player></playerslist>"

    rows, reader = read(txt(FOA_HEADER, glued))
    _, xml_reader = read(xml.encode())

    (row,) = rows
    assert (row.standard, row.birth_year) == (FideListRating(None, 0, 999), None)
    assert [p.message for p in reader.problems] == [
        "standard rating '99999' is outside 1-9999; ignored",
        "birth year '1066' is outside 1800-2200; ignored",
    ]
    assert xml_reader.problems[0].message == (
        "player 1: fideid '99999999999999999999' is outside 1-999999999999999; skipped"
    )


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\r\n\r\n",
        b"Name Fed Rating\r\n",
        b"ID Number      Name      Fed Sex\r\n",
        b"<players></players>",
        b"<<<",
    ],
    ids=["empty", "blank", "no-id", "no-rating", "xml-root", "not-xml"],
)
def test_unrecognisable_file_is_refused(data):
    with pytest.raises(FideListFormatError):
        list(iter_fide_list(io.BytesIO(data)))


def test_broken_xml_keeps_the_players_before_the_break():
    broken = XML.split("<player><fideid>4100018")[0] + "<player><fideid>9</fideid><name>Broken"

    rows, reader = read(broken.encode())

    assert [r.fide_id for r in rows] == [1503014]
    assert reader.problems[0].severity == "error"
    assert "XML broken after player 1" in reader.problems[0].message


# ------------------------------------------------------------------------------------------ input kinds


@pytest.mark.parametrize("kind", ["bytes", "text", "lines", "lines-without-newline", "lf", "bom"])
def test_any_stream_or_iterable_of_lines_is_accepted(kind):
    lines = [FOA_HEADER, fixed_line(FOA_HEADER, CARLSEN), fixed_line(FOA_HEADER, UNRATED_MONONYM)]
    data = "\r\n".join(lines) + "\r\n"
    source = {
        "bytes": io.BytesIO(data.encode()),
        "text": io.StringIO(data),
        "lines": (line + "\r\n" for line in lines),
        "lines-without-newline": list(lines),
        "lf": io.BytesIO(data.replace("\r\n", "\n").encode()),
        "bom": io.BytesIO(b"\xef\xbb\xbf" + data.encode()),
    }[kind]

    rows = list(iter_fide_list(source))

    assert [(r.fide_id, r.line) for r in rows] == [(1503014, 2), (10001, 3)]


def test_reading_streams_in_bounded_memory():
    template = fixed_line(FOA_HEADER, CARLSEN)

    def many_lines(count):
        yield FOA_HEADER + "\r\n"
        for number in range(1, count + 1):
            yield f"{number:<15}{template[15:]}\r\n"

    def many_players(count):
        yield "<playerslist>\n"
        for number in range(1, count + 1):
            yield f"<player><fideid>{number}</fideid><name>P, Q</name><rating>2000</rating></player>\n"
        yield "</playerslist>\n"

    for source in (many_lines(10_000), many_players(10_000)):
        tracemalloc.start()
        try:
            read_count = sum(1 for _ in iter_fide_list(source))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert read_count == 10_000
        assert peak < 2_000_000  # keeping the 10,000 rows would take several MB


# ---------------------------------------------------------------------------------------------- writers


def rating(value, games=0, k=None):
    return FideListRating(value, games, k)


def row(fide_id, name, **fields):
    surname, _, given = name.partition(",")
    defaults = {
        "federation": "IRL",
        "sex": "M",
        "title": "",
        "women_title": "",
        "other_titles": (),
        "foa_title": "",
        "standard": rating(None),
        "rapid": rating(None),
        "blitz": rating(None),
        "birth_year": None,
        "flag": "",
    }
    return FideListRow(fide_id, name, surname.strip(), given.strip(), **{**defaults, **fields})


ROWS = [
    row(
        1503014,
        "Carlsen, Magnus",
        federation="NOR",
        title="GM",
        standard=rating(2823, 0, 10),
        rapid=rating(2801, 12, 10),
        blitz=rating(2860, 0, 10),
        birth_year=1990,
    ),
    row(
        4100018,
        "Ivanova, Olga Petrovna",
        federation="RUS",
        sex="F",
        title="WIM",
        women_title="WIM",
        other_titles=("IA", "FA"),
        foa_title="AGM",
        standard=rating(2205, 3, 20),
        blitz=rating(2150, 0, 20),
        birth_year=1970,
        flag="wi",
    ),
    row(
        2000001,
        "Overflow, Olaf",
        other_titles=("SI", "FI", "LSI", "SLI", "NA"),
        foa_title="AFM",
        standard=rating(1900, 7, 40),
        flag="i",
    ),
    row(10001, "Ababil", federation="BAN"),
    row(12, "O'Brien & Sons, <Pat>", rapid=rating(1450, 999, 40), birth_year=2011, flag="w"),
]


def only(rows, rating_type):
    """The rows as a single-type list of ``rating_type`` carries them."""
    return [
        dataclasses.replace(r, **{t: r.rating(t) if t == rating_type else None for t in ("standard", "rapid", "blitz")})
        for r in rows
    ]


def test_combined_txt_written_in_fide_columns_reads_back_identically():
    lines = list(write_fide_list_txt(ROWS))

    assert lines[0] == COMBINED_FOA_HEADER + "\r\n" == FOA_HEADER + "\r\n"
    assert [len(line) - 2 for line in lines] == [162, 162, 162, 163, 162, 162]  # the overflow row as FIDE
    carlsen = lines[1]
    assert carlsen[0:15].rstrip() == "1503014"
    assert carlsen[15:76].rstrip() == "Carlsen, Magnus"
    assert carlsen[76:80] == "NOR "
    assert carlsen[84:89] == "GM   "
    assert carlsen[113:126] == "2823  0   10 "
    assert carlsen[152:158] == "1990  "
    assert list(iter_fide_list(lines)) == ROWS


@pytest.mark.parametrize("rating_type", ["standard", "rapid", "blitz"])
def test_single_type_txt_reads_back_identically(rating_type):
    lines = list(write_fide_list_txt(ROWS, rating_type))
    dated = list(write_fide_list_txt(ROWS, rating_type, list_date=dt.date(2026, 10, 1)))

    assert len(lines[1]) - 2 == 136
    assert dated[0][113:119] == "OCT26 "
    assert list(iter_fide_list(lines)) == only(ROWS, rating_type)  # the header names the type
    assert list(iter_fide_list(dated, rating_type=rating_type)) == only(ROWS, rating_type)


@pytest.mark.parametrize("rating_type", [None, "standard", "rapid", "blitz"])
def test_xml_written_reads_back_identically(rating_type):
    text = "".join(write_fide_list_xml(ROWS, rating_type))

    assert text.startswith("<playerslist>\n<player><fideid>1503014</fideid><name>Carlsen, Magnus</name>")
    assert "<name>O'Brien &amp; Sons, &lt;Pat&gt;</name>" in text
    assert "<w_title></w_title>" in text
    expected = ROWS if rating_type is None else only(ROWS, rating_type)
    assert list(iter_fide_list(io.StringIO(text), rating_type=rating_type)) == expected


def test_csv_has_one_row_per_player_with_ratings_per_type():
    records = list(csv.DictReader(io.StringIO("".join(write_fide_list_csv(ROWS)))))

    assert len(records) == len(ROWS)
    assert records[0]["fide_id"] == "1503014"
    assert records[0]["surname"] == "Carlsen"
    assert (records[0]["rapid_rating"], records[0]["rapid_games"], records[0]["rapid_k_factor"]) == (
        "2801",
        "12",
        "10",
    )
    assert records[2]["other_titles"] == "SI,FI,LSI,SLI,NA"
    assert records[3]["standard_rating"] == ""


names = (
    st.text(
        alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ -',.&<>"),
        min_size=1,
        max_size=60,
    )
    .map(str.strip)
    .filter(bool)
)
ratings = st.builds(
    FideListRating,
    st.none() | st.integers(1, 3500),
    st.integers(0, 999),
    st.none() | st.sampled_from([10, 20, 40]),
)


@st.composite
def list_rows(draw):
    name = draw(names)
    surname, comma, given = name.partition(",")
    return FideListRow(
        fide_id=draw(st.integers(1, 10**12)),
        name=name,
        surname=surname.strip(),
        given_names=given.strip() if comma else "",
        federation=draw(st.sampled_from(["IRL", "NOR", "FID", ""])),
        sex=draw(st.sampled_from(["M", "F", ""])),
        title=draw(st.sampled_from(["", "GM", "IM", "WGM", "CM"])),
        women_title=draw(st.sampled_from(["", "WGM", "WFM"])),
        other_titles=tuple(draw(st.lists(st.sampled_from(["IA", "FA", "NA", "FST"]), max_size=3))),
        foa_title=draw(st.sampled_from(["", "AGM", "ACM"])),
        standard=draw(ratings),
        rapid=draw(ratings),
        blitz=draw(ratings),
        birth_year=draw(st.none() | st.integers(1900, 2020)),
        flag=draw(st.sampled_from(["", "i", "w", "wi"])),
    )


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(list_rows(), max_size=8))
def test_any_rows_round_trip_through_txt_and_xml(rows):
    assert list(iter_fide_list(write_fide_list_txt(rows))) == rows
    assert list(iter_fide_list(write_fide_list_xml(rows))) == rows


def test_fide_list_module_does_not_import_django():
    code = "import sys, ratings.fide_list; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------------------- read by columns


def _batched_rows_and_problems(data: bytes, size: int, by_columns: bool):
    """Rows (with their lines) and problems (with the batch being read when each came) of ``data`` read
    ``size`` rows at a time: by column_batches, or by taking ``size`` rows at a time from iter(reader)."""
    from itertools import islice

    problems: list[tuple[int, object]] = []
    batches: list[list[FideListRow]] = []
    reader = FideListReader(io.BytesIO(data), on_problem=lambda p: problems.append((len(batches), p)))
    try:
        if by_columns:
            for columns in reader.column_batches(size):
                assert 0 < len(columns) <= size
                batches.append([columns.row(i) for i in range(len(columns))])
        else:
            rows = iter(reader)
            while batch := list(islice(rows, size)):
                batches.append(batch)
    except FideListFormatError as refusal:
        return str(refusal)
    return [(row, row.line) for batch in batches for row in batch], problems


@settings(max_examples=300, deadline=None, database=None)
@given(data=st.data(), size=st.sampled_from([1, 2, 3, 7, 5_000]))
def test_column_batches_give_the_rows_and_problems_of_the_line_reader(data, size):
    from tests.mutations import fide_list_seed, mutated

    text = data.draw(mutated([fide_list_seed(12)], hostile=True))

    assert _batched_rows_and_problems(text, size, True) == _batched_rows_and_problems(text, size, False)


def test_column_batches_read_regular_lines_by_columns_and_the_others_line_by_line():
    rows = [
        FideListRow(
            10 + i, f"Player{i}, Test", f"Player{i}", "Test", "ESP", "M", standard=FideListRating(1500 + i, 2, 20)
        )
        for i in range(8)
    ]
    rows[2] = dataclasses.replace(rows[2], name="Müller, Jörg", surname="Müller", given_names="Jörg")  # not ASCII
    rows[4] = dataclasses.replace(rows[4], other_titles=("SI", "FI", "LSI", "SLI", "NA"), foa_title="AFM")  # overflow
    lines = list(write_fide_list_txt(rows))
    lines[6] = lines[6][:140] + "12x45" + lines[6][145:]  # a bad number: a warning
    lines.insert(7, "   \r\n")  # blank
    data = "".join(lines).encode()

    batches = list(FideListReader(io.BytesIO(data)).column_batches(5))

    assert [len(b) for b in batches] == [5, 3]
    assert [i for b in batches for i in range(len(b)) if not b.plain[i]] == [2, 4, 0]  # lines 4, 6, 7
    assert _batched_rows_and_problems(data, 5, True) == _batched_rows_and_problems(data, 5, False)
    read = [b.row(i) for b in batches for i in range(len(b))]
    assert read[2].name == "Müller, Jörg"
    assert read[4].other_titles == ("SI", "FI", "LSI", "SLI", "NA")
    assert (read[0].name, read[0].standard, read[0].line) == (rows[0].name, rows[0].standard, 2)
    assert (read[7].fide_id, read[7].standard, read[7].line) == (17, rows[7].standard, 10)
