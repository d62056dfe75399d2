"""The rating officer's commands: thin wrappers that print one line per list and refuse with a reason."""

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from django.core.management import call_command, get_commands, load_command_class
from django.core.management.base import CommandError
from django.db import connection

from events.models import Event, EventStatus, EventSystem
from players.models import Player
from ratings.models import RatingList, RatingListEntry
from tests.conftest import ROOT, database_url_for
from tests.ratings.scenarios import MAR, build_federation


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.parametrize("name", ["publish_rating_list", "export_rating_list", "simulate_federation"])
def test_help_documents_every_option(name):
    command = load_command_class(get_commands()[name], name)
    parser = command.create_parser("manage.py", name)
    own = [
        a
        for a in parser._actions
        if a.dest
        not in {
            "help",
            "version",
            "verbosity",
            "settings",
            "pythonpath",
            "traceback",
            "no_color",
            "force_color",
            "skip_checks",
        }
    ]
    assert own
    assert all(action.help for action in own)
    assert command.help


@pytest.mark.django_db
def test_publish_rating_list_dry_run_reports_and_writes_nothing_then_publishes_once():
    build_federation()
    dry = run("publish_rating_list", "--date", "2026-03-01", "--rating-type", "standard", "--dry-run")
    assert "dry run: 7 entries, 6 rated, 1 new ratings, 0 below the floor, 2 events, 17 games" in dry
    assert not RatingList.objects.filter(list_date=MAR).exists()
    assert set(Event.objects.values_list("status", flat=True)) == {EventStatus.SUBMITTED}
    published = run("publish_rating_list", "--date", "2026-03-01")
    assert "standard 2026-03-01: published Standard 2026-03-01" in published
    assert "rapid 2026-03-01: nothing to publish" in published
    again = run("publish_rating_list", "--date", "2026-03-01", "--rating-type", "standard")
    assert "was already published" in again
    assert "nothing changed" in again
    assert RatingList.objects.filter(list_date=MAR).count() == 1


@pytest.mark.django_db
def test_publish_rating_list_refuses_with_a_reason():
    build_federation()
    with pytest.raises(CommandError, match="2026-02-01 is not a standard list date"):
        run("publish_rating_list", "--date", "2026-02-01", "--rating-type", "standard")
    with pytest.raises(CommandError, match="nothing to publish for the blitz list"):
        run("publish_rating_list", "--date", "2026-03-01", "--rating-type", "blitz")


@pytest.mark.django_db(transaction=True)
def test_a_refusal_exits_non_zero_with_one_line():
    build_federation()
    env = {**os.environ, "DATABASE_URL": database_url_for(connection.settings_dict)}
    process = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "publish_rating_list",
            "--date",
            "2026-02-01",
            "--rating-type",
            "standard",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 1
    assert process.stderr.strip().splitlines() == [
        "CommandError: standard 2026-02-01: 2026-02-01 is not a standard list date (lists on the 1st of "
        "months "
        "1,3,5,7,9,11; the latest list date up to it is 2026-01-01)"
    ]
    bad_date = subprocess.run(
        [sys.executable, "manage.py", "publish_rating_list", "--date", "1 March"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad_date.returncode == 2
    assert "expected a date YYYY-MM-DD, got '1 March'" in bad_date.stderr


@pytest.mark.django_db
def test_export_rating_list_writes_fide_txt_csv_and_xml(tmp_path):
    _everyone, _jan_ratings, _ = build_federation()
    run("publish_rating_list", "--date", "2026-03-01", "--rating-type", "standard")
    rated = RatingListEntry.objects.filter(rating_list__list_date=MAR, rating__isnull=False).order_by("-rating")
    best = rated.first()
    for fmt in ("txt", "csv", "xml"):
        target = tmp_path / f"list.{fmt}"
        run(
            "export_rating_list",
            "--date",
            "2026-03-01",
            "--rating-type",
            "standard",
            "--format",
            fmt,
            "-o",
            str(target),
        )
        text = target.read_bytes().decode("utf-8")
        if fmt == "txt":
            lines = text.split("\r\n")
            assert lines[0].startswith("ID Number")
            assert "MAR26" in lines[0]
            assert lines[1].startswith(f"{best.player.id_number:<15}")
            assert f" {best.rating} " in lines[1]
            assert len([line for line in lines[1:] if line]) == rated.count()
        elif fmt == "csv":
            assert text.splitlines()[0].startswith("fide_id,name")
            assert len(text.splitlines()) == rated.count() + 1
        else:
            root = ET.fromstring(text)
            assert [int(p.findtext("rating")) for p in root] == list(rated.values_list("rating", flat=True))
    with pytest.raises(CommandError, match="no published standard list of 2026-05-01"):
        run("export_rating_list", "--date", "2026-05-01", "--rating-type", "standard", "--format", "csv")


@pytest.mark.django_db
def test_simulate_federation_submits_events_for_the_list_dates_and_refuses_a_second_run():
    out = run("simulate_federation", "--players", "60", "--months", "4", "--seed", "7")
    assert "simulated 60 players" in out
    assert Player.objects.count() == 60
    starting = RatingList.objects.get()
    assert starting.is_imported
    assert starting.entry_count > 30
    events = Event.objects.all()
    assert events.exists()
    assert set(events.values_list("status", flat=True)) == {EventStatus.SUBMITTED}
    assert all(e.end_date > starting.list_date for e in events)
    with pytest.raises(CommandError, match="already has standard rating lists"):
        run("simulate_federation", "--players", "60", "--months", "4", "--seed", "7")


@pytest.mark.worker
def test_demo_federation_publishes_the_simulated_lists_through_the_worker(celery_worker_process):
    out = run("demo_federation")
    assert "simulated 300 players" in out, out
    lists = RatingList.objects.filter(is_imported=False).order_by("list_date")
    assert lists.count() >= 6, out
    assert all(rl.is_current for rl in lists)
    assert "published standard" in out
    # the simulation's events are all rated; the demo league's slices were submitted after it, for the next list
    simulated = Event.objects.exclude(system=EventSystem.TEAM)
    assert not simulated.filter(status=EventStatus.SUBMITTED, end_date__lte=lists.last().closing_date).exists()
    assert Event.objects.filter(system=EventSystem.TEAM, status=EventStatus.SUBMITTED).exists(), out
    assert "ratings.publish_rating_list" in celery_worker_process.output()
    assert "database already has players" in run("demo_federation")
