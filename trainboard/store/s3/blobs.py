"""Blobs in an S3-compatible object store, under one prefix of one bucket, through s3fs.

Credentials, region and endpoint come from where every S3 client reads them: the AWS environment variables
(`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE`, ...) and `~/.aws/config`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import botocore.exceptions
import s3fs

from trainboard.store.errors import StoreUnavailable

# A signed URL lets a client fetch a blob directly, after the server checked its access: keep it short-lived.
URL_SECONDS = 300
# S3's DeleteObjects takes at most this many keys.
DELETE_BATCH = 1000
# Blobs at least this large are uploaded in parts of PART_BYTES (S3's parts are at least 5 MB).
LARGE_BLOB = 16 << 20
PART_BYTES = 16 << 20
# What reaching the store can raise: s3fs turns most S3 answers into OSError; botocore raises the rest (no endpoint,
# no credentials, timeouts).
UNREACHABLE = (OSError, botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError)


class S3Blobs:
    def __init__(self, url: str, *, url_seconds: int = URL_SECONDS, storage_options: Mapping[str, Any] | None = None):
        """Open `s3://bucket/prefix`; raise `StoreUnavailable` when the bucket cannot be reached."""
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc or parts.query or parts.fragment:
            raise ValueError(f"not an S3 blob store URL (s3://bucket/prefix): {url!r}")
        self.location = url
        self._root = "/".join(part for part in (parts.netloc, parts.path.strip("/")) if part)
        self._url_seconds = url_seconds
        # Signature version 4 is the one every S3 service accepts, and the only one AWS accepts in newer regions.
        options: dict[str, Any] = {"config_kwargs": {"signature_version": "s3v4"}, **(storage_options or {})}
        self._fs = s3fs.S3FileSystem(skip_instance_cache=True, **options)
        with self._reaching():
            self._fs.info(parts.netloc)

    @contextmanager
    def _reaching(self) -> Iterator[None]:
        try:
            yield
        except FileNotFoundError as error:
            raise StoreUnavailable(f"cannot reach the blob store {self.location}: no such bucket") from error
        except UNREACHABLE as error:
            raise StoreUnavailable(f"cannot reach the blob store {self.location}: {_reason(error)}") from error

    def _path(self, key: str) -> str:
        if not key or key.startswith("/") or any(part in ("", ".", "..") for part in key.split("/")):
            raise ValueError(f"not a blob key: {key!r}")
        return f"{self._root}/{key}"

    def put(self, blobs: Mapping[str, bytes | memoryview]) -> None:
        """Store each blob under its key; a key names its content, so putting one again changes nothing."""
        small = {self._path(key): bytes(data) for key, data in blobs.items() if len(data) < LARGE_BLOB}
        with self._reaching():
            if small:
                self._fs.pipe(small)
            for key, data in blobs.items():
                if len(data) >= LARGE_BLOB:
                    self._put_in_parts(self._path(key), memoryview(data))

    def _put_in_parts(self, path: str, data: memoryview) -> None:
        """A multipart upload, one part in memory at a time besides the blob itself."""
        with self._fs.open(path, "wb", block_size=PART_BYTES) as stream:
            for start in range(0, len(data), PART_BYTES):
                stream.write(data[start : start + PART_BYTES])

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        try:
            data: bytes = self._fs.cat_file(path)
        except FileNotFoundError:
            return None
        except UNREACHABLE as error:
            raise StoreUnavailable(f"cannot reach the blob store {self.location}: {_reason(error)}") from error
        return data

    def url(self, key: str) -> str | None:
        """A presigned GET URL, valid for `url_seconds`."""
        with self._reaching():
            signed: str = self._fs.sign(self._path(key), expiration=self._url_seconds)
        return signed

    def delete(self, keys: Collection[str]) -> None:
        """Remove these blobs; keys that name no blob are ignored."""
        bucket = self._root.split("/", 1)[0]
        names = [self._path(key)[len(bucket) + 1 :] for key in keys]
        with self._reaching():
            for start in range(0, len(names), DELETE_BATCH):
                objects = [{"Key": name} for name in names[start : start + DELETE_BATCH]]
                answer = self._fs.call_s3("delete_objects", Bucket=bucket, Delete={"Objects": objects, "Quiet": True})
                if answer.get("Errors"):
                    first = answer["Errors"][0]
                    raise StoreUnavailable(
                        f"cannot delete {first.get('Key')} from the blob store {self.location}: {first.get('Message')}"
                    )
        self._fs.invalidate_cache()

    def delete_experiment(self, experiment_id: str) -> None:
        """Every object under the experiment's prefix."""
        root = self._path(experiment_id)
        with self._reaching():
            self._fs.invalidate_cache(root)
            paths: list[str] = self._fs.find(root)
        self.delete([path[len(self._root) + 1 :] for path in paths])

    def check(self) -> None:
        # Asked of S3 itself: s3fs answers `info` from its cache of listings.
        with self._reaching():
            self._fs.call_s3("head_bucket", Bucket=self._root.split("/", 1)[0])

    def close(self) -> None:
        # s3fs would close its HTTP session when the filesystem is garbage-collected; close it now instead.
        creator = getattr(self._fs, "_s3creator", None)
        if creator is not None:
            s3fs.S3FileSystem.close_session(self._fs.loop, creator)


def _reason(error: Exception) -> str:
    return str(error) or type(error).__name__
