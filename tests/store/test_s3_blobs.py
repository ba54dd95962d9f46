"""S3Blobs against a real S3 server (SeaweedFS), reached through the standard AWS environment variables."""

from __future__ import annotations

import hashlib
import os
from urllib.parse import parse_qs, urlsplit

import pytest

from tests import loopback
from tests.servers import free_port
from trainboard.store.errors import StoreUnavailable
from trainboard.store.s3.blobs import DELETE_BATCH, S3Blobs

pytestmark = pytest.mark.s3


def key(data: bytes) -> str:
    return f"experiment/{hashlib.sha256(data).hexdigest()}"


def test_put_then_get_by_key(s3_blobs_url: str) -> None:
    blobs = {key(data): data for data in (b"first", b"second", b"")}
    store = S3Blobs(s3_blobs_url)
    store.put(blobs)
    assert {name: store.get(name) for name in blobs} == blobs
    store.put(blobs)  # putting the same content again changes nothing
    assert {name: store.get(name) for name in blobs} == blobs
    store.close()


def test_a_missing_key_is_none(s3_blobs_url: str) -> None:
    store = S3Blobs(s3_blobs_url)
    assert store.get(key(b"never put")) is None
    store.close()


def test_prefixes_keep_stores_apart(s3_blobs_url: str) -> None:
    one, other = S3Blobs(s3_blobs_url), S3Blobs(s3_blobs_url + "-other")
    one.put({"k": b"one"})
    assert other.get("k") is None
    other.put({"k": b"other"})
    assert (one.get("k"), other.get("k")) == (b"one", b"other")
    one.close()
    other.close()


def test_a_signed_url_serves_the_blob_to_any_client(s3_blobs_url: str) -> None:
    store = S3Blobs(s3_blobs_url)
    store.put({"a/b": b"\x89PNG image bytes"})
    url = store.url("a/b")
    assert url is not None
    answer = loopback.get(url)
    assert (answer.status_code, answer.content) == (200, b"\x89PNG image bytes")
    store.close()


def test_a_signed_url_is_short_lived(s3_blobs_url: str) -> None:
    # SeaweedFS without identities checks no signature, so the expiry is read from the URL (SigV4's X-Amz-Expires).
    store = S3Blobs(s3_blobs_url, url_seconds=120)
    url = store.url("k")
    assert url is not None
    query = parse_qs(urlsplit(url).query)
    assert (query["X-Amz-Algorithm"], query["X-Amz-Expires"]) == (["AWS4-HMAC-SHA256"], ["120"])
    store.close()


def test_a_large_blob_round_trips(s3_blobs_url: str) -> None:
    data = os.urandom(50 * 2**20)
    store = S3Blobs(s3_blobs_url)
    store.put({key(data): data})
    assert store.get(key(data)) == data
    url = store.url(key(data))
    assert url is not None
    assert loopback.get(url, timeout=60).content == data
    store.close()


def test_delete_removes_only_the_keys_named(s3_blobs_url: str) -> None:
    store = S3Blobs(s3_blobs_url)
    blobs = {f"k{i}": b"%d" % i for i in range(DELETE_BATCH + 2)}  # more than one DeleteObjects call takes
    store.put(blobs)
    store.delete([*(f"k{i}" for i in range(DELETE_BATCH + 1)), "never-put"])
    assert store.get("k0") is None and store.get(f"k{DELETE_BATCH}") is None
    assert store.get(f"k{DELETE_BATCH + 1}") == blobs[f"k{DELETE_BATCH + 1}"]
    store.delete([])
    store.close()


@pytest.mark.parametrize("bad", ["", "/absolute", "a//b", "a/../b", "./a", "a/"])
def test_keys_that_would_leave_the_prefix_are_refused(s3_blobs_url: str, bad: str) -> None:
    store = S3Blobs(s3_blobs_url)
    with pytest.raises(ValueError, match="not a blob key"):
        store.get(bad)
    store.close()


@pytest.mark.parametrize("bad", ["s3://", "http://bucket/prefix", "s3://bucket/prefix?x=1", "/local/path"])
def test_urls_that_are_not_s3_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not an S3 blob store URL"):
        S3Blobs(bad)


def test_an_unreachable_endpoint_is_a_clear_error(s3_blobs_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    with pytest.raises(StoreUnavailable, match=f"cannot reach the blob store {s3_blobs_url}: Could not connect"):
        S3Blobs(s3_blobs_url)


def test_a_missing_bucket_is_a_clear_error(s3_blobs_url: str) -> None:
    with pytest.raises(StoreUnavailable, match="cannot reach the blob store s3://no-such-bucket/x: no such bucket"):
        S3Blobs("s3://no-such-bucket/x")


def test_deleting_an_experiment_takes_its_prefix_only(s3_blobs_url: str) -> None:
    store = S3Blobs(s3_blobs_url)
    digest = hashlib.sha256(b"x").hexdigest()
    neighbours = ("a", "abc", "ab-c", "ab_c")  # ids that start as the deleted one's does
    store.put({f"{name}/{digest}": name.encode() for name in ("ab", *neighbours)})
    store.put({f"ab/{i:064x}": b"%d" % i for i in range(DELETE_BATCH + 2)})  # more than one DeleteObjects call takes
    store.delete_experiment("ab")
    assert store.get(f"ab/{digest}") is None and store.get(f"ab/{DELETE_BATCH + 1:064x}") is None
    assert {name: store.get(f"{name}/{digest}") for name in neighbours} == {name: name.encode() for name in neighbours}
    store.delete_experiment("never-written")
    store.close()
