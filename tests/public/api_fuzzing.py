"""Schema fuzzing of the public API with schemathesis, in-process (the WSGI application, no server).

Every operation of the schema the API serves (``/api/v1/schema/``) is fed generated requests, valid ones
(positive) and invalid ones (negative), and every response goes through all of schemathesis' checks: no server
error, status codes, content types, headers and bodies as documented, invalid data refused, valid data
accepted, undocumented methods refused. Used by tests/public/test_api_schema_fuzzing.py (a few examples per
operation, in CI) and bench/fuzz_api.py (a few hundred).

Operations are read from the schema, so endpoints added later are fuzzed without any change here.
"""

from __future__ import annotations

import collections
import contextlib
import re
import time
from dataclasses import dataclass, field

import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import load_all_checks
from schemathesis.core.failures import Failure, FailureGroup

SCHEMA_PATH = "/api/v1/schema/?format=json"


@dataclass
class OperationReport:
    label: str
    requests: int = 0
    statuses: collections.Counter = field(default_factory=collections.Counter)
    failures: collections.Counter = field(default_factory=collections.Counter)  # check title -> count
    examples: dict[str, str] = field(default_factory=dict)  # check title -> one reproduction
    seconds: float = 0.0

    @property
    def server_errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)


def all_checks() -> list:
    from schemathesis.checks import CHECKS

    load_all_checks()
    return list(CHECKS.get_all())


def fuzz_api(
    examples: int,
    *,
    modes: tuple[GenerationMode, ...] = tuple(GenerationMode),
    known: dict[str, object] | None = None,
) -> list[OperationReport]:
    """Fuzz every operation of the served schema with ``examples`` examples per operation and mode.

    ``known``: path parameter values that exist in the database (``{"id_number": 5000001, ...}``). Random
    path values mostly answer 404 before a view reads its query parameters, so an operation whose path
    parameters are all known is fuzzed a second time with them fixed: query and body then reach the view."""
    app = get_wsgi_application()
    # As Django's test client does: the handler must not close the database connection after each request
    # (inside a test that would close the test's transaction).
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        schema = schemathesis.openapi.from_wsgi(SCHEMA_PATH, app)
        checks = all_checks()
        reports = []
        for result in schema.get_all_operations():
            operation = result.ok()
            report = OperationReport(operation.label)
            started = time.perf_counter()
            for mode in modes:
                _fuzz_operation(operation, mode, examples, checks, report)
            names = [p.name for p in operation.path_parameters]
            if names and known and all(name in known for name in names):
                fixed = {name: known[name] for name in names}
                for mode in modes:
                    _fuzz_operation(operation, mode, examples, checks, report, path_parameters=fixed)
            report.seconds = time.perf_counter() - started
            reports.append(report)
        return reports
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _fuzz_operation(
    operation,
    mode: GenerationMode,
    examples: int,
    checks: list,
    report: OperationReport,
    path_parameters: dict[str, object] | None = None,
) -> None:
    @given(case=operation.as_strategy(generation_mode=mode, path_parameters=path_parameters))
    @settings(
        max_examples=examples, deadline=None, database=None, derandomize=False, suppress_health_check=list(HealthCheck)
    )
    def run(case) -> None:
        response = case.call()
        report.requests += 1
        report.statuses[response.status_code] += 1
        try:
            case.validate_response(response, checks=checks)
        except FailureGroup as group:
            for failure in group.exceptions:
                _record(report, failure, case)
        except Failure as failure:
            _record(report, failure, case)

    # Unsatisfiable: nothing of this kind to generate (negative data with every path parameter fixed, no query)
    with contextlib.suppress(Unsatisfiable):
        run()


_QUERY_OBJECT = re.compile(r"parameter `([^`]+)` in query - violates `type`.*became object")


def _unsendable(failure: Failure, case) -> bool:
    """schemathesis' "schema-violating request accepted" for a query parameter it generated as an object: a
    query string cannot carry an object, so it is sent exploded (its keys as parameters of their own, none
    for {}) and the server never receives the parameter at all — an optional one, rightly accepted."""
    found = _QUERY_OBJECT.search(str(failure.message))
    return bool(found) and isinstance((case.query or {}).get(found[1]), dict)


def _record(report: OperationReport, failure: Failure, case) -> None:
    if _unsendable(failure, case):
        return
    title = f"{failure.title}"
    report.failures[title] += 1
    if title not in report.examples:
        report.examples[title] = f"{failure.message[:600]}\n    {case.as_curl_command()[:600]}"
