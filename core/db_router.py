"""Public reads on a PostgreSQL streaming replica, everything else on the primary (``DATABASE_REPLICA_URL``).

- ``PublicReadsOnReplicaMiddleware`` marks a request as a *public read* — GET or HEAD, not under ``/admin/``
  (officials must read what they have just written) — and runs it in one REPEATABLE READ, read-only
  transaction on the replica: every query of the page sees the same replayed snapshot, so a page read while
  the replica replays a publication shows the list before it or after it, never half of each.
- ``ReplicaRouter`` sends the ORM's reads of a public read to the ``replica`` alias and everything else —
  every write, the admin, Celery tasks, commands — to ``default``. Nothing is ever migrated on the replica
  (a hot standby refuses writes).

A replica lags its primary by the time it takes to replay: a profile read just after a publication may show
the previous list for that long, whole. With no ``DATABASE_REPLICA_URL`` neither class is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.db import transaction
from django.http import HttpRequest, HttpResponse

REPLICA = "replica"
PRIMARY = "default"
PUBLIC_READ_METHODS = frozenset({"GET", "HEAD"})
PRIVATE_PREFIXES = ("/admin/",)

_public_read: ContextVar[bool] = ContextVar("public_read", default=False)


def is_public_read(request: HttpRequest) -> bool:
    return request.method in PUBLIC_READ_METHODS and not request.path.startswith(PRIVATE_PREFIXES)


class ReplicaRouter:
    def db_for_read(self, model: Any, **hints: Any) -> str:
        return REPLICA if _public_read.get() else PRIMARY

    def db_for_write(self, model: Any, **hints: Any) -> str:
        return PRIMARY

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # one database, two copies of it

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        return db != REPLICA


class PublicReadsOnReplicaMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_public_read(request):
            return self.get_response(request)
        token = _public_read.set(True)
        try:
            # One snapshot for the whole page (the replica's connection is REPEATABLE READ, read only).
            # Template responses are rendered inside get_response (Django's handler), so within the snapshot.
            with transaction.atomic(using=REPLICA):
                response = self.get_response(request)
        finally:
            _public_read.reset(token)
        return response
