"""Imports never crash and never hang (issue 20), through the commands and services an official runs:
damaged archives, size limits, numbers past their field, time linear in the input, and a small run of the
trust command (bench/trust.py) so that it cannot rot."""

from __future__ import annotations

import io
import time
from collections.abc import Callable

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from events.models import Event, Game, Participant
from players.models import Federation, Player
from ratings.fide_list import FideListReader
from ratings.models import RatingList, RatingListEntry
from tests.mutations import SMALL_TRF, ZIP_DAMAGE, damage_zip, fide_list_seed, zipped
from tests.timing import best_times

pytestmark = pytest.mark.django_db

MODELS = (Event, Participant, Game, RatingList, RatingListEntry, Player, Federation)


def state() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in MODELS)


# ------------------------------------------------------------------------------------------ FIDE lists


@pytest.mark.parametrize("kind", ZIP_DAMAGE)
def test_import_fide_list_refuses_a_damaged_zip_naming_it_and_saves_nothing(tmp_path, kind):
    archive = tmp_path / "players_list.zip"
    archive.write_bytes(damage_zip(zipped(fide_list_seed(400)), kind))
    before = state()

    with pytest.raises(CommandError) as refusal:
        call_command("import_fide_list", str(archive), "--list-date", "2026-10-01", "--quiet")

    assert "players_list.zip" in str(refusal.value)
    if kind != "truncated":  # a cut directory names no member
        assert "players_list_foa.txt" in str(refusal.value)
    assert state() == before


def test_import_fide_list_refuses_a_file_above_its_limit_reading_no_more(tmp_path, settings):
    settings.FIDE_LIST_MAX_BYTES = 4096
    big = tmp_path / "players_list_foa.txt"
    big.write_bytes(fide_list_seed(200))
    bomb = tmp_path / "players_list.zip"
    bomb.write_bytes(zipped(fide_list_seed(200)))
    before = state()

    for path, named in ((big, "players_list_foa.txt"), (bomb, "players_list.zip: players_list_foa.txt")):
        with pytest.raises(CommandError, match=f"{named}: more than 4,096 bytes; a FIDE list may have at most"):
            call_command("import_fide_list", str(path), "--list-date", "2026-10-01", "--quiet")
    assert state() == before


def test_reading_a_fide_list_takes_time_linear_in_its_rows():
    small_list, large_list = fide_list_seed(5_000), fide_list_seed(20_000)

    def read(data: bytes) -> Callable[[], int]:
        return lambda: sum(1 for _ in FideListReader(io.BytesIO(data)))

    small, large = best_times(read(small_list), read(large_list))

    assert large < 6 * small, (small, large)  # 4x the rows: about 4x the time, not 16x


# ------------------------------------------------------------------------------------------ TRF


@pytest.mark.parametrize("count", [str(2**63), "40000"])
def test_a_trf_round_count_past_the_field_is_refused_by_line_not_by_the_database(count):
    from events.trf_services import event_import_trf

    data = SMALL_TRF.replace("092 ", f"XXR {count}\r\n092 ").encode()
    before = state()

    outcome = event_import_trf(data, file_name="rounds.trf", user=None)

    assert outcome.event is None
    assert state() == before
    (error,) = outcome.errors
    assert (error.line, error.column) == (8, 5)
    assert "is outside 0-32767" in error.message


def test_import_trf_refuses_a_file_above_the_upload_limit(tmp_path, settings):
    settings.TRF_UPLOAD_MAX_BYTES = 2048
    path = tmp_path / "big.trf"
    path.write_bytes(SMALL_TRF.encode() * 3)
    before = state()

    with pytest.raises(CommandError, match=r"big.trf has more than 2,048 bytes; a TRF file may have at most 2,048"):
        call_command("import_trf", str(path))
    assert state() == before


def test_import_trf_reads_no_more_than_the_limit_of_an_endless_file(settings):
    settings.TRF_UPLOAD_MAX_BYTES = 2048
    started = time.monotonic()
    with pytest.raises(CommandError, match="zero has more than 2,048 bytes"):
        call_command("import_trf", "/dev/zero")
    assert time.monotonic() - started < 5


# ------------------------------------------------------------------------------------------ the trust command


def test_the_trust_command_refuses_every_hostile_input_cleanly(tmp_path):
    from bench.trust import CHECKS, parse_args, run_checks

    options = parse_args(["--inputs", "200", "--seed", "7", "--keep", str(tmp_path)])
    (row,) = run_checks(options, [check for check in CHECKS if check.name == "hostile files"])

    assert row.inputs == 200
    assert (row.unhandled, row.slow, row.partial) == (0, 0, 0), row.examples
    assert 0 < row.accepted < row.inputs  # some mutated files import, most are refused
