"""Celery application: configuration comes from Django settings (CELERY_* names)."""

from celery import Celery

from federation.environment import configure_or_exit

configure_or_exit()  # a configuration error is one line naming the variable, not a traceback

app = Celery("federation")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="federation.ping")
def ping(value: int) -> int:
    """Round-trip probe used by health checks and the broker tests."""
    return value + 1
