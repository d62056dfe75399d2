"""Schema fuzzing of the whole public API at a few hundred examples per operation and mode (schemathesis,
every check), in-process on a small published federation; prints requests, server errors and failures.

Run from the repository root (SQLite by default; DATABASE_URL= for PostgreSQL):

    python bench/fuzz_api.py [--examples 300]
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=300, help="examples per operation and mode")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "federation.settings")
    os.environ.setdefault("API_ANON_THROTTLE", "100000000/minute")  # the fuzzer is not the throttle's subject
    import django
    from django.test.utils import get_runner, setup_test_environment

    django.setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost", "testserver"]
    setup_test_environment()
    runner = get_runner(settings)(verbosity=0, interactive=False)
    old = runner.setup_databases()
    try:
        from tests.public.api_fuzzing import fuzz_api
        from tests.public.conftest import build_federation

        federation = build_federation()
        known = {
            "id_number": federation.star.id_number,
            "id": federation.rated_event.pk,
            "list_date": federation.latest.list_date.isoformat(),
            "rating_type": federation.latest.rating_type,
        }
        started = time.perf_counter()
        reports = fuzz_api(args.examples, known=known)
        seconds = time.perf_counter() - started
    finally:
        runner.teardown_databases(old)
    print(f"{'operation':60} {'requests':>9} {'5xx':>5} {'failures':>9} {'s':>6}")
    for r in reports:
        print(f"{r.label:60} {r.requests:9} {r.server_errors:5} {sum(r.failures.values()):9} {r.seconds:6.1f}")
        for title, count in r.failures.items():
            print(f"    {count} x {title}\n      {r.examples[title][:400]}")
    requests = sum(r.requests for r in reports)
    errors = sum(r.server_errors for r in reports)
    failures = sum(sum(r.failures.values()) for r in reports)
    print(
        f"schema fuzzing: {len(reports)} operations, {requests} requests in {seconds:.0f} s: "
        f"{errors} server errors, {failures} conformance failures"
    )
    return 1 if errors or failures else 0


if __name__ == "__main__":
    sys.exit(main())
