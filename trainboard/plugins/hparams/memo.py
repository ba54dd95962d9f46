"""Remembering what the hparams plugin computes from the data (sessions, groups), between requests.

Building 10,000 sessions reads every hparams summary and the last value of every metric series: seconds. Requests
that only filter, sort or page differently reuse those values while the data has not changed. The caller names the
data's version; values of other versions age out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Remember(Protocol):
    def __call__(self, key: Hashable, compute: Callable[[], T]) -> T: ...


def compute_now(key: Hashable, compute: Callable[[], T]) -> T:
    """Remembers nothing."""
    return compute()


class Memo:
    """A small least-recently-used map from (version, key) to computed values, safe to share between threads."""

    def __init__(self, capacity: int = 16) -> None:
        self._capacity = capacity
        self._values: OrderedDict[tuple[Hashable, Hashable], Any] = OrderedDict()
        self._lock = threading.Lock()

    def at(self, version: Hashable) -> Remember:
        """Remembering for data at `version`: a value computed for another version is never returned."""

        def remember(key: Hashable, compute: Callable[[], T]) -> T:
            full_key = (version, key)
            with self._lock:
                if full_key in self._values:
                    self._values.move_to_end(full_key)
                    found: T = self._values[full_key]
                    return found
            value = compute()
            with self._lock:
                self._values[full_key] = value
                while len(self._values) > self._capacity:
                    self._values.popitem(last=False)
            return value

        return remember
