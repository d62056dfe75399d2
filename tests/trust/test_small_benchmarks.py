"""The PostgreSQL benchmarks at a small size, so that they cannot rot: bench/load.py (gunicorn serving real
requests idle and during a real publication: no error, no request waiting on a lock) and
bench/publication_kills.py (a publication killed at random points: no partial list, identical retries)."""

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
    reason="these benchmarks measure PostgreSQL (they copy the benchmark database with CREATE DATABASE ... "
    "TEMPLATE, sample pg_stat_activity and terminate backends); the SQLite default has none of that",
)


@contextlib.contextmanager
def scratch_database(kind: str):
    url = urlparse(os.environ["DATABASE_URL"])
    name = f"bench_{kind}_ci_{os.getpid()}"
    admin_url = url._replace(path="/postgres").geturl()
    drops = [f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)' for n in (name, f"{name}_load", f"{name}_kill")]
    try:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(drops[0])
            admin.execute(f'CREATE DATABASE "{name}"')
        yield url._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            for drop in drops:
                admin.execute(drop)


def bench(script: str, url: str, *args: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, f"bench/{script}", *args],
        env=dict(os.environ, DATABASE_URL=url),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    return result.stdout.splitlines()


def line(lines: list[str], start: str) -> list[str]:
    return next(text for text in lines if text.strip().startswith(start)).split()


def test_load_benchmark_runs_small_with_no_errors_and_no_lock_waits():
    with scratch_database("load") as url:
        lines = bench("load.py", url, "--players", "1500", "--games", "800", "--seconds", "2", "--clients", "3")
    assert "created: True" in " ".join(line(lines, "publication:")), lines
    assert line(lines, "errors (both phases)")[3] == "0", lines
    assert line(lines, "samples with a session waiting on a lock")[8] == "0", lines
    assert int(line(lines, "idle ")[1].replace(",", "")) > 0, lines


def test_publication_kills_benchmark_runs_small_with_no_partial_list_and_identical_retries():
    with scratch_database("kills") as url:
        lines = bench("publication_kills.py", url, "--kills", "2", "--players", "1500", "--games", "800")
    assert line(lines, "publication killed at random points")[-1] == "2", lines
    assert line(lines, "partial lists left")[3] == "0", lines
    assert line(lines, "retries identical to the undisturbed run")[6] == "2", lines


PG_SERVER_BINARIES = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
RUNUSER_FOUND = any((Path(folder) / "runuser").exists() for folder in os.environ.get("PATH", "").split(os.pathsep))


@pytest.mark.skipif(
    not PG_SERVER_BINARIES or (os.geteuid() == 0 and not RUNUSER_FOUND),
    reason="bench/pg_settings.py restarts a private PostgreSQL cluster with each setting: it needs PostgreSQL's "
    "server binaries (initdb, pg_ctl under /usr/lib/postgresql) and, as root, runuser to run them as postgres",
)
def test_pg_settings_benchmark_runs_small_and_prints_its_table():
    import re

    # One pair per candidate at a tiny size: the table's shape, not its figures (noise at this size).
    lines = bench("pg_settings.py", os.environ["DATABASE_URL"], "--players", "1500", "--games", "800", "--rounds", "1")
    header = next(number for number, text in enumerate(lines) if text.startswith("setting "))
    assert lines[header].split()[-1] == "verdict" and set(lines[header + 1]) == {"-"}, lines
    rows = {text.split()[0]: text for text in lines[header + 2 :] if text.strip()}
    assert list(rows) == [
        "shared_buffers", "max_wal_size", "checkpoint_timeout", "wal_compression", "synchronous_commit",
        "maintenance_work_mem", "work_mem", "wal_level",
    ], lines  # fmt: skip
    for row in rows.values():
        # baseline s, with s, with/base, pairs faster, p, both ratios to the bare I/O, peak MB; no verdict from 1 pair
        figures = r" \d+\.\d\d +\d+\.\d\d +\d+\.\d{3} +[01]/1 +\d\.\d\d +\d+\.\d\d +\d+\.\d\d +[\d,]+/[\d,]+  "
        assert re.search(figures + r"none \(fewer than 3 pairs\)$", row), row
    # The private cluster is removed at the end (no --keep-cluster).
    data = Path(line(lines, "private cluster:")[2])
    assert data.parent.name.startswith("federation-pgsettings-") and not data.parent.exists(), data
