"""Celery application: configuration comes from Django settings (CELERY_* names)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "federation.settings")

app = Celery("federation")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="federation.ping")
def ping(value: int) -> int:
    """Round-trip probe used by health checks and the broker tests."""
    return value + 1
