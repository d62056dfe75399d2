"""A Celery worker entry for tests only: ``celery -A tests.ratings.pausing_worker worker`` is the project's worker
(federation.celery) whose publications hold their transaction open for PAUSE_SECONDS between writing the entries
and writing the rating changes, so a test can kill the worker in the middle of a publication.

The pause wraps ratings.services.publication.write._write_changes when the worker starts (worker_init: only in a worker
process, never in the test process that imports PAUSED); production code has no hook for it.
"""

import os
import sys
import time
from typing import Any

import django
from celery.signals import worker_init

from federation.celery import app

__all__ = ["PAUSED", "app"]

PAUSED = "publication paused: entries written, rating changes not yet"  # what the worker prints when it pauses
PAUSE_SECONDS = float(os.environ.get("TEST_PUBLICATION_PAUSE_SECONDS", "60"))


@worker_init.connect
def pause_publications(**kwargs: Any) -> None:
    django.setup()  # (idempotent) the publication module needs the models
    from ratings.services.publication import write

    write_changes = write._write_changes

    def pausing(*args: Any, **kwargs: Any) -> None:
        print(f"{PAUSED} (pausing {PAUSE_SECONDS} s)", file=sys.__stdout__, flush=True)
        time.sleep(PAUSE_SECONDS)
        write_changes(*args, **kwargs)

    write._write_changes = pausing
