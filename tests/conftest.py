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


def launch_worker(
    queues: str, name: str, log: Path, *, app: str = "federation", env_overrides: dict[str, str] | None = None
) -> WorkerProcess:
    """A real Celery worker process of ``app`` (a module path) consuming ``queues`` (comma-separated), on the
    test database; returns once it is ready (fails the test if it does not start within a minute)."""
    from django.db import connection

    env = {**os.environ, **(env_overrides or {})}
    env["DATABASE_URL"] = database_url_for(connection.settings_dict)
    env["PYTHONUNBUFFERED"] = "1"
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
        queues,
        "-n",
        f"{name}@%h",
    ]
    with open(log, "wb") as handle:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    worker = WorkerProcess(process, queues.split(",")[0], log)
    deadline = time.monotonic() + 60
    while "ready." not in worker.output():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"Celery worker did not start:\n{worker.output()[-3000:]}")
        time.sleep(0.2)
    return worker


def stop_worker(worker: WorkerProcess) -> None:
    """SIGTERM, then SIGKILL after 20 s; nothing if it has already exited."""
    if worker.process.poll() is not None:
        return
    worker.process.terminate()
    try:
        worker.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.process.kill()
        worker.process.wait()


@pytest.fixture
def celery_worker_process(transactional_db, settings, tmp_path):
    """A real Celery worker process on the configured broker, reading the test database.

    It consumes a queue private to this test (``worker.queue``) plus the default queue, so tasks queued by
    services (``.delay()`` after commit) reach it. Stopped (SIGTERM, then SIGKILL) at teardown.
    """
    queue = f"test-{uuid.uuid4().hex[:8]}"
    worker = launch_worker(f"{queue},{settings.CELERY_TASK_DEFAULT_QUEUE}", queue, tmp_path / "worker.log")
    yield worker
    stop_worker(worker)


@pytest.fixture(autouse=True)
def _default_language_per_test():
    """Each test starts in the site's default language: a request in Spanish leaves Spanish active in the
    thread (LocaleMiddleware activates, nothing deactivates), and a later test reading a lazy label would
    depend on the order the tests ran in."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _current_lists_bound_per_test():
    """Current ratings' partition bound (ratings.models.current_lists_bound) is kept per process: each test
    reads its own database's lists again (a test database's sequences may start again between tests)."""
    from ratings.models import current_lists_bound_forget

    current_lists_bound_forget()
    return


def _bound_read_first(assert_queries):
    """Query counts pinned per request leave out the current-lists bound: it is read once per process and kept
    (ratings.models.current_lists_bound), not once per request; read it before counting as a running site has."""

    def counted(*args, **kwargs):
        from django.db import connection

        from ratings.models import current_lists_bound

        current_lists_bound(kwargs.get("connection", connection).alias)
        return assert_queries(*args, **kwargs)

    return counted


@pytest.fixture
def django_assert_num_queries(django_assert_num_queries):
    return _bound_read_first(django_assert_num_queries)


@pytest.fixture
def django_assert_max_num_queries(django_assert_max_num_queries):
    return _bound_read_first(django_assert_max_num_queries)


@pytest.fixture
def browser(monkeypatch):
    """Headless Chromium (tests/browsers.py), closed after the test."""
    from django.db import connections

    from tests.browsers import CHROMIUM

    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in requirements-dev.txt")
    # Playwright's sync API runs an event loop in this thread; the ORM calls of the test itself are synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield browser
        # ORM calls made while Playwright's loop runs get their own connection (asgiref's context-local
        # storage); close it here, in the same context, or PostgreSQL cannot drop the test database.
        connections.close_all()
        browser.close()
