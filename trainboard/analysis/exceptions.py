"""TS-VIS's exception analysis of one logged tensor: box statistics, heat map, histogram and outliers.

Each function answers what TS-VIS's route puts under the step (or tag) key, in its shape, so a route wraps the result
as `{step: result}`. Unlike TS-VIS, NaN and ±Inf never enter a statistic: minimum, maximum, mean, quantiles and the
histogram are of the finite values alone (NaN when there are none), `summary` counts the others, and `outliers`
always lists them. Tensors are checked and laid out by `trainboard.analysis.tensors`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from trainboard.analysis.tensors import checked, tiled
from trainboard.errors import InvalidArgumentError

# The box plot of the exception view shows at most this many steps, evenly spaced, as TS-VIS does.
MAX_BOX_STEPS = 50
# Heat maps and outlier lists carry a value (and a position) per element: bigger tensors would be answers of hundreds
# of megabytes that no browser draws. 2048 × 2048 values.
MAX_VALUES = 1 << 22
HISTOGRAM_BINS = 100
# Histograms count this many values at a time.
SLICE_VALUES = 1 << 20
# TS-VIS's percentiles, with its box's quartiles in the middle, all taken as the midpoint between neighbours.
PERCENTILES = (0, 5, 10, 25, 50, 75, 90, 95, 100)
WHISKER_IQRS = 1.5
_LARGEST = float(np.finfo(np.float64).max)


@dataclass(frozen=True, slots=True)
class Summary:
    """A tensor's shape and element counts, and the minimum, maximum and mean of its finite values."""

    shape: tuple[int, ...]
    size: int
    nan: int
    posinf: int
    neginf: int
    min: float
    max: float
    mean: float

    @property
    def finite(self) -> int:
        return self.size - self.nan - self.posinf - self.neginf


def summary(tensor: np.ndarray) -> Summary:
    array = checked(tensor)
    values = _finite(array)
    nan = posinf = neginf = 0
    if array.dtype.kind == "f" and values.size < array.size:
        nan = int(np.count_nonzero(np.isnan(array)))
        posinf = int(np.count_nonzero(array == np.inf))
        neginf = array.size - values.size - nan - posinf
    if values.size == 0:
        low = high = mean = math.nan
    else:
        low, high = float(values.min()), float(values.max())
        with np.errstate(over="ignore", invalid="ignore"):
            mean = float(values.mean())
        if not math.isfinite(mean):  # the sum overflowed: sum again at a power-of-two smaller scale (exact)
            mean = float((values * 2.0**-64).mean()) * 2.0**64
    return Summary(tuple(array.shape), array.size, nan, posinf, neginf, low, high, mean)


def box(tensor: np.ndarray) -> list[list[float]]:
    """`[[upper whisker, Q3, median, Q1, lower whisker], [p0, p5, p10, p90, p95, p100]]`: whiskers 1.5 IQR beyond
    the quartiles, clipped to the extremes."""
    array = checked(tensor)
    values = _finite(array, dtype=array.dtype, owned=True)
    if values.size == 0:
        return [[math.nan] * 5, [math.nan] * 6]
    p0, p5, p10, q1, median, q3, p90, p95, p100 = _percentiles(values)
    spread = WHISKER_IQRS * (q3 - q1)
    return [[min(q3 + spread, p100), q3, median, q1, max(q1 - spread, p0)], [p0, p5, p10, p90, p95, p100]]


def box_series(points: Sequence[tuple[int, np.ndarray]]) -> dict[str, list[Any]]:
    """`{"step": [...], "box": [box, ...]}` for at most 50 of the (step, tensor) points, evenly spaced."""
    chosen = points
    if len(points) > MAX_BOX_STEPS:
        chosen = [points[int(i)] for i in np.linspace(0, len(points) - 1, MAX_BOX_STEPS)]
    return {"step": [step for step, _ in chosen], "box": [box(tensor) for _, tensor in chosen]}


def heat_map(tensor: np.ndarray) -> list[Any]:
    """`[shape, min, max, mean, values]`, the values laid out as TS-VIS's heat map (a list of rows, or one row as a
    flat list for 0-D and 1-D tensors)."""
    array = _bounded(checked(tensor))
    found = summary(array)
    return [list(found.shape), found.min, found.max, found.mean, tiled(array).tolist()]


def histogram(tensor: np.ndarray) -> list[list[Any]]:
    """`[[min, max, [[left, right, count] x 100]]]` of the finite values: numpy's bins (±0.5 around a single value,
    [0, 1] without any), widened where they would be narrower than floats can tell apart."""
    flat = checked(tensor).reshape(-1)
    ranges = [
        (float(values.min()), float(values.max()))
        for start in range(0, flat.size, SLICE_VALUES)
        if (values := _finite(flat[start : start + SLICE_VALUES])).size
    ]
    low, high = (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else (0.0, 1.0)
    if low == high:
        low, high = low - 0.5, high + 0.5
    # Binned in a power-of-two scale (exact) that keeps the range and its widening below the largest float.
    scale = 2.0 ** max(0, math.frexp(max(abs(low), abs(high)))[1] - 1020)
    low, high = low / scale, high / scale
    narrowest = HISTOGRAM_BINS * 128 * float(np.spacing(max(abs(low), abs(high))))
    if high - low < narrowest:
        limit = _LARGEST / scale
        low = min(max(low / 2 + high / 2 - narrowest / 2, -limit), limit - narrowest)
        high = low + narrowest
    # Counted a slice at a time: a large tensor is never held again as float64.
    counts = np.zeros(HISTOGRAM_BINS, dtype=np.int64)
    for start in range(0, flat.size, SLICE_VALUES):
        values = _finite(flat[start : start + SLICE_VALUES])
        counts += np.histogram(values / scale if scale != 1 else values, bins=HISTOGRAM_BINS, range=(low, high))[0]
    edges = np.histogram_bin_edges([], bins=HISTOGRAM_BINS, range=(low, high)) * scale
    buckets = np.column_stack((edges[:-1], edges[1:], counts)).tolist()
    return [[float(edges[0]), float(edges[-1]), buckets]]


def outliers(tensor: np.ndarray, up: float, down: float) -> list[list[Any]]:
    """`[values, positions]` of the elements above the higher bound, below the lower one, or not finite, in row-major
    order of the heat map; a position is `[row, column]`, or `[index]` when the heat map is one row."""
    if math.isnan(up) or math.isnan(down):
        raise InvalidArgumentError(f"outlier bounds must be numbers, not {up!r} and {down!r}")
    grid = tiled(_bounded(checked(tensor)))
    # As float64 scalars, the bounds are compared exactly, not rounded to the tensor's dtype first.
    high, low = np.float64(max(up, down)), np.float64(min(up, down))
    outside = (grid > high) | (grid < low)
    if grid.dtype.kind == "f":
        outside |= ~np.isfinite(grid)
    return [grid[outside].tolist(), np.argwhere(outside).tolist()]


def _percentiles(values: np.ndarray) -> list[float]:
    """`np.percentile(values, PERCENTILES, method="midpoint")` as in float64, of values in any real dtype: they are
    partitioned in place (no copy, and no float64 one), and only the order statistics taken are widened."""
    positions = (values.size - 1) * (np.asarray(PERCENTILES, dtype=np.float64) / 100)
    low, high = np.floor(positions).astype(np.intp), np.ceil(positions).astype(np.intp)
    values.partition(np.unique(np.concatenate([low, high])))
    below, above = values[low].astype(np.float64), values[high].astype(np.float64)
    # numpy's interpolation halfway: from the upper value down.
    found: list[float] = np.where(low == high, below, above - (above - below) * 0.5).tolist()
    return found


def _finite(array: np.ndarray, *, dtype: np.dtype | type = np.float64, owned: bool = False) -> np.ndarray:
    """The finite values, flat, as float64 (no midpoint, range or sum may overflow a narrower type) or `dtype`.
    `owned`: a copy the caller may change."""
    flat = array.reshape(-1)
    if array.dtype.kind != "f":
        return flat.astype(dtype, copy=owned)
    # Gathered a slice at a time into one float64 array: a large tensor is not copied whole on the way.
    slices = range(0, flat.size, SLICE_VALUES)
    count = sum(int(np.count_nonzero(np.isfinite(flat[start : start + SLICE_VALUES]))) for start in slices)
    if count == flat.size and not owned:
        return flat.astype(dtype, copy=False)
    finite = np.empty(count, dtype=dtype)
    position = 0
    for start in slices:
        piece = flat[start : start + SLICE_VALUES]
        kept = piece[np.isfinite(piece)]
        finite[position : position + kept.size] = kept
        position += kept.size
    return finite


def _bounded(array: np.ndarray) -> np.ndarray:
    if array.size > MAX_VALUES:
        raise InvalidArgumentError(
            f"the tensor has {array.size:,} values (shape {list(array.shape)}): heat maps and outlier lists are "
            f"limited to {MAX_VALUES:,} values"
        )
    return array
