"""Schema fuzzing (schemathesis, all its checks) of every operation the API's schema lists, in-process:
0 server errors, 0 conformance failures. A few examples per operation and mode here (CI); bench/fuzz_api.py
runs a few hundred."""

import pytest

from tests.public.api_fuzzing import fuzz_api
from tests.public.conftest import build_federation

EXAMPLES = 12


@pytest.fixture
def fuzzable(db, settings):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]  # schemathesis' WSGI client's host
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "1000000/minute"}}
    federation = build_federation()
    return {
        "id_number": federation.star.id_number,
        "id": federation.rated_event.pk,
        "list_date": federation.latest.list_date.isoformat(),
        "rating_type": federation.latest.rating_type,
    }


def test_every_operation_of_the_schema_passes_every_schemathesis_check(fuzzable):
    reports = fuzz_api(EXAMPLES, known=fuzzable)
    assert len(reports) >= 8  # every public operation (and any added later: they are read from the schema)
    problems = {r.label: dict(r.failures) for r in reports if r.failures or r.server_errors}
    details = "\n".join(f"{r.label}: {title}\n    {r.examples[title]}" for r in reports for title in r.failures)
    assert not problems, details
    assert all(r.requests > 0 for r in reports)
