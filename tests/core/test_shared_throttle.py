"""The anonymous API throttle holds across processes: two web processes share one count (the cache is Redis
with a Redis broker, files under var/cache/ on the embedded default), instead of each letting the limit
through on its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.db import connection

from core.cache import redis_cache_url
from tests.conftest import ROOT, database_url_for

LIMIT = 40
REQUESTS_PER_PROCESS = 40

CLIENT = """
import json, os, sys, time
import django
django.setup()
from django.test import Client
client = Client()
start = float(sys.argv[1])
time.sleep(max(0.0, start - time.time()))  # both processes start together
statuses = [client.get("/api/v1/rating-lists/").status_code for _ in range(int(sys.argv[2]))]
print(json.dumps(statuses))
"""


def test_two_processes_share_one_anonymous_limit(transactional_db, settings):
    import time

    from django.core.cache import cache

    cache.clear()
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "DJANGO_SETTINGS_MODULE": "federation.settings",
        "API_ANON_THROTTLE": f"{LIMIT}/minute",
        "ALLOWED_HOSTS": "testserver",
    }
    start = str(time.time() + 3)
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CLIENT, start, str(REQUESTS_PER_PROCESS)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    statuses = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err[-3000:]
        statuses += json.loads(out.strip().splitlines()[-1])
    cache.clear()
    assert set(statuses) <= {200, 429}
    passed = statuses.count(200)
    # One count, exactly the limit (each client's read-append-write runs under the shared cache lock);
    # counting alone, each process would pass all its 40.
    assert passed == LIMIT, (passed, statuses)


@pytest.mark.parametrize(
    ("broker", "cache"),
    [
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/1"),
        ("redis://:secret@redis-host:6380/3", "redis://:secret@redis-host:6380/4"),
        ("redis://redis-host", "redis://redis-host/1"),
        ("rediss://redis-host:6379/0?ssl_cert_reqs=required", "rediss://redis-host:6379/1?ssl_cert_reqs=required"),
    ],
)
def test_the_cache_uses_the_brokers_redis_server_but_not_its_database(broker, cache):
    assert redis_cache_url(broker) == cache


def test_clearing_the_cache_leaves_other_keys_of_the_redis_database_alone(settings):
    if not settings.CACHES["default"]["BACKEND"].endswith("PrefixedRedisCache"):
        pytest.skip("the cache is Redis only with a Redis broker (or CACHE_URL); CI runs this on Redis")
    import redis
    from django.core.cache import cache

    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    client.set("someone-else:key", "kept")
    cache.set("ours", 1)
    cache.clear()
    assert cache.get("ours") is None
    assert client.get("someone-else:key") == b"kept"
    client.delete("someone-else:key")


def test_an_unreachable_redis_cache_never_turns_the_api_into_server_errors(client, db, settings, caplog):
    """The throttle fails open: the API keeps answering, the outage is logged, and the process tries the
    cache again later (core.throttling.CACHE_RETRY_AFTER_SECONDS)."""
    from django.core.cache import caches

    from core import throttling

    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.PrefixedRedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    assert caches["default"]._servers == ["redis://127.0.0.1:1/0"]  # the settings fixture reset the handler
    throttling._cache_down_until = 0.0
    try:
        statuses = [client.get("/api/v1/rating-lists/").status_code for _ in range(3)]
        assert statuses == [200, 200, 200]
        assert "the shared cache failed" in caplog.text
        assert throttling._cache_down_until > 0
    finally:
        throttling._cache_down_until = 0.0
