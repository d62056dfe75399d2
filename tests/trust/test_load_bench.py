"""bench/load.py at a small size, so that the benchmark cannot rot: gunicorn (the production command) serves
real requests idle and during a real publication, with no error and no request waiting on a lock."""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import psycopg
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
    reason="bench/load.py measures PostgreSQL (it copies the benchmark database with CREATE DATABASE ... TEMPLATE "
    "and samples pg_stat_activity for lock waits); the SQLite default has neither",
)
def test_load_benchmark_runs_small_with_no_errors_and_no_lock_waits():
    url = urlparse(os.environ["DATABASE_URL"])
    name = f"bench_load_ci_{os.getpid()}"
    bench_url = url._replace(path=f"/{name}").geturl()
    admin_url = url._replace(path="/postgres").geturl()
    try:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')
        result = subprocess.run(
            [sys.executable, "bench/load.py", "--players", "1500", "--games", "800"]
            + ["--seconds", "2", "--clients", "3", "--workers", "2"],
            env=dict(os.environ, DATABASE_URL=bench_url),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        lines = result.stdout.splitlines()
        assert any(line.startswith("publication:") and "created: True" in line for line in lines), result.stdout
        errors = next(line for line in lines if line.startswith("errors (both phases)"))
        assert errors.split()[3] == "0", result.stdout
        waits = next(line for line in lines if line.startswith("samples with a session waiting on a lock"))
        assert waits.split()[8] == "0", result.stdout
        idle = next(line for line in lines if line.startswith("idle "))
        assert int(idle.split()[1].replace(",", "")) > 0, result.stdout
    finally:
        connection.close()
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
