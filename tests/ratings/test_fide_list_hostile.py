"""Hostile FIDE list downloads (issue 20): damaged archives, XML declarations, long header tokens, huge
numbers, overlong lines. Each is refused with the reader's own message naming the place (archive member,
line), never a traceback, in time linear in the input. No database."""

import io
import zipfile
from collections.abc import Callable

import pytest

from ratings.fide_list import (
    FideListFormatError,
    FideListRating,
    FideListReader,
    FideListRow,
    fide_list_source,
    write_fide_list_txt,
    write_fide_list_xml,
)
from tests.mutations import damage_zip, zipped
from tests.timing import best_times


def rows(count: int = 3) -> list[FideListRow]:
    return [
        FideListRow(
            fide_id=4100000 + i,
            name=f"Player{i}, Test",
            surname=f"Player{i}",
            given_names="Test",
            federation="ESP",
            standard=FideListRating(1800 + i, 1, 20),
            rapid=FideListRating(None, 0, None),
            blitz=FideListRating(None, 0, None),
        )
        for i in range(count)
    ]


TXT = "".join(write_fide_list_txt(rows())).encode("ascii")
XML = "".join(write_fide_list_xml(rows())).encode("ascii")


def read_all(data: bytes) -> FideListReader:
    reader = FideListReader(io.BytesIO(data))
    list(reader)
    return reader


# ------------------------------------------------------------------------------------------ archives


def damaged(kind: str) -> bytes:
    return damage_zip(zipped(TXT * 40), kind)


@pytest.mark.parametrize(
    "kind",
    [
        "corrupt compressed data",
        "unknown compression method",
        "encrypted member",
        "offsets cut short",
        "bad CRC",
        "truncated",
    ],
)
def test_a_damaged_zip_is_refused_naming_the_archive_member(kind):
    # PT012: a damaged archive is refused when it is opened or when it is read, whichever finds the damage
    with pytest.raises(FideListFormatError) as refusal:  # noqa: PT012
        _name, _, stream = fide_list_source(io.BytesIO(damaged(kind)), "players_list.zip")
        read_all(stream.read())
    message = str(refusal.value)
    assert message.startswith("players_list.zip: "), message
    if kind != "truncated":  # a cut directory names no member: the archive is named
        assert "players_list_foa.txt" in message, message


def test_a_zip_reads_its_one_member_and_names_it():
    name, size, stream = fide_list_source(io.BytesIO(zipped(TXT)), "players_list.zip")
    assert (name, size) == ("players_list_foa.txt", len(TXT))
    assert len(read_all(stream.read()).problems) == 0


def test_a_zip_with_two_members_is_refused_naming_them():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", TXT)
        archive.writestr("b.txt", TXT)
    with pytest.raises(FideListFormatError, match=r"expected one list in the ZIP, found a.txt, b.txt"):
        fide_list_source(io.BytesIO(buffer.getvalue()), "two.zip")


def test_a_member_larger_than_the_limit_is_refused_after_reading_no_more_than_the_limit():
    bomb = zipped(TXT * 2000)  # compresses well: a small archive of a large member
    _name, _, stream = fide_list_source(io.BytesIO(bomb), "bomb.zip", max_bytes=len(TXT) * 10)
    with pytest.raises(FideListFormatError, match=r"bomb.zip: players_list_foa.txt: more than [\d,]+ bytes"):  # noqa: PT012
        while stream.read(1 << 16):
            pass
    _name, _, stream = fide_list_source(io.BytesIO(TXT * 20), "plain.txt", max_bytes=len(TXT) * 10)
    with pytest.raises(FideListFormatError, match=r"plain.txt: more than [\d,]+ bytes"):  # noqa: PT012
        while stream.read(1 << 16):
            pass


# ------------------------------------------------------------------------------------------ XML declarations


@pytest.mark.parametrize("encoding", ["no-such-encoding", "utf-32", "shift_jis", "x-mac-japanese"])
def test_an_xml_declaration_naming_an_unknown_or_multi_byte_encoding_is_refused(encoding):
    data = f'<?xml version="1.0" encoding="{encoding}"?>\n'.encode() + XML
    with pytest.raises(FideListFormatError, match=f"XML declaration: encoding '{encoding}'"):
        read_all(data)


# ------------------------------------------------------------------------------------------ header tokens


def test_glued_header_labels_are_split_without_recursion():
    # The pre-2012 header glues labels ("TitlFed"); thousands of them are no header, but must be refused
    # with the reader's message, not RecursionError.
    header = "ID Name " + "sk" * 5000
    with pytest.raises(FideListFormatError, match="line 1: not a FIDE rating-list header"):
        read_all((header + "\r\n").encode())


def test_header_parsing_time_grows_linearly_with_a_long_token():
    def refuse(size: int) -> Callable[[], None]:
        data = ("ID Name " + "titl" * (size // 4) + "x\r\n").encode()  # glued labels, then not one

        def run() -> None:
            with pytest.raises(FideListFormatError):
                read_all(data)

        return run

    small, large = best_times(refuse(20_000), refuse(80_000), repeats=3)

    assert large < 6 * small + 0.01, (small, large)  # 4x the input: about 4x the time, not 16x


def test_an_overlong_line_is_refused_naming_it():
    data = TXT + b"9" * (2 << 20) + b"\r\n"
    with pytest.raises(FideListFormatError, match="line 5: longer than"):
        read_all(data)


# ------------------------------------------------------------------------------------------ huge numbers


def test_a_number_of_thousands_of_digits_in_an_xml_list_is_reported_with_the_readers_message():
    data = XML.replace(b"<rating>1801</rating>", b"<rating>" + b"9" * 5000 + b"</rating>")
    reader = read_all(data)
    messages = [p.message for p in reader.problems]
    assert len(messages) == 1, messages
    assert "<rating>" in messages[0], messages
    assert "is outside 1-9999" in messages[0], messages
    assert "digits" not in messages[0]
    assert len(messages[0]) < 200

    data = XML.replace(b"<fideid>4100001</fideid>", b"<fideid>" + b"7" * 5000 + b"</fideid>")
    reader = read_all(data)
    assert [p.line for p in reader.problems] == [2]
    assert "is outside" in reader.problems[0].message


def test_a_number_of_thousands_of_digits_in_an_open_ended_txt_column_is_reported():
    # A header whose last column is a number: the value runs to the end of the line.
    data = b"ID Number      Name        SRtng\r\n4100000        Ann, Test   " + b"9" * 5000 + b"\r\n"
    reader = read_all(data)
    assert [(p.line, p.column) for p in reader.problems] == [(2, 28)]
    assert "is outside 1-9999" in reader.problems[0].message
    assert len(reader.problems[0].message) < 200
