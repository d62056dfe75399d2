"""The shared cache (DRF's throttle counters): Redis in production, files under var/ on the embedded default.

Throttle counts must be shared by every web process, or each process counts alone and N processes let N times
the limit through (two gunicorn workers passed 1,157 of 1,300 requests against 600/minute with the per-process
memory cache). See CACHES in federation/settings.py and README's settings table (CACHE_URL).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Iterator

import redis
from django.core.cache import caches
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.redis import RedisCache


def redis_cache_url(broker_url: str) -> str:
    """The cache's Redis URL when only the broker's is configured: the same server, the next database number
    (the broker's queues and the cache never share a database)."""
    base, _, tail = broker_url.partition("?")
    head, slash, number = base.rpartition("/")
    if slash and number.isdigit() and "://" in head and head.split("://", 1)[1]:
        url = f"{head}/{int(number) + 1}"
    else:
        url = f"{base.rstrip('/')}/1"
    return f"{url}?{tail}" if tail else url


class PrefixedRedisCache(RedisCache):
    """Django's RedisCache whose ``clear()`` deletes this cache's keys (its KEY_PREFIX) only, not the whole
    Redis database (FLUSHDB), which may be shared with other caches, other sites or other test runs."""

    def clear(self) -> None:
        client = self._cache.get_client(write=True)
        pattern = self.make_key("*")
        batch: list[bytes] = []
        for key in client.scan_iter(match=pattern, count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                client.delete(*batch)
                batch = []
        if batch:
            client.delete(*batch)


LOCK_STRIPES = 64  # lock files of the file cache: a fixed set, whatever the number of clients


class CacheLockTimeout(Exception):
    """The shared lock was not free within its timeout."""


@contextlib.contextmanager
def cache_lock(name: str, timeout: float = 2.0) -> Iterator[None]:
    """Hold a lock shared by every process using the default cache while a read-modify-write of a cached value
    runs (DRF's throttle reads a key's history, appends and writes it back: two processes doing that at once
    lose each other's requests). Redis: a Redis lock; the file cache: an exclusive lock on one of
    LOCK_STRIPES files beside the entries; any other cache: no lock. Raises CacheLockTimeout when the lock is
    not free within ``timeout`` seconds (never waits longer)."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        client = backend._cache.get_client(write=True)
        lock = client.lock(backend.make_key(f"lock:{name}"), timeout=timeout, blocking_timeout=timeout)
        if not lock.acquire():
            raise CacheLockTimeout(name)
        try:
            yield
        finally:
            with contextlib.suppress(redis.exceptions.LockError):  # expired meanwhile: nothing to release
                lock.release()
        return
    if isinstance(backend, FileBasedCache):
        stripe = int(hashlib.sha256(name.encode()).hexdigest(), 16) % LOCK_STRIPES
        path = os.path.join(backend._dir, f"lock-{stripe:02d}")  # type: ignore[attr-defined]
        deadline = time.monotonic() + timeout
        with open(path, "a+b") as handle:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise CacheLockTimeout(name) from None
                    time.sleep(0.002)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    yield
