"""Shared fixtures. Tests run on the database named by DATABASE_URL (default: SQLite under var/test)."""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SHARED_TRF = ROOT.parent / "shared" / "data" / "trf"


def database_url_for(settings_dict: dict) -> str:
    """The DATABASE_URL that points another process at the database this test process uses."""
    if settings_dict["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings_dict['NAME']}"
    user = settings_dict.get("USER") or ""
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{settings_dict['NAME']}"


class WorkerProcess:
    def __init__(self, process: subprocess.Popen, queue: str, log: Path):
        self.process = process
        self.queue = queue
        self.log = log

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@pytest.fixture
def celery_worker_process(transactional_db, settings, tmp_path):
    """A real Celery worker process on the configured broker, reading the test database.

    It consumes a queue private to this test (``worker.queue``) plus the default queue, so tasks queued by
    services (``.delay()`` after commit) reach it. Stopped (SIGTERM, then SIGKILL) at teardown.
    """
    from django.db import connection

    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ)
    env["DATABASE_URL"] = database_url_for(connection.settings_dict)
    env["PYTHONUNBUFFERED"] = "1"
    log = tmp_path / "worker.log"
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "federation",
        "worker",
        "--pool",
        "solo",
        "--loglevel",
        "INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-Q",
        f"{queue},{settings.CELERY_TASK_DEFAULT_QUEUE}",
        "-n",
        f"{queue}@%h",
    ]
    with open(log, "wb") as handle:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    worker = WorkerProcess(process, queue, log)
    deadline = time.monotonic() + 60
    while "ready." not in worker.output():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"Celery worker did not start:\n{worker.output()[-3000:]}")
        time.sleep(0.2)
    yield worker
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
