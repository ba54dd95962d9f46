"""The parts of /data/trainboard/scalars' bodies: chunks made ahead arrive in order, an error in them reaches the
response and a client that leaves closes them; CSV lines keep run names that look like what they replace; JSON
written a part of a column at a time is the JSON of the whole; short series share Parquet row groups."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator

import numpy as np
import pyarrow.parquet as pq
import pytest

from trainboard.api.frames import Table, labels
from trainboard.http.trainboard_api import downloads
from trainboard.http.trainboard_api.ahead import ahead
from trainboard.http.trainboard_api.downloads import _csv_lines


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_chunks_made_ahead_arrive_in_order() -> None:
    assert [chunk async for chunk in ahead(iter([b"a", b"b", b"c", b"d"]))] == [b"a", b"b", b"c", b"d"]


@pytest.mark.anyio
async def test_an_error_in_the_chunks_reaches_the_response() -> None:
    def failing() -> Iterator[bytes]:
        yield b"a"
        raise OSError("the store went away")

    found: list[bytes] = []
    with pytest.raises(OSError, match="the store went away"):
        async for chunk in ahead(failing()):
            found.append(chunk)
    assert found == [b"a"]


@pytest.mark.anyio
async def test_a_client_that_leaves_closes_the_chunks() -> None:
    closed = asyncio.Event()
    made: list[int] = []

    def endless() -> Iterator[bytes]:
        try:
            while True:
                made.append(1)
                yield b"x"
        finally:
            closed.set()

    body = ahead(endless())
    assert await anext(body) == b"x"
    await body.aclose()
    assert closed.is_set()
    # Made ahead: only a few chunks, not the endless rest.
    assert len(made) <= 5


def test_csv_lines_keep_run_names_and_write_non_finite_values() -> None:
    steps = np.array([0, 1, 2], dtype=np.int64)
    wall_times = np.array([1.5, 2.0, 3.25])
    values = np.array([np.nan, 1.0, 0.5])
    prefix = b"null.0,run],[x,"
    assert _csv_lines(prefix, steps, wall_times, values).decode().splitlines() == [
        "null.0,run],[x,0,1.5,NaN",
        "null.0,run],[x,1,2,1.0",
        "null.0,run],[x,2,3.25,0.5",
    ]
    values[1] = np.inf
    assert _csv_lines(b"r,t,", steps, wall_times, values).decode().splitlines() == [
        "r,t,0,1.5,NaN",
        "r,t,1,2.0,inf",
        "r,t,2,3.25,0.5",
    ]


def series(run: str, values: list[float]) -> Table:
    count = len(values)
    steps = np.arange(count, dtype=np.int64) * 10
    return {
        "run": labels([run], [count]),
        "tag": labels(["loss"], [count]),
        "step": steps,
        "wall_time": 1.7e9 + steps / 3,
        "value": np.array(values, dtype=np.float64),
    }


SERIES = [("a", [0.5, float("nan"), float("inf"), -float("inf"), 1.0, 0.1]), ('b"', []), ("c", [1.0, 2.0, 3.0])]


def test_json_a_part_of_a_column_at_a_time_is_the_json_of_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(downloads, "CHUNK", 4)
    body = json.loads(b"".join(downloads._json(iter([series(run, values) for run, values in SERIES]))))
    assert [(found["run"], found["tag"]) for found in body] == [("a", "loss"), ('b"', "loss"), ("c", "loss")]
    assert body[0]["value"] == [0.5, "NaN", "Infinity", "-Infinity", 1.0, 0.1]
    assert body[0]["step"] == [0, 10, 20, 30, 40, 50] and body[1]["step"] == [] and body[2]["value"] == [1, 2, 3]
    assert body[2]["wall_time"] == [1.7e9, 1.7e9 + 10 / 3, 1.7e9 + 20 / 3]


def test_short_series_share_parquet_row_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(downloads, "ROW_GROUP", 6)
    body = b"".join(downloads._parquet(iter([series(run, values) for run, values in SERIES])))
    written = pq.ParquetFile(io.BytesIO(body))
    # a (6 rows) fills a group; b (none) and c (3) share the last.
    assert [written.metadata.row_group(i).num_rows for i in range(written.num_row_groups)] == [6, 3]
    table = written.read().to_pydict()
    assert table["run"] == ["a"] * 6 + ["c"] * 3
    assert table["step"] == [0, 10, 20, 30, 40, 50, 0, 10, 20]
    assert np.array_equal(table["value"], SERIES[0][1] + SERIES[2][1], equal_nan=True)


def test_small_parts_are_sent_together(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(downloads, "SEND_BYTES", 4)
    assert list(downloads._coalesced(iter([b"a", b"bc", b"def", b"g", b"", b"h"]))) == [b"abcdef", b"gh"]
