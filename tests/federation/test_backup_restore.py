"""The backup procedure of docs/operations.md §3 restores a database identical to its source."""

import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from audit.models import AuditAction
from audit.services import audit_record
from events.models import Result
from tests.conftest import database_url_for
from tests.factories import make_event, make_game, make_participants, make_player

ROOT = Path(__file__).resolve().parents[2]


def some_records():
    players = [make_player(surname=f"Restore{i}") for i in range(4)]
    event = make_event(name="Backup Open")
    a, b, c, d = make_participants(event, players)
    make_game(event, 1, a, b, Result.WHITE_WIN)
    game = make_game(event, 1, c, d, Result.DRAW)
    game.result = Result.BLACK_WIN
    game.save()
    audit_record(None, AuditAction.EVENT_CORRECT, event, reason="restore test", before={"r": 1}, after={"r": 2})


def fingerprint_here() -> str:
    out = StringIO()
    call_command("database_fingerprint", stdout=out)
    return out.getvalue()


def fingerprint_of(database_url: str) -> str:
    env = {**os.environ, "DATABASE_URL": database_url}
    result = subprocess.run(
        [sys.executable, "manage.py", "database_fingerprint"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_fingerprint_changes_when_a_rating_relevant_value_changes(transactional_db):
    some_records()
    before = fingerprint_here()
    assert "events.Game rows=2" in before
    assert "events.HistoricalGame rows=3" in before
    from events.models import Game

    Game.objects.filter(result=Result.BLACK_WIN).update(round=2)
    assert fingerprint_here() != before


@pytest.mark.skipif(not shutil.which("pg_dump"), reason="pg_dump is not installed")
def test_pg_dump_and_pg_restore_give_an_identical_database(transactional_db, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("pg_dump/pg_restore need PostgreSQL; the SQLite backup is tested below")
    some_records()
    source = database_url_for(connection.settings_dict)
    dump = tmp_path / "federation.dump"
    subprocess.run(["pg_dump", "-Fc", "--no-owner", "--no-privileges", "-d", source, "-f", str(dump)], check=True)
    listing = subprocess.run(["pg_restore", "--list", str(dump)], capture_output=True, text=True, check=True)
    assert "TABLE DATA public events_game" in listing.stdout

    scratch = f"{connection.settings_dict['NAME']}_restore_{uuid.uuid4().hex[:8]}"
    maintenance = source.rsplit("/", 1)[0] + "/postgres"
    subprocess.run(
        ["psql", "-q", "-d", maintenance, "-c", f'CREATE DATABASE "{scratch}" TEMPLATE template0'], check=True
    )
    try:
        restored = source.rsplit("/", 1)[0] + f"/{scratch}"
        subprocess.run(
            [
                "pg_restore",
                "--no-owner",
                "--no-privileges",
                "--exit-on-error",
                "-j",
                "2",
                "-d",
                restored,
                str(dump),
            ],
            check=True,
        )
        assert fingerprint_of(restored) == fingerprint_here()
        unapplied = subprocess.run(
            [sys.executable, "manage.py", "showmigrations", "--plan"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "DATABASE_URL": restored},
        )
        assert unapplied.returncode == 0
        assert "[ ]" not in unapplied.stdout
    finally:
        subprocess.run(
            ["psql", "-q", "-d", maintenance, "-c", f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)'],
            check=True,
        )


def test_sqlite_online_backup_gives_an_identical_database(transactional_db, tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("the embedded SQLite backup applies to SQLite; PostgreSQL is tested above")
    some_records()
    copy = tmp_path / "backup.sqlite3"
    # What `sqlite3 var/db.sqlite3 ".backup FILE"` does: SQLite's online backup API.
    with sqlite3.connect(connection.settings_dict["NAME"]) as live, sqlite3.connect(copy) as target:
        live.backup(target)
    assert fingerprint_of(f"sqlite:///{copy}") == fingerprint_here()
