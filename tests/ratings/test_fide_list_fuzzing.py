"""Hostile FIDE lists are refused with a message, never a crash and never a partial import.

Property-based (hypothesis): a real FIDE list mutated byte by byte and line by line (TXT and XML), through the
reader and the import (the seeds and mutations of tests/mutations.py).
"""

from __future__ import annotations

import datetime
import io
import itertools

from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from tests.mutations import fide_list_seed, fuzz, mutated

# -------------------------------------------------------------------------------------------- FIDE lists


def test_fide_list_reader_exists_with_its_documented_api():
    from ratings.fide_list import FideListRow, iter_fide_list

    rows = list(iter_fide_list(io.BytesIO(fide_list_seed())))
    assert len(rows) == 6
    assert all(isinstance(r, FideListRow) for r in rows)
    assert rows[1].title == "FM"
    assert rows[3].inactive


@fuzz(600)
@given(data=mutated([fide_list_seed()]), as_xml=st.booleans())
def test_mutated_fide_lists_never_crash_the_reader(data, as_xml):
    from ratings.fide_list import FideListFormatError, FideListReader, FideListRow, write_fide_list_xml

    if as_xml:
        # The same rows as XML, mutated at the byte level.
        from ratings.fide_list import iter_fide_list

        rows = list(iter_fide_list(io.BytesIO(fide_list_seed())))
        xml = "".join(write_fide_list_xml(rows)).encode()
        cut = len(data) % max(len(xml), 1)
        data = xml[:cut] + data[:64] + xml[cut:]
    reader = FideListReader(io.BytesIO(data))
    try:
        rows = list(reader)
    except FideListFormatError as refusal:  # a refusal is one of the two allowed outcomes, not required
        assert str(refusal).strip()  # noqa: PT017
        return
    for row in rows:
        assert isinstance(row, FideListRow)
        assert 0 < row.fide_id < 2**63, row  # fits the database's bigint
        for rating_type in ("standard", "rapid", "blitz"):
            rating = row.rating(rating_type)
            if rating is not None and rating.rating is not None:
                assert 0 < rating.rating < 2**15, row  # fits the entry's smallint
    for problem in reader.problems:
        assert problem.message.strip()


def database_state() -> dict[str, int]:
    from players.models import Federation, Player
    from ratings.models import PlayerRating, RatingList, RatingListEntry

    return {
        model.__name__: model.objects.count()
        for model in (Federation, Player, RatingList, RatingListEntry, PlayerRating)
    }


_list_dates = itertools.count()


@fuzz(80)
@given(data=mutated([fide_list_seed(12)]))
def test_fide_list_import_of_a_mutated_file_is_all_or_nothing(db, data):
    from ratings.services.fide_list_import import fide_list_import

    list_date = datetime.date(2000, 1, 1) + datetime.timedelta(days=next(_list_dates))
    before = database_state()
    try:
        outcome = fide_list_import(io.BytesIO(data), list_date=list_date, source_name="players_list_foa.txt")
    except ValidationError as refusal:  # a refusal is one of the two allowed outcomes, not required
        assert "".join(refusal.messages).strip()  # noqa: PT017
        assert database_state() == before, "a refused import left rows behind"
        return
    after = database_state()
    written = sum(outcome.entries.values())
    assert after["RatingListEntry"] - before["RatingListEntry"] == written
    assert after["RatingList"] - before["RatingList"] == len(outcome.rating_lists)


def test_nul_in_a_fide_list_name_is_refused_or_cleaned_never_a_crash(db):
    from players.models import Player
    from ratings.services.fide_list_import import fide_list_import

    data = fide_list_seed(3).replace(b"Player1, Test", b"Play\x00r1, Test")
    before = database_state()
    try:
        fide_list_import(io.BytesIO(data), list_date=datetime.date(1999, 1, 1), source_name="players_list_foa.txt")
    except ValidationError:
        assert database_state() == before
        return
    # (compared in Python: PostgreSQL refuses a NUL even as a query parameter)
    assert all("\x00" not in name for name in Player.objects.values_list("surname", flat=True))
