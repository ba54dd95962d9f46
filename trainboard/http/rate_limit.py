"""A token bucket per key: the upload routes' rate limit per token (--upload_rate, --upload_burst).

Kept in the process's memory: each replica of `trainboard serve` limits the requests it receives, so N replicas
behind a proxy allow up to N times the rate in all.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class RateLimit:
    """`burst` requests at once per key, then `rate` per second; a rate of 0 allows everything.

    Not thread-safe: called from the event loop only. One bucket per key ever seen, which is fine for keys that are
    token ids (the tokens table bounds them)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        # key -> (requests left, when counted)
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> float:
        """0 when a request of `key` may go now (and counts it), else the seconds until one may."""
        if self.rate == 0:
            return 0.0
        now = self._clock()
        left, then = self._buckets.get(key, (float(self.burst), now))
        left = min(float(self.burst), left + (now - then) * self.rate)
        if left >= 1:
            self._buckets[key] = (left - 1, now)
            return 0.0
        self._buckets[key] = (left, now)
        return (1 - left) / self.rate
