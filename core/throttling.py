"""The public API's throttle: one count for every web process (settings REST_FRAMEWORK, CACHES)."""

from rest_framework.throttling import AnonRateThrottle

from core.cache import cache_lock


class SharedAnonRateThrottle(AnonRateThrottle):
    """DRF's anonymous throttle counting once for every web process: the cache is shared (core/cache.py) and
    each client's read-append-write of its request history runs under a lock shared by those processes."""

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        with cache_lock(key):
            return super().allow_request(request, view)
