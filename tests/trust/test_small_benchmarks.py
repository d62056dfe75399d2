"""The benchmarks at a small size, so that they cannot rot: bench/load.py (gunicorn serving real requests idle
and during a real publication: no error, no request waiting on a lock) and bench/publication_kills.py (a
publication killed at random points: no partial list, identical retries) on PostgreSQL; bench/import_fide_list.py
(a generated FIDE list imported twice) on the database the tests run on."""

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]

ON_POSTGRESQL = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
postgresql_only = pytest.mark.skipif(
    not ON_POSTGRESQL,
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


def bench(script: str, url: str | None, *args: str) -> list[str]:
    """The script's output lines; ``url`` None: no DATABASE_URL (a benchmark's own SQLite file)."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    result = subprocess.run(
        [sys.executable, f"bench/{script}", *args],
        env=env if url is None else dict(env, DATABASE_URL=url),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    return result.stdout.splitlines()


def line(lines: list[str], start: str) -> list[str]:
    return next(text for text in lines if text.strip().startswith(start)).split()


@postgresql_only
def test_load_benchmark_runs_small_with_no_errors_and_no_lock_waits():
    with scratch_database("load") as url:
        lines = bench("load.py", url, "--players", "1500", "--games", "800", "--seconds", "2", "--clients", "3")
    assert "created: True" in " ".join(line(lines, "publication:")), lines
    assert line(lines, "errors (both phases)")[3] == "0", lines
    assert line(lines, "samples with a session waiting on a lock")[8] == "0", lines
    assert int(line(lines, "idle ")[1].replace(",", "")) > 0, lines


@postgresql_only
def test_publication_kills_benchmark_runs_small_with_no_partial_list_and_identical_retries():
    with scratch_database("kills") as url:
        lines = bench("publication_kills.py", url, "--kills", "2", "--players", "1500", "--games", "800")
    assert line(lines, "publication killed at random points")[-1] == "2", lines
    assert line(lines, "partial lists left")[3] == "0", lines
    assert line(lines, "retries identical to the undisturbed run")[6] == "2", lines


def test_fide_list_import_benchmark_runs_small_and_prints_its_figures_against_the_targets():
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(scratch_database("fide")) if ON_POSTGRESQL else None
        lines = bench("import_fide_list.py", url, "--rows", "2000")
    target = "60 s (PostgreSQL)" if ON_POSTGRESQL else "120 s (SQLite)"
    assert f"under {target}, peak RSS under 1,024 MB" in " ".join(line(lines, "targets at 1,930,000 rows:")), lines
    first, second = line(lines, "first import"), line(lines, "second import")
    assert "(2,000" in first and "created," in first and float(first[6].replace(",", "")) > 0, lines
    assert "(0" in second and "2,000" in second[second.index("created,") + 1], lines
    projected = [text for text in lines if text.strip().startswith("projected at 1,930,000 rows:")]
    assert len(projected) == 2 and all("peak RSS so far" in text for text in projected), lines
