"""Projections remembered per (run, tag, step, method, dims), bounded in memory.

Each entry keeps a digest of the embeddings it was computed from: a step whose tensor was replaced (a restarted run
writes it again) is projected anew rather than served stale. The least recently used entries go first once their
arrays exceed the byte budget. Requests for the same key wait for one computation instead of each starting one.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from trainboard.analysis.projections import project

Key = tuple[str, str, int, str, int]  # run, tag, step, method, dims
MAX_BYTES = 256 << 20
# Computations of different keys may share a lock: a few, because a projection keeps a core busy anyway.
LOCKS = 8


@dataclass(frozen=True, slots=True)
class _Entry:
    digest: bytes
    projected: np.ndarray


class ProjectionCache:
    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._computing = [threading.Lock() for _ in range(LOCKS)]

    def projection(
        self,
        run: str,
        tag: str,
        step: int,
        embeddings: np.ndarray,
        method: str,
        dims: int,
        *,
        max_points: int | None = None,
    ) -> np.ndarray:
        """`project(embeddings, method, dims)`, computed once per key and content; the array is read-only."""
        key: Key = (run, tag, step, method, dims)
        if np.asarray(embeddings).dtype.hasobject:
            return project(embeddings, method, dims, max_points=max_points)  # refused there, saying why
        digest = _digest(embeddings)
        with self._computing[hash(key) % LOCKS]:
            with self._lock:
                found = self._entries.get(key)
                if found is not None and found.digest == digest:
                    self._entries.move_to_end(key)
                    return found.projected
            projected = project(embeddings, method, dims, max_points=max_points)
            projected.flags.writeable = False
            with self._lock:
                self._store(key, _Entry(digest, projected))
        return projected

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def _store(self, key: Key, entry: _Entry) -> None:
        replaced = self._entries.pop(key, None)
        if replaced is not None:
            self._bytes -= replaced.projected.nbytes
        if entry.projected.nbytes > self.max_bytes:
            return
        self._entries[key] = entry
        self._bytes += entry.projected.nbytes
        while self._bytes > self.max_bytes:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= evicted.projected.nbytes


def _digest(embeddings: np.ndarray) -> bytes:
    array = np.ascontiguousarray(embeddings)
    content = hashlib.blake2b(f"{array.dtype.str}{array.shape}".encode(), digest_size=16)
    content.update(array.reshape(-1).view(np.uint8).data if array.size else b"")
    return content.digest()
