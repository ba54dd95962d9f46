"""The blob store contract: opaque keys, put and get, and a URL where the backend can give one.

A key is `<experiment id>/<sha-256 of the content>`: it names its content, so a blob put twice is stored once and a
key never reveals a row. Backends: the database itself (`sqlite/`, `postgres/`) or an S3-compatible store (`s3/`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from typing import Protocol


class BlobStore(Protocol):
    def put(self, blobs: Mapping[str, bytes]) -> None:
        """Store each blob under its key; a key names its content, so putting one again changes nothing."""

    def get(self, key: str) -> bytes | None: ...

    def url(self, key: str) -> str | None:
        """A short-lived URL a client may GET the blob from, or None where the store cannot give one."""

    def delete(self, keys: Collection[str]) -> None: ...

    def close(self) -> None: ...


def blob_key(experiment_id: str, data: bytes) -> str:
    return f"{experiment_id}/{hashlib.sha256(data).hexdigest()}"


def split_blob_key(key: str) -> tuple[str, str]:
    """(experiment id, content hash) of a store key."""
    experiment_id, _, digest = key.rpartition("/")
    return experiment_id, digest
