"""The parts of /data/trainboard/scalars' bodies: chunks made ahead arrive in order, an error in them reaches the
response and a client that leaves closes them; CSV lines keep run names that look like what they replace."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import numpy as np
import pytest

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
