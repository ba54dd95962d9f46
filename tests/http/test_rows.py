"""Scalar rows written from numpy columns (trainboard.http.rows) are byte for byte the JSON of the rows as Python
objects, which the answers were before; the C kernel refuses what is not three flat arrays of as many numbers."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.kernels import running
from trainboard.http._rows import interleave
from trainboard.http.responses import render_json
from trainboard.http.rows import rows_json, runs_rows_json
from trainboard.plugins import scalars
from trainboard.provider.values import ScalarColumns


@pytest.fixture(autouse=True, scope="module")
def _compiled() -> Iterator[None]:
    """These tests are of the C kernel (against the pure-Python path as reference), whatever TRAINBOARD_PURE_PYTHON
    says."""
    with running("compiled", "trainboard.http._rows"):
        yield


# The store's values are float64; float32 columns are written as their float64 values.
floats = st.one_of(
    hnp.arrays(np.float64, st.integers(0, 50), elements=st.floats(allow_nan=True, allow_infinity=True)),
    hnp.arrays(np.float32, st.integers(0, 50), elements=st.floats(width=32, allow_nan=True, allow_infinity=True)),
)


@st.composite
def columns(draw: st.DrawFn) -> ScalarColumns:
    values = draw(floats)
    wall_times = draw(hnp.arrays(np.float64, len(values), elements=st.floats(allow_nan=True, allow_infinity=True)))
    steps = draw(hnp.arrays(np.int64, len(values)))
    return ScalarColumns(steps, wall_times, values)


@settings(max_examples=500, deadline=None)
@given(columns())
def test_rows_from_columns_are_the_json_of_the_rows(series: ScalarColumns) -> None:
    assert rows_json(series) == render_json(scalars.rows(series))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(), columns(), max_size=5))
def test_runs_rows_are_the_json_of_the_rows_by_run(by_run: dict[str, ScalarColumns]) -> None:
    answer = runs_rows_json(by_run)
    assert answer == render_json({run: scalars.rows(series) for run, series in by_run.items()})
    assert list(orjson.loads(answer)) == list(by_run)


@pytest.mark.parametrize(
    "columns",
    [
        (b"[1,2]", b"[1]", b"[3,4]"),
        (b"[1,,2]", b"[1,2]", b"[3,4]"),
        (b"[1,]", b"[1,2]", b"[3,4]"),
        (b"[,1]", b"[1,2]", b"[3,4]"),
        (b"1,2", b"[1,2]", b"[3,4]"),
        (b"[", b"[", b"["),
        (b"", b"", b""),
        (b"[[1]]", b"[1]", b"[1]"),
        (b'["1"]', b"[1]", b"[1]"),
        (b"[1, 2]", b"[1,2]", b"[1,2]"),
    ],
)
def test_the_kernel_refuses_what_is_not_three_flat_arrays_of_as_many_numbers(columns: tuple[bytes, ...]) -> None:
    with pytest.raises(ValueError, match="flat JSON arrays"):
        interleave(*columns)


def test_columns_that_are_views_are_written_as_copies_would_be() -> None:
    steps, values = np.arange(10), np.linspace(0.0, 1.0, 10)
    series = ScalarColumns(steps[::3], values[::-3], values[::3])
    copied = ScalarColumns(*(np.array(column) for column in (series.steps, series.wall_times, series.values)))
    assert rows_json(series) == render_json(scalars.rows(copied))


def test_the_kernel_takes_bytes_only() -> None:
    with pytest.raises(TypeError):
        interleave(bytearray(b"[1]"), b"[1]", b"[1]")  # type: ignore[arg-type]
