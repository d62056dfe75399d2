"""DATABASE_REPLICA_URL: public reads on a real PostgreSQL streaming replica, writes and the admin on the primary.

The test starts its own primary and replica on 127.0.0.1 with PostgreSQL's binaries (initdb, pg_basebackup,
pg_ctl) under a temporary directory — the shared server's pg_hba allows no replication — and runs
tests/core/replica_probe.py in a process configured with both URLs."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER_BINARIES = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
BIN = SERVER_BINARIES[0].parent if SERVER_BINARIES else None

pytestmark = pytest.mark.skipif(
    BIN is None or not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
    reason="a streaming replica needs PostgreSQL's server binaries (initdb, pg_basebackup, pg_ctl) and a "
    "PostgreSQL run; the SQLite default has no replicas",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def as_postgres(*command: str, **kwargs) -> subprocess.CompletedProcess:
    """PostgreSQL's server programs refuse to run as root: run them as the postgres account."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run([*prefix, *command], check=True, capture_output=True, text=True, timeout=120, **kwargs)


@pytest.fixture(scope="module")
def primary_and_replica():
    base = Path(tempfile.mkdtemp(prefix="federation-replica-"))
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
    primary, replica = base / "primary", base / "replica"
    primary_port, replica_port = free_port(), free_port()
    started = []
    try:
        as_postgres(str(BIN / "initdb"), "-D", str(primary), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        with open(primary / "postgresql.conf", "a") as conf:
            conf.write(
                f"\nport = {primary_port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{base}'\n"
                "wal_level = replica\nmax_wal_senders = 4\nfsync = off\n"
            )
        with open(primary / "pg_hba.conf", "a") as hba:
            hba.write("\nhost replication postgres 127.0.0.1/32 trust\n")
        as_postgres(str(BIN / "pg_ctl"), "-D", str(primary), "-l", str(base / "primary.log"), "-w", "start")
        started.append(primary)
        as_postgres(
            str(BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary_port), "-U", "postgres",
            "-D", str(replica), "-R", "-X", "stream",
        )  # fmt: skip
        with open(replica / "postgresql.conf", "a") as conf:
            conf.write(f"\nport = {replica_port}\nhot_standby = on\n")
        as_postgres(str(BIN / "pg_ctl"), "-D", str(replica), "-l", str(base / "replica.log"), "-w", "start")
        started.append(replica)
        as_postgres(str(BIN / "createdb"), "-h", "127.0.0.1", "-p", str(primary_port), "-U", "postgres", "federation")
        yield (
            f"postgres://postgres@127.0.0.1:{primary_port}/federation",
            f"postgres://postgres@127.0.0.1:{replica_port}/federation",
        )
    finally:
        for cluster in reversed(started):
            as_postgres(str(BIN / "pg_ctl"), "-D", str(cluster), "-m", "immediate", "stop")
        shutil.rmtree(base, ignore_errors=True)


def test_public_reads_go_to_the_replica_and_a_lagging_replica_shows_a_whole_list(primary_and_replica):
    primary_url, replica_url = primary_and_replica
    env = dict(os.environ, DATABASE_URL=primary_url, DATABASE_REPLICA_URL=replica_url, ALLOWED_HOSTS="testserver")
    env.pop("TEST_DATABASE_SUFFIX", None)
    result = subprocess.run(
        [sys.executable, "-m", "tests.core.replica_probe"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])

    # Public pages and API reads: every query on the replica, none on the primary.
    for page in ("profile_queries", "api_queries"):
        assert seen[page]["replica"] > 0, (page, seen[page])
        assert seen[page]["default"] == 0, (page, seen[page])
    # The admin reads what officials just wrote: the primary only.
    assert seen["admin_queries"]["default"] > 0, seen["admin_queries"]
    assert seen["admin_queries"]["replica"] == 0, seen["admin_queries"]
    # A public POST (the calculator) is not a read: answered normally.
    assert seen["calculator_post_status"] == 200

    # While the replica lags, the profile shows the previous list whole: its date with its rating.
    assert seen["previous"]["list_date"] != seen["primary_now"]["list_date"]
    assert seen["lists_on_replica_during_lag"] == 0
    assert seen["during_lag"]["list_date"] == seen["previous"]["list_date"]
    assert seen["during_lag"]["rating"] == seen["previous"]["rating"]
    # Once replayed, the new list whole.
    assert seen["after_replay"]["list_date"] == seen["primary_now"]["list_date"]
    assert seen["after_replay"]["rating"] == seen["primary_now"]["rating"]
