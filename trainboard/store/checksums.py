"""Checksums of what the store keeps: computed once when written, checked when read, so that damage to the database
or the blob store is never served as data.

- A scalar chunk: CRC-32C of its columns, each packed little-endian (int64 steps, then float64 wall times, then float64
  values), whatever layout the backend stores them in.
- A tensor point: CRC-32C of its step (int64), wall time (float64) and tensor bytes.
- A blob: its key, `<experiment id>/<sha-256 of the content>`, names its content already.

Rows written before checksums existed (migration 0007) have none and are served unchecked.
"""

from __future__ import annotations

import hashlib
import struct
import threading

import google_crc32c
import numpy as np

from trainboard.store.values import ScalarColumns

STEP_AND_WALL_TIME = struct.Struct("<qd")
VIEW_PIECE = 8 << 20


def scalar_checksum(columns: ScalarColumns) -> int:
    crc = 0
    for column, dtype in ((columns.steps, "<i8"), (columns.wall_times, "<f8"), (columns.values, "<f8")):
        crc = google_crc32c.extend(crc, _packed(column, dtype))
    return int(crc)


def tensor_checksum(step: int, wall_time: float, tensor: bytes | memoryview) -> int:
    crc = google_crc32c.value(STEP_AND_WALL_TIME.pack(step, wall_time))
    if isinstance(tensor, bytes):
        return int(google_crc32c.extend(crc, tensor))
    # google_crc32c takes bytes only: a view of a large record is copied a piece at a time.
    with memoryview(tensor) as view:
        for start in range(0, len(view), VIEW_PIECE):
            crc = google_crc32c.extend(crc, bytes(view[start : start + VIEW_PIECE]))
    return int(crc)


def blob_matches(key: str, data: bytes) -> bool:
    """Whether `data` is the content its key names."""
    return hashlib.sha256(data).hexdigest() == key.rpartition("/")[2]


def _packed(column: np.ndarray, dtype: str) -> bytes:
    """The column's little-endian bytes, without a copy when it is a view of bytes read from the database."""
    base = column.base
    if isinstance(base, bytes) and column.dtype == np.dtype(dtype) and len(base) == column.nbytes:
        return base
    return column.astype(dtype, copy=False).tobytes()


class VerifiedChunks:
    """The scalar chunks this process has checked whole, by (id, checksum): a read that picks a few points of a chunk
    checks the chunk whole the first time only. Keyed by checksum too, as a chunk id may name other points later (a
    purge rewrites a chunk; SQLite may give a deleted chunk's id to a new one)."""

    def __init__(self) -> None:
        self._checked: dict[int, int] = {}
        self._lock = threading.Lock()

    def unchecked(self, chunk_ids: np.ndarray, checksums: np.ndarray) -> list[int]:
        """Those of the chunks, having a checksum, not checked yet."""
        with self._lock:
            checked = self._checked
            return [
                chunk_id
                for chunk_id, checksum in zip(chunk_ids.tolist(), checksums.tolist(), strict=True)
                if checksum >= 0 and checked.get(chunk_id) != checksum
            ]

    def add(self, chunk_id: int, checksum: int) -> None:
        with self._lock:
            self._checked[chunk_id] = checksum

    def clear(self) -> None:
        with self._lock:
            self._checked.clear()
