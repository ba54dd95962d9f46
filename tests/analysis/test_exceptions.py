"""The exception analysis against independent computations: sorted values, plain Python sums and counts, and the
heat-map positions of test_tensors."""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.analysis.test_tensors import heat_map_position
from trainboard.analysis import exceptions
from trainboard.analysis.exceptions import box, box_series, heat_map, histogram, outliers, summary
from trainboard.errors import InvalidArgumentError

EXAMPLES = settings(max_examples=200, deadline=None, derandomize=True, database=None)
DTYPES = (np.float64, np.float32, np.float16, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.bool_)
SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6)


@st.composite
def tensors(draw: st.DrawFn, dtypes: tuple[type, ...] = DTYPES) -> np.ndarray:
    """Tensors of every accepted dtype and 0 to 4 dimensions; floats with NaN, ±Inf and extremes among them."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    if dtype.kind == "f":
        extreme = float(np.finfo(dtype).max)
        elements = st.one_of(
            st.floats(width=dtype.itemsize * 8, allow_nan=True, allow_infinity=True),
            st.sampled_from([math.nan, math.inf, -math.inf, extreme, -extreme, 0.0]),
            st.floats(-10, 10, width=dtype.itemsize * 8),
        )
        return draw(hnp.arrays(dtype, SHAPES, elements=elements))
    return draw(hnp.arrays(dtype, SHAPES))


def finite_values(tensor: np.ndarray) -> list[float]:
    return [float(v) for v in tensor.reshape(-1).tolist() if math.isfinite(float(v))]


def midpoint_percentile(ordered: list[float], percent: float) -> float:
    """numpy's `midpoint` method, from its definition: halfway between the two values around rank p·(n-1)."""
    rank = percent / 100 * (len(ordered) - 1)
    low, high = ordered[math.floor(rank)], ordered[math.ceil(rank)]
    return low / 2 + high / 2


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300) or (math.isnan(a) and math.isnan(b))


@given(tensors())
@EXAMPLES
def test_summary_counts_every_kind_and_ignores_what_is_not_finite(tensor: np.ndarray) -> None:
    found = summary(tensor)
    flat = [float(v) for v in tensor.reshape(-1).tolist()]
    finite = finite_values(tensor)
    assert found.shape == tensor.shape and found.size == len(flat) and found.finite == len(finite)
    assert found.nan == sum(math.isnan(v) for v in flat)
    assert found.posinf == flat.count(math.inf) and found.neginf == flat.count(-math.inf)
    if finite:
        assert (found.min, found.max) == (min(finite), max(finite))
        exact = float(sum(map(Fraction, finite)) / len(finite))
        # Summing in float64 loses what cancels between huge values: the error is relative to the largest.
        assert abs(found.mean - exact) <= 1e-12 * max(map(abs, finite))
    else:
        assert math.isnan(found.min) and math.isnan(found.max) and math.isnan(found.mean)


@given(tensors())
@EXAMPLES
def test_box_quartiles_and_whiskers(tensor: np.ndarray) -> None:
    (up, q3, median, q1, down), percentiles = box(tensor)
    ordered = sorted(finite_values(tensor))
    if not ordered:
        assert all(math.isnan(v) for v in [up, q3, median, q1, down, *percentiles])
        return
    expected = [midpoint_percentile(ordered, p) for p in (0, 5, 10, 25, 50, 75, 90, 95, 100)]
    assert all(close(a, b) for a, b in zip([*percentiles[:3], q1, median, q3, *percentiles[3:]], expected, strict=True))
    assert percentiles[0] == ordered[0] and percentiles[-1] == ordered[-1]
    assert close(up, min(q3 + 1.5 * (q3 - q1), ordered[-1]))
    assert close(down, max(q1 - 1.5 * (q3 - q1), ordered[0]))
    assert ordered[0] <= down <= q1 <= median <= q3 <= up <= ordered[-1]


@given(tensors())
@EXAMPLES
def test_histogram_has_100_equal_bins_that_count_every_finite_value_once(tensor: np.ndarray) -> None:
    [[low, high, buckets]] = histogram(tensor)
    finite = finite_values(tensor)
    assert len(buckets) == 100
    assert [b[0] for b in buckets[1:]] == [b[1] for b in buckets[:-1]]
    assert (buckets[0][0], buckets[-1][1]) == (low, high)
    if not finite:
        assert (low, high) == (0.0, 1.0) and all(b[2] == 0 for b in buckets)
        return
    least, most = min(finite), max(finite)
    assert low <= least and most <= high
    assert all(left < right for left, right, _ in buckets)
    if most - least > 1e-9 * max(abs(least), abs(most)):
        assert (low, high) == (least, most)
    elif least == most and abs(least) < 2**40:  # numpy's bins around a single value
        assert (low, high) == (least - 0.5, most + 0.5)
    assert sum(b[2] for b in buckets) == len(finite)
    for index, (left, right, count) in enumerate(buckets):
        last = index == len(buckets) - 1
        assert count == sum(left <= v < right or (last and v == right) for v in finite)


@given(tensors(), st.floats(-20, 20), st.floats(-20, 20))
@EXAMPLES
def test_outliers_are_the_values_past_a_bound_or_not_finite_at_their_heat_map_positions(
    tensor: np.ndarray, up: float, down: float
) -> None:
    values, positions = outliers(tensor, up, down)
    high, low = max(up, down), min(up, down)
    expected = {}
    for index in np.ndindex(*tensor.shape):
        value = float(tensor[index])
        if not math.isfinite(value) or value > high or value < low:
            expected[heat_map_position(index, tensor.shape)] = value
    assert sorted(map(tuple, positions)) == list(map(tuple, positions)) == sorted(expected)
    assert [float(v) for v in values] == pytest.approx([expected[tuple(p)] for p in positions], nan_ok=True)


@given(tensors())
@EXAMPLES
def test_heat_map_is_the_summary_and_the_tiled_values(tensor: np.ndarray) -> None:
    shape, low, high, mean, grid = heat_map(tensor)
    found = summary(tensor)
    assert shape == list(tensor.shape)
    assert [low, high, mean] == pytest.approx([found.min, found.max, found.mean], nan_ok=True)
    array = np.array(grid, dtype=np.float64)
    for index in np.ndindex(*tensor.shape):
        assert close(float(array[heat_map_position(index, tensor.shape)]), float(tensor[index]))


def test_box_series_shows_at_most_50_evenly_spaced_steps() -> None:
    points = [(step * 10, np.full(3, step, dtype=np.float32)) for step in range(199)]
    series = box_series(points)
    assert len(series["step"]) == 50 and series["step"][0] == 0 and series["step"][-1] == 1980
    assert np.all(np.diff(series["step"]) >= 30) and np.all(np.diff(series["step"]) <= 50)
    assert [found[0][2] for found in series["box"]] == [step / 10 for step in series["step"]]
    assert box_series(points[:3]) == {"step": [0, 10, 20], "box": [box(t) for _, t in points[:3]]}
    assert box_series([]) == {"step": [], "box": []}


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 2, 2), (2, 0, 3, 4), (2, 3, 4, 0)])
def test_empty_tensors(shape: tuple[int, ...]) -> None:
    tensor = np.zeros(shape, dtype=np.float32)
    assert summary(tensor).size == 0
    assert heat_map(tensor)[0] == list(shape)
    assert outliers(tensor, 1, -1) == [[], []]
    assert histogram(tensor)[0][:2] == [0.0, 1.0]
    assert all(math.isnan(v) for row in box(tensor) for v in row)


def test_all_nan_tensor_has_no_statistics_and_every_element_is_an_outlier() -> None:
    tensor = np.full((2, 3), np.nan)
    found = summary(tensor)
    assert (found.nan, found.finite) == (6, 0) and math.isnan(found.mean)
    values, positions = outliers(tensor, 1e308, -1e308)
    assert len(values) == 6 and all(math.isnan(v) for v in values)
    assert positions == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]


def test_infinities_are_outliers_whatever_the_bounds() -> None:
    tensor = np.array([1.0, np.inf, -np.inf, 2.0])
    assert outliers(tensor, math.inf, -math.inf) == [[math.inf, -math.inf], [[1], [2]]]
    assert summary(tensor).max == 2.0


def test_extreme_values_do_not_overflow() -> None:
    tensor = np.array([-1.7e308, 1.7e308, 1.7e308], dtype=np.float64)
    assert summary(tensor).mean == pytest.approx(1.7e308 / 3)
    [[low, high, buckets]] = histogram(tensor)
    assert (low, high) == (-1.7e308, 1.7e308) and (buckets[0][2], buckets[-1][2]) == (1, 2)
    assert box(np.array([-3e38, 3e38], dtype=np.float32))[0][2] == 0.0


def test_huge_tensors_are_refused_before_any_work() -> None:
    huge = np.broadcast_to(np.float32(1), (1000, 1000, 1000))  # a billion values that take no memory
    started = time.perf_counter()
    for call in (lambda: heat_map(huge), lambda: outliers(huge, 1, 0)):
        with pytest.raises(InvalidArgumentError, match=r"1,000,000,000 values .* limited to 4,194,304 values"):
            call()
    assert time.perf_counter() - started < 1
    assert len(heat_map(np.zeros(exceptions.MAX_VALUES, dtype=np.uint8))[4]) == exceptions.MAX_VALUES


def test_five_dimensions_are_refused_by_every_analysis() -> None:
    tensor = np.zeros((1, 2, 1, 2, 1))
    calls: list[Any] = [summary, box, heat_map, histogram, lambda t: outliers(t, 1, 0)]
    for call in calls:
        with pytest.raises(InvalidArgumentError, match="at most 4 dimensions"):
            call(tensor)


def test_nan_bounds_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="outlier bounds must be numbers"):
        outliers(np.zeros(3), math.nan, 0)
