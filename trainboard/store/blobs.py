"""The blob store contract: opaque keys, put and get, and a URL where the backend can give one.

A key is `<experiment id>/<sha-256 of the content>`: it names its content, so a blob put twice is stored once and a
key never reveals a row. Backends: the database itself (`sqlite/`, `postgres/`) or an S3-compatible store (`s3/`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from typing import Protocol


class BlobStore(Protocol):
    def put(self, blobs: Mapping[str, bytes | memoryview]) -> None:
        """Store each blob under its key; a key names its content, so putting one again changes nothing."""

    def get(self, key: str) -> bytes | None: ...

    def url(self, key: str) -> str | None:
        """A short-lived URL a client may GET the blob from, or None where the store cannot give one."""

    def delete(self, keys: Collection[str]) -> None: ...

    def delete_experiment(self, experiment_id: str) -> None:
        """Every blob under the experiment's keys, named by any point or not (put before a batch that never
        committed)."""

    def check(self) -> None:
        """Raise `StoreUnavailable` unless the blob store answers now."""

    def close(self) -> None: ...


# Blobs of a batch wait to be put together until they reach this size.
PENDING_BYTES = 32 << 20


class PendingBlobs:
    """The blobs of one batch on their way into a blob store, put before the batch commits: together while they are
    small, and as soon as they reach `limit` bytes, so that a batch of large files holds about one at a time."""

    def __init__(self, store: BlobStore, limit: int = PENDING_BYTES) -> None:
        self.store = store
        self.limit = limit
        self.keys: set[str] = set()
        self._waiting: dict[str, bytes | memoryview] = {}
        self._size = 0

    def add(self, key: str, data: bytes | memoryview) -> None:
        if key not in self.keys:
            self.keys.add(key)
            self._waiting[key] = data
            self._size += len(data)
        if self._size >= self.limit:
            self.flush()

    def flush(self) -> None:
        if self._waiting:
            self.store.put(self._waiting)
        self._waiting = {}
        self._size = 0


def blob_key(experiment_id: str, data: bytes | memoryview) -> str:
    return f"{experiment_id}/{hashlib.sha256(data).hexdigest()}"


def split_blob_key(key: str) -> tuple[str, str]:
    """(experiment id, content hash) of a store key."""
    experiment_id, _, digest = key.rpartition("/")
    return experiment_id, digest
