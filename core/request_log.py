"""Structured request logs: one JSON object per request on the ``federation.request`` logger.

Keys: ``time`` (UTC, ISO 8601), ``request_id`` (the caller's ``X-Request-ID`` when it is a plain token, else a
new one; echoed in the response), ``method``, ``path`` (no query string: it may carry personal searches),
``status``, ``duration_ms``, ``bytes`` (body length, when known), ``queries`` (database statements run),
``user`` (id or null) and ``client`` (core.security.client_ip). A log collector (Loki, CloudWatch, ELK) reads
them as they are; ``REQUEST_LOG=0`` switches them off.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse
from django.utils.functional import empty

from core.security import client_ip

logger = logging.getLogger("federation.request")
REQUEST_ID_HEADER = "X-Request-ID"
# A caller's request id is kept only when it is a short plain token (a proxy's or a client's correlation id).
REQUEST_ID_FORM = re.compile(r"[A-Za-z0-9._-]{1,64}")
PATH_MAX_LENGTH = 512


class _QueryCounter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


class RequestLogMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.enabled = getattr(settings, "REQUEST_LOG", True)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not self.enabled:
            return self.get_response(request)
        supplied = request.headers.get(REQUEST_ID_HEADER, "")
        request_id = supplied if REQUEST_ID_FORM.fullmatch(supplied) else uuid.uuid4().hex
        counter = _QueryCounter()
        started = time.perf_counter()
        wrappers = [connections[alias].execute_wrapper(counter) for alias in connections]
        for wrapper in wrappers:
            wrapper.__enter__()
        try:
            response = self.get_response(request)
        finally:
            for wrapper in reversed(wrappers):
                wrapper.__exit__(None, None, None)
        response[REQUEST_ID_HEADER] = request_id
        user = getattr(request, "user", None)
        if getattr(user, "_wrapped", None) is empty:
            user = None  # never evaluated by the view: not worth a session query just to log it
        record = {
            "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
            "request_id": request_id,
            "method": request.method,
            "path": request.path[:PATH_MAX_LENGTH],
            "status": response.status_code,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            "bytes": None if response.streaming else len(response.content),
            "queries": counter.count,
            "user": user.pk if user is not None and user.is_authenticated else None,
            "client": client_ip(request),
        }
        logger.info(json.dumps(record, ensure_ascii=True))
        return response
