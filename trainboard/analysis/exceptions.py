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
# TS-VIS's percentiles, with its box's quartiles in the middle, all taken as the midpoint between neighbours.
PERCENTILES = (0, 5, 10, 25, 50, 75, 90, 95, 100)
WHISKER_IQRS = 1.5


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
        with np.errstate(over="ignore"):
            mean = float(values.mean(dtype=np.float64))
        if not math.isfinite(mean):  # the sum overflowed; the mean of finite values cannot
            mean = float((values / values.size).sum(dtype=np.float64))
    return Summary(tuple(array.shape), array.size, nan, posinf, neginf, low, high, mean)


def box(tensor: np.ndarray) -> list[list[float]]:
    """`[[upper whisker, Q3, median, Q1, lower whisker], [p0, p5, p10, p90, p95, p100]]`: whiskers 1.5 IQR beyond
    the quartiles, clipped to the extremes."""
    values = _finite(checked(tensor))
    if values.size == 0:
        return [[math.nan] * 5, [math.nan] * 6]
    p0, p5, p10, q1, median, q3, p90, p95, p100 = np.percentile(values, PERCENTILES, method="midpoint").tolist()
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
    """`[[min, max, [[left, right, count] x 100]]]` of the finite values; bins over [0, 1] when there are none."""
    values = _finite(checked(tensor))
    # numpy refuses a range wider than the largest float; halving is exact, so bin over half the values.
    scale = 2.0 if values.size and not math.isfinite(float(values.max()) - float(values.min())) else 1.0
    counts, edges = np.histogram(values / scale if scale != 1 else values, bins=HISTOGRAM_BINS)
    edges *= scale
    buckets = np.column_stack((edges[:-1], edges[1:], counts)).tolist()
    return [[float(edges[0]), float(edges[-1]), buckets]]


def outliers(tensor: np.ndarray, up: float, down: float) -> list[list[Any]]:
    """`[values, positions]` of the elements above the higher bound, below the lower one, or not finite, in row-major
    order of the heat map; a position is `[row, column]`, or `[index]` when the heat map is one row."""
    if math.isnan(up) or math.isnan(down):
        raise InvalidArgumentError(f"outlier bounds must be numbers, not {up!r} and {down!r}")
    grid = tiled(_bounded(checked(tensor)))
    high, low = max(up, down), min(up, down)
    outside = (grid > high) | (grid < low)
    if grid.dtype.kind == "f":
        outside |= ~np.isfinite(grid)
    return [grid[outside].tolist(), np.argwhere(outside).tolist()]


def _finite(array: np.ndarray) -> np.ndarray:
    """The finite values, flat; floats as float64, so that no midpoint, range or sum overflows a narrower type."""
    if array.dtype.kind != "f":
        return array.reshape(-1)
    finite: np.ndarray = array[np.isfinite(array)].astype(np.float64, copy=False)
    return finite


def _bounded(array: np.ndarray) -> np.ndarray:
    if array.size > MAX_VALUES:
        raise InvalidArgumentError(
            f"the tensor has {array.size:,} values (shape {list(array.shape)}): heat maps and outlier lists are "
            f"limited to {MAX_VALUES:,} values"
        )
    return array
