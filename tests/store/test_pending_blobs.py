"""A batch's blobs wait to be put together while small, and go into the blob store as soon as they reach the limit:
a batch of large files (a projector config's) holds about one of them in memory at a time."""

from __future__ import annotations

from pathlib import Path

from trainboard.store.blobs import PendingBlobs, blob_key
from trainboard.store.opening import open_store


def test_blobs_wait_until_they_reach_the_limit(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "store.sqlite"))
    try:
        pending = PendingBlobs(store.blobs, limit=10)
        small, large = b"small", b"x" * 10
        pending.add(blob_key("e", small), small)
        assert store.blob(blob_key("e", small)) is None
        pending.add(blob_key("e", large), large)
        assert store.blob(blob_key("e", small)) == small
        assert store.blob(blob_key("e", large)) == large
        pending.add(blob_key("e", small), small)
        pending.flush()
        assert pending.keys == {blob_key("e", small), blob_key("e", large)}
    finally:
        store.close()
