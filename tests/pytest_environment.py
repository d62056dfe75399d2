"""Loaded with `-p` (pyproject addopts) before pytest-django reads the settings.

Each test run gets its own var/ folder (SQLite test database, filesystem broker), PostgreSQL test database
name and default Celery queue, so a running dev server or a second test run on the same machine never
shares a database or consumes the other's Celery messages. A throwaway SECRET_KEY unless one is set.
"""

import atexit
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = f"run{os.getpid()}"

if "FEDERATION_VAR_DIR" not in os.environ:
    var_dir = ROOT / "var" / "test" / RUN
    os.environ["FEDERATION_VAR_DIR"] = str(var_dir)
    atexit.register(shutil.rmtree, var_dir, ignore_errors=True)
os.environ.setdefault("TEST_DATABASE_SUFFIX", f"_{RUN}")
os.environ.setdefault("CELERY_TASK_DEFAULT_QUEUE", f"test-{RUN}")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
