"""The Celery app bench/broker_outage.py's worker runs: this project's app, unchanged, plus a record of every
task execution (task id, name, arguments, final state) appended as a JSON line to $BROKER_OUTAGE_TASK_LOG, so
that the benchmark counts exactly which outbox rows reached a worker and ran, and how often.

    celery -A bench.broker_outage_worker worker ...
"""

import json
import os

from celery.signals import task_postrun

from federation.celery import app

__all__ = ["app"]

TASK_LOG = os.environ["BROKER_OUTAGE_TASK_LOG"]


@task_postrun.connect
def record_execution(task_id=None, task=None, args=None, state=None, **kwargs):
    line = json.dumps({"id": task_id, "name": getattr(task, "name", ""), "args": list(args or ()), "state": state})
    with open(TASK_LOG, "a", encoding="utf-8") as handle:  # the solo pool: one execution at a time
        handle.write(line + "\n")
