"""What the provider keeps of whole answers until an experiment's data changes: a least-recently-used map, bounded
by entries, whose entries hold the store generation they were built at."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

# Entries kept by one provider: whole listings and rendered answers, a few per plugin and experiment served.
ENTRIES = 256


class GenerationCache:
    """Safe to share between threads. An entry built at another generation than the experiment's now is built
    again; the entries least recently asked for leave first once there are more than `entries`."""

    def __init__(self, generation: Callable[[str], int], *, entries: int = ENTRIES) -> None:
        self._generation = generation
        self._entries = entries
        self._kept: OrderedDict[tuple[str, Hashable], tuple[int, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, experiment_id: str, key: Hashable, build: Callable[[], T]) -> T:
        """`build()` for the experiment as its data is now, built once per generation (two threads that miss at
        once may both build it: the answer is the same)."""
        generation = self._generation(experiment_id)
        full_key = (experiment_id, key)
        with self._lock:
            kept = self._kept.get(full_key)
            if kept is not None and kept[0] == generation:
                self._kept.move_to_end(full_key)
                value: T = kept[1]
                return value
        value = build()
        with self._lock:
            self._kept[full_key] = (generation, value)
            self._kept.move_to_end(full_key)
            while len(self._kept) > self._entries:
                self._kept.popitem(last=False)
        return value
