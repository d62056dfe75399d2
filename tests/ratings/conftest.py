"""Fixtures for rating-list tests."""

import time

import pytest


def wait_for(condition, worker, timeout: float = 90.0, what: str = "the task"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if worker.process.poll() is not None:
            pytest.fail(f"worker exited while waiting for {what}:\n{worker.output()[-3000:]}")
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}; worker log:\n{worker.output()[-3000:]}")


@pytest.fixture
def start_worker(tmp_path):
    """Start worker processes like tests/conftest.py's (same database, given queue, app and environment); stopped
    at teardown."""
    import os
    import subprocess
    import sys

    from django.db import connection

    from tests.conftest import ROOT, WorkerProcess, database_url_for

    started = []

    def start(queue: str, app: str = "federation", **env_overrides: str) -> WorkerProcess:
        """A worker of Celery app ``app`` (a module path; tests.ratings.pausing_worker pauses publications)."""
        env = dict(os.environ)
        env.update(env_overrides)
        env["DATABASE_URL"] = database_url_for(connection.settings_dict)
        env["PYTHONUNBUFFERED"] = "1"
        log = tmp_path / f"worker-{len(started) + 2}.log"
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            app,
            "worker",
            "--pool",
            "solo",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-Q",
            queue,
            "-n",
            f"{queue}-{len(started) + 2}@%h",
        ]
        with open(log, "wb") as handle:
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
        worker = WorkerProcess(process, queue, log)
        started.append(worker)
        deadline = time.monotonic() + 60
        while "ready." not in worker.output():
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"Celery worker did not start:\n{worker.output()[-3000:]}")
            time.sleep(0.2)
        return worker

    yield start
    for worker in started:
        if worker.process.poll() is None:
            worker.process.terminate()
            try:
                worker.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
