"""The public API's throttle: one count for every web process (settings REST_FRAMEWORK, CACHES)."""

import logging
import time

import redis
from rest_framework.throttling import AnonRateThrottle

from core.cache import CacheLockTimeout, cache_lock

logger = logging.getLogger("core.throttling")

# After the shared cache failed (Redis down or unreachable), this process lets requests through unthrottled
# for this long before trying it again: a throttle must not turn a cache outage into an API outage.
CACHE_RETRY_AFTER_SECONDS = 30.0
_cache_down_until = 0.0


class SharedAnonRateThrottle(AnonRateThrottle):
    """DRF's anonymous throttle counting once for every web process: the cache is shared (core/cache.py) and
    each client's read-append-write of its request history runs under a lock shared by those processes.

    A client so busy that its lock is not free within two seconds is throttled; a cache that cannot be
    reached lets requests through (logged), retried after CACHE_RETRY_AFTER_SECONDS."""

    def allow_request(self, request, view) -> bool:
        global _cache_down_until
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None or time.monotonic() < _cache_down_until:
            return True
        try:
            with cache_lock(key):
                return super().allow_request(request, view)
        except CacheLockTimeout:
            self.history, self.now = [], self.timer()
            return False
        except (redis.exceptions.RedisError, OSError) as exc:
            _cache_down_until = time.monotonic() + CACHE_RETRY_AFTER_SECONDS
            logger.warning(
                "API throttle: the shared cache failed (%s); requests pass unthrottled for %d s",
                exc,
                CACHE_RETRY_AFTER_SECONDS,
            )
            return True
