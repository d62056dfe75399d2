"""A real worker process receives a task through the configured broker and returns its result."""

import pytest
from django.conf import settings

from federation.celery import ping


@pytest.mark.worker
def test_worker_process_returns_task_result_through_the_broker(celery_worker_process):
    result = ping.apply_async(args=[41], queue=celery_worker_process.queue)
    assert result.get(timeout=60) == 42, celery_worker_process.output()[-2000:]
    # The round trip went through the broker the environment chose (serverless by default, Redis in CI's
    # second run), not an in-process shortcut.
    assert not settings.CELERY_TASK_ALWAYS_EAGER
    assert f"Task federation.ping[{result.id}] received" in celery_worker_process.output()
