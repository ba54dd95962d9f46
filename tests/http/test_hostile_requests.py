"""Hostile and malformed requests on every route: a clear 4xx (or an ordinary answer), never a 5xx or a hang, and
nothing from outside the logdir and the store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route

from tests.servers import Server
from trainboard.http import tensorboard
from trainboard.http.limits import MAX_BODY_BYTES

PATH_TRICKS = ("../../../../etc/passwd", "/etc/passwd", "..%2F..%2Fetc%2Fpasswd", "train/../../..", "\\..\\..\\x")
HOSTILE_VALUES = (
    *PATH_TRICKS,
    "",
    "x" * 5_000,
    "-1",
    "99999999999999999999999",
    "1e309",
    "NaN",
    "<script>alert(1)</script>",
    "\x00",
    "%00",
    "(a+)+$",
)
PARAMETERS = ("run", "tag", "sample", "blob_key", "imageId", "format", "limit_attr_size", "large_attrs_key", "requests")


@pytest.fixture(scope="module")
def client(full_trainboard: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=full_trainboard.url, timeout=30) as client:
        yield client


def get_paths() -> list[str]:
    """Every GET route of TensorBoard's API that trainboard serves."""
    return [
        route.path
        for route in tensorboard.routes()
        if isinstance(route, Route) and route.methods and "GET" in route.methods and "{" not in route.path
    ]


def assert_safe(response: httpx.Response) -> None:
    assert response.status_code < 500, f"{response.request.url}: {response.status_code} {response.text[:300]}"
    assert b"root:x:0:0" not in response.content, f"{response.request.url} served /etc/passwd"


def test_hostile_values_in_every_parameter_of_every_route(client: httpx.Client) -> None:
    """Each value in every parameter at once, and beside a real run and tag so that checks past the lookup run."""
    paths = get_paths()
    assert len(paths) > 30
    for path in paths:
        for value in HOSTILE_VALUES:
            assert_safe(client.get(path, params=dict.fromkeys(PARAMETERS, value)))
            assert_safe(client.get(path, params={**dict.fromkeys(PARAMETERS, value), "run": "train", "tag": "loss"}))


def test_path_tricks_in_urls(client: httpx.Client) -> None:
    for trick in PATH_TRICKS:
        for prefix in ("/", "/data/", "/data/plugin/", "/experiment/", "/data/blob/"):
            assert_safe(client.get(prefix + trick))
    assert_safe(client.get("/experiment/nope/data/runs"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(
        ["/data/plugin/scalars/scalars", "/data/plugin/images/images", "/data/plugin/custom_scalars/scalars"]
    ),
    query=st.dictionaries(st.sampled_from(PARAMETERS), st.text(max_size=50), max_size=4),
)
def test_random_queries(client: httpx.Client, path: str, query: dict[str, str]) -> None:
    assert_safe(client.get(path, params=query))


def test_a_parameter_over_the_limit_is_refused(client: httpx.Client) -> None:
    response = client.get("/data/plugin/scalars/scalars", params={"run": "x" * 40_000, "tag": "loss"})
    assert response.status_code == 400
    assert "longer than" in response.text


def test_huge_and_malformed_bodies(client: httpx.Client) -> None:
    for body in (b"requests=" + b"%5B" * 1_000_000, b"\xff\xfe" * 1000, b"requests=%5B" + b"{}," * 200_000 + b"{}%5D"):
        response = client.post(
            "/data/plugin/timeseries/timeSeries",
            content=body,
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert_safe(response)
    multirun = client.post("/data/plugin/scalars/scalars_multirun", content=b"\x00" * 10_000)
    assert_safe(multirun)


def test_a_body_over_the_limit_is_refused(client: httpx.Client) -> None:
    huge = b"x" * (MAX_BODY_BYTES + 1)
    for body in (huge, iter([huge[:1000], huge[1000:]])):  # declared by Content-Length, then streamed
        response = client.post(
            "/data/plugin/hparams/session_groups", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == 413, response.text


def test_the_store_file_is_not_served(client: httpx.Client, tmp_path: Path) -> None:
    for path in ("/store.sqlite", "/data/store.sqlite", "/data/plugin/../store.sqlite"):
        response = client.get(path)
        assert response.status_code == 404
        assert not response.content.startswith(b"SQLite format 3")
