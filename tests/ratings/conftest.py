"""Fixtures for rating-list tests."""

import time

import pytest

from tests.ratings.simulated_federation import simulated  # noqa: F401  (a fixture: the laboratory's tests use it)


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
    from tests.conftest import WorkerProcess, launch_worker, stop_worker

    started: list[WorkerProcess] = []

    def start(queue: str, app: str = "federation", **env_overrides: str) -> WorkerProcess:
        """A worker of Celery app ``app`` (a module path; tests.ratings.pausing_worker pauses publications)."""
        number = len(started) + 2
        worker = launch_worker(
            queue, f"{queue}-{number}", tmp_path / f"worker-{number}.log", app=app, env_overrides=env_overrides
        )
        started.append(worker)
        return worker

    yield start
    for worker in started:
        stop_worker(worker)
