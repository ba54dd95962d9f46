"""A token bucket per key: the upload routes' rate limit per token (--upload_rate, --upload_burst), and the limits of
authentication failures per client address and per token id (`trainboard.http.throttle`).

Kept in the process's memory: each replica of `trainboard serve` limits the requests it receives, so N replicas
behind a proxy allow up to N times the rate in all.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# The most keys a limit keeps buckets for: past it, the full buckets (as good as none) are dropped, then the least
# recently used; so that keys a client makes up (token ids, addresses) cannot fill the memory.
MAX_KEYS = 100_000


class RateLimit:
    """`burst` requests at once per key, then `rate` per second; a rate of 0 allows everything.

    Not thread-safe: called from the event loop only."""

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic, max_keys: int = MAX_KEYS
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._max_keys = max_keys
        # key -> (requests left, when counted), least recently used first
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> float:
        """0 when a request of `key` may go now (and counts it), else the seconds until one may."""
        if self.rate == 0:
            return 0.0
        now = self._clock()
        left, then = self._buckets.pop(key, (float(self.burst), now))
        left = min(float(self.burst), left + (now - then) * self.rate)
        wait = 0.0
        if left >= 1:
            left -= 1
        else:
            wait = (1 - left) / self.rate
        self._buckets[key] = (left, now)
        if len(self._buckets) > self._max_keys:
            self._forget(now)
        return wait

    def _forget(self, now: float) -> None:
        full = [key for key, (left, then) in self._buckets.items() if left + (now - then) * self.rate >= self.burst]
        for key in full:
            del self._buckets[key]
        while len(self._buckets) > self._max_keys:
            del self._buckets[next(iter(self._buckets))]
