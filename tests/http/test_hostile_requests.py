"""Hostile and malformed requests on every route: a clear 4xx (or an ordinary answer), never a 5xx or a hang, and
nothing from outside the logdir and the store."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route

from tests.servers import Server, trainboard_in_process
from trainboard.http import tensorboard
from trainboard.http.limits import MAX_BODY_BYTES
from trainboard.http.params import MAX_PARAM_LENGTH
from trainboard.http.tensorboard.scalars import MAX_MULTIRUN_RUNS
from trainboard.plugins.json_depth import MAX_JSON_DEPTH
from trainboard.plugins.regex import MAX_PATTERN_LENGTH, MAX_PROGRAM_MEMORY

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
    """Every GET route of TensorBoard's API that trainboard serves (those imported on their first request too)."""
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


def time_series(client: httpx.Client, series_requests: list[object]) -> httpx.Response:
    return client.post("/data/plugin/timeseries/timeSeries", data={"requests": json.dumps(series_requests)})


def test_a_sample_outside_64_bits_is_refused(client: httpx.Client) -> None:
    for plugin, run, tag in (("scalars", "train", "loss"), ("images", "train", "batch")):
        for sample in (2**64, 2**100, -(2**64)):
            response = time_series(client, [{"plugin": plugin, "run": run, "tag": tag, "sample": sample}])
            assert response.status_code == 400, response.text
            assert "64-bit" in response.text


def test_a_negative_image_sample_is_refused(client: httpx.Client) -> None:
    """TensorBoard answers -1 and -2 with the width and height entries and images counted from the end down to
    -(n+2), and fails with a 500 below that; trainboard refuses them all."""
    assert time_series(client, [{"plugin": "images", "run": "train", "tag": "batch", "sample": 0}]).status_code == 200
    for sample in (-1, -2, -3, -5, -1000):
        response = time_series(client, [{"plugin": "images", "run": "train", "tag": "batch", "sample": sample}])
        assert response.status_code == 400, response.text
        assert f"image sample of {sample}" in response.text
    # Other plugins ignore the sample and echo it, as TensorBoard does.
    echoed = time_series(client, [{"plugin": "scalars", "tag": "loss", "sample": -5}])
    assert echoed.status_code == 200 and echoed.json()[0]["sample"] == -5


DEEP = "[" * 1000 + "]" * 1000


def test_json_nested_past_the_bound_is_refused(client: httpx.Client) -> None:
    deep_field = '[{"plugin": ' + DEEP + ', "tag": "loss"}]'
    for raw in (DEEP, deep_field):
        for response in (
            client.post("/data/plugin/timeseries/timeSeries", data={"requests": raw}),
            client.get("/data/plugin/timeseries/timeSeries", params={"requests": raw}),
        ):
            assert response.status_code == 400, response.text
            assert f"deeper than the bound of {MAX_JSON_DEPTH} levels" in response.text
    download = client.get(
        "/data/plugin/hparams/download_data", params={"format": "json", "request": "{}", "columnsVisibility": DEEP}
    )
    assert download.status_code == 400, download.text
    assert f"columnsVisibility is JSON nested deeper than the bound of {MAX_JSON_DEPTH}" in download.text
    body = '{"colParams": [{"hparam": "lr", "filterDiscrete": ' + DEEP + "}]}"
    groups = client.post("/data/plugin/hparams/session_groups", content=body)
    assert groups.status_code == 400, groups.text
    assert f"bound of {MAX_JSON_DEPTH} levels" in groups.text
    # As deep as the bound is fine.
    shallow = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert client.post("/data/plugin/timeseries/timeSeries", data={"requests": shallow}).status_code == 200


def test_an_hparams_request_must_be_a_json_object(client: httpx.Client) -> None:
    for body in ("[]", " [1]", "null", "1", '"x"'):
        for path in ("session_groups", "experiment", "metric_evals"):
            response = client.post(f"/data/plugin/hparams/{path}", content=body)
            assert response.status_code == 400, (path, body, response.text)
            assert "Expected a JSON object" in response.text
    assert client.post("/data/plugin/hparams/session_groups", content=" {}").status_code == 200


def regexp_filter(pattern: str) -> dict[str, object]:
    """A session_groups request of every status, filtered by `pattern` on the optimizer."""
    return {
        "colParams": [{"hparam": "optimizer", "filterRegexp": pattern, "excludeMissingValues": True}],
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
        "startIndex": 0,
        "sliceSize": 10,
    }


# Each costs RE2 a minute or more to compile or to match with: captures over a long pattern, and long chains of
# counted repetition.
PATHOLOGICAL = ("(.*)(.*)" * 3200, "(?:a{1,500})" * 2000)


def test_a_long_regular_expression_gets_a_fast_400(client: httpx.Client) -> None:
    for pattern in PATHOLOGICAL:
        assert len(pattern) <= MAX_PARAM_LENGTH
        started = time.monotonic()
        custom = client.get("/data/plugin/custom_scalars/scalars", params={"run": "train", "tag": pattern})
        hparams = client.post("/data/plugin/hparams/session_groups", json=regexp_filter(pattern))
        assert time.monotonic() - started < 5  # a hang guard only
        for response in (custom, hparams):
            assert response.status_code == 400, response.text
            assert f"over the bound of {MAX_PATTERN_LENGTH}" in response.text


def test_a_short_regular_expression_with_a_huge_program_gets_a_fast_400(client: httpx.Client) -> None:
    pattern = "(?:a{1,1000})" * 70
    assert len(pattern) <= MAX_PATTERN_LENGTH
    started = time.monotonic()
    custom = client.get("/data/plugin/custom_scalars/scalars", params={"run": "train", "tag": pattern})
    hparams = client.post("/data/plugin/hparams/session_groups", json=regexp_filter(pattern))
    assert time.monotonic() - started < 5  # a hang guard only
    for response in (custom, hparams):
        assert response.status_code == 400, response.text
        assert f"over the bound of {MAX_PROGRAM_MEMORY} bytes" in response.text


def test_ordinary_regular_expressions_still_match(client: httpx.Client) -> None:
    custom = client.get("/data/plugin/custom_scalars/scalars", params={"run": "train", "tag": "(lo|hi)"})
    assert custom.status_code == 200
    assert custom.json()["regex_valid"] is True and set(custom.json()["tag_to_events"]) == {"loss", "low", "high"}
    invalid = client.get("/data/plugin/custom_scalars/scalars", params={"run": "train", "tag": "(unclosed"})
    assert invalid.status_code == 200 and invalid.json()["regex_valid"] is False
    hparams = client.post("/data/plugin/hparams/session_groups", json=regexp_filter("^ad(am)$"))
    assert hparams.status_code == 200
    assert {group["hparams"]["optimizer"] for group in hparams.json()["sessionGroups"]} == {"adam"}


def test_a_request_for_another_host_is_refused(client: httpx.Client) -> None:
    """DNS rebinding: a page on evil.example whose name resolves to 127.0.0.1 must not read the data."""
    port = httpx.URL(str(client.base_url)).port
    for host in (
        "evil.example",
        f"evil.example:{port}",
        "127.0.0.1.evil.example",
        "localhost.evil.example:80",
        "[::2]",
    ):
        for path in ("/data/runs", "/", "/data/plugin/hparams/session_groups"):
            response = client.get(path, headers={"host": host})
            assert response.status_code == 400, (host, path, response.text)
            assert "not allowed" in response.text and "--allowed_hosts" in response.text
            assert "train" not in response.text
    for host in ("localhost", f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "LOCALHOST", "localhost."):
        response = client.get("/data/runs", headers={"host": host})
        assert response.status_code == 200, (host, response.text)
        assert "train" in response.json()


def test_allowed_hosts_extends_the_list(tmp_path: Path) -> None:
    cases = (
        ("--allowed_hosts=board.example, Other.Example", ("board.example:8080", "other.example"), ("evil.example",)),
        ("--allowed_hosts=*", ("evil.example", "[::2]:1"), ()),
    )
    for index, (flag, allowed, refused) in enumerate(cases):
        with (
            trainboard_in_process(tmp_path / "logs", tmp_path / f"server{index}", flag) as server,
            httpx.Client(base_url=server.url, timeout=30) as client,
        ):
            assert client.get("/data/runs").status_code == 200
            for host in allowed:
                assert client.get("/data/runs", headers={"host": host}).status_code == 200, host
            for host in refused:
                assert client.get("/data/runs", headers={"host": host}).status_code == 400, host


def test_scalars_multirun_takes_as_many_runs_as_the_bound(client: httpx.Client) -> None:
    """TensorBoard's Rust server answers a form naming every run of a large logdir; Starlette alone refuses more than
    1,000 fields. Past the bound, a clear 400."""
    runs = client.get("/data/runs").raise_for_status().json()
    url = "/data/plugin/scalars/scalars_multirun"
    named = [*runs, *(f"absent{index}" for index in range(MAX_MULTIRUN_RUNS - len(runs)))]
    answer = client.post(url, data={"tag": "loss", "runs": named}).raise_for_status().json()
    assert answer and set(answer) <= set(runs)
    over = client.post(url, data={"tag": "loss", "runs": [*named, "one-more"]})
    assert over.status_code == 400, over.text
