"""`/health/` for load balancers: 200 when the database answers, the broker accepts a connection and no
migration is pending; 503 otherwise, naming what failed (django-health-check renders HTML, text or JSON by
the Accept header or ``?format=json``).

Lives in the project layer: it reads the Celery app (federation.celery) and every app's migrations.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse
from health_check.base import HealthCheck
from health_check.checks import Database
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView
from kombu.exceptions import OperationalError

# A load balancer probes every few seconds; each check must answer well within its probe interval.
BROKER_TIMEOUT_SECONDS = 3


@dataclasses.dataclass
class Broker(HealthCheck):
    """The Celery broker accepts a connection (Redis in production; the filesystem folder on the default)."""

    timeout: datetime.timedelta = dataclasses.field(
        default=datetime.timedelta(seconds=BROKER_TIMEOUT_SECONDS), repr=False
    )

    def run(self) -> None:
        from federation.celery import app

        try:
            # The broker the project is configured with (the settings), whatever another caller set on the app.
            with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
                connection.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
        except (OperationalError, OSError) as error:
            raise ServiceUnavailable(f"broker unreachable: {type(error).__name__}") from error


@dataclasses.dataclass
class Migrations(HealthCheck):
    """Every migration of the code that is running has been applied (a deploy ran `migrate`)."""

    alias: str = "default"

    def run(self) -> None:
        connection = connections[self.alias]
        try:
            executor = MigrationExecutor(connection)
            pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
        except DatabaseError as error:
            raise ServiceUnavailable("cannot read the applied migrations") from error
        finally:
            connection.close()  # this runs in a worker thread of the check: leave no connection behind
        if pending:
            names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _ in pending[:3])
            raise ServiceUnavailable(f"{len(pending)} migration(s) not applied: {names}")


class HealthView(HealthCheckView):
    checks = (Database, Broker, Migrations)

    async def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response: HttpResponse = await super().get(request, *args, **kwargs)
        if response.status_code == 500:
            # Load balancers read 503 as "take this node out of rotation"; the library answers 500.
            response.status_code = 503
        return response
