"""Computing an expression's tree (`trainboard.expressions.syntax`) over series, on every point, with numpy.

A series here has one point per step, in step order (`canonical` makes one from a tag's logged points: a step
logged twice keeps its last value, as groups do). Alignment, the rule for combining series:
- exact (the default): an operation on several series has the steps they all have; the others are left out;
- asof: a series under `asof(...)` (every tag, when a definition is aligned `asof`) takes, at each step, its last
  value at or before that step. Combined with exact series it takes their steps; combined only with other asof
  series, the union of their steps, and the result is asof too. A step before a series' first point has no value
  there and is left out.
A point's wall time is the latest of its operands' (the asof ones' at the point they took).
Arithmetic follows numpy's IEEE rules: 1 / 0 is inf, 0 / 0 and log(-1) are nan, nan compares unequal. Comparisons
give 1.0 or 0.0; `where(c, a, b)` is a where c is non-zero, b where it is zero, nan where c is nan.
Functions over a series' points, in step order: `ema(x, w)` is y0 = x0, y = w * y_previous + (1 - w) * x (the weight
of TensorBoard's smoothing, without its debiasing; nan and inf carry on as in that recursion); `diff(x)` is each
point minus the one before (the first point has none and is left out); `cumsum`, `cummax`, `cummin` as numpy's
(a nan carries on); `rolling_mean(x, n)` is the mean of the last n points (fewer at the start) as numpy's mean of
them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import reduce

import numpy as np

from trainboard.errors import ExpressionError
from trainboard.expressions.syntax import Binary, Call, Name, Node, Number, Unary


@dataclass(frozen=True, slots=True)
class Series:
    steps: np.ndarray  # int64, increasing
    wall_times: np.ndarray
    values: np.ndarray
    asof: bool = False


Value = Series | float
Resolve = Callable[[Name], "Series | None"]


def canonical(steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray) -> Series:
    """A tag's points as a series: in step order, the last point logged at each step."""
    if len(steps) and np.all(steps[1:] > steps[:-1]):
        return Series(steps, wall_times, values.astype(np.float64, copy=False))
    unique, first = np.unique(steps[::-1], return_index=True)
    return Series(unique, wall_times[::-1][first], values[::-1][first].astype(np.float64, copy=False))


def evaluate(tree: Node, resolve: Resolve, *, asof: bool = False) -> Series | None:
    """The expression's series; None where a name it refers to has no series (`resolve` gave None)."""
    with np.errstate(all="ignore"):
        try:
            found = _value(tree, resolve, asof)
        except _Missing:
            return None
    if not isinstance(found, Series):
        raise ExpressionError("the expression refers to no tag", tree.position)
    return found


class _Missing(Exception):
    """A name without a series in this run: the whole expression has none."""


def _value(tree: Node, resolve: Resolve, asof: bool) -> Value:
    if isinstance(tree, Number):
        return tree.value
    if isinstance(tree, Name):
        found = resolve(tree)
        if found is None:
            raise _Missing()
        return replace(found, asof=True) if asof else found
    if isinstance(tree, Unary):
        operand = _value(tree.operand, resolve, asof)
        return _map(lambda x: -x if tree.operator == "-" else +x, [operand])
    if isinstance(tree, Binary):
        operation = _BINARY[tree.operator]
        return _map(operation, [_value(tree.left, resolve, asof), _value(tree.right, resolve, asof)])
    return _call(tree, resolve, asof)


def _call(tree: Call, resolve: Resolve, asof: bool) -> Value:
    arguments = [_value(argument, resolve, asof) for argument in tree.arguments]
    name = tree.function
    if name == "asof":
        (series,) = arguments
        return replace(series, asof=True) if isinstance(series, Series) else series
    if name in _ELEMENTWISE:
        return _map(_ELEMENTWISE[name], arguments)
    series = arguments[0]
    if not isinstance(series, Series):
        raise ExpressionError(f"{name} needs a series (a tag), not a number", tree.position)
    # The parser let only number literals be these functions' second arguments.
    if name == "ema":
        return replace(series, values=_ema(series.values, _literal(tree)))
    if name == "rolling_mean":
        return replace(series, values=_rolling_mean(series.values, int(_literal(tree))))
    if name == "diff":
        return Series(series.steps[1:], series.wall_times[1:], np.diff(series.values), series.asof)
    return replace(series, values=_ACCUMULATING[name](series.values))


def _literal(tree: Call) -> float:
    argument = tree.arguments[1]
    assert isinstance(argument, Number)
    return argument.value


def _map(operation: Callable[..., np.ndarray | float], arguments: list[Value]) -> Value:
    """The operation on aligned values (the alignment rule above); on numbers alone, a number."""
    series = [argument for argument in arguments if isinstance(argument, Series)]
    if not series:
        return float(
            operation(*(np.float64(float(argument)) for argument in arguments if not isinstance(argument, Series)))
        )
    steps, wall_times, columns = _aligned(series)
    picked = iter(columns)
    values = operation(*(next(picked) if isinstance(argument, Series) else argument for argument in arguments))
    both_asof = all(one.asof for one in series)
    return Series(steps, wall_times, np.asarray(values, dtype=np.float64), both_asof)


def _aligned(series: list[Series]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    first = series[0]
    if all(one.steps is first.steps or np.array_equal(one.steps, first.steps) for one in series[1:]):
        # Series logged at the same steps, the common case: nothing to align.
        return first.steps, reduce(np.maximum, [one.wall_times for one in series]), [one.values for one in series]
    exact = [one.steps for one in series if not one.asof]
    steps = reduce(_common, exact) if exact else reduce(np.union1d, [one.steps for one in series])
    positions = []
    kept = np.ones(len(steps), dtype=bool)
    for one in series:
        # The last point at or before each step; for exact series that is the point at the step.
        at = np.searchsorted(one.steps, steps, side="right") - 1
        kept &= at >= 0
        positions.append(at)
    if not kept.all():
        steps = steps[kept]
        positions = [at[kept] for at in positions]
    wall_times = reduce(np.maximum, [one.wall_times[at] for one, at in zip(series, positions, strict=True)])
    return steps, wall_times, [one.values[at] for one, at in zip(series, positions, strict=True)]


def _common(steps: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The steps in both (each increasing), by binary search: quicker than sorting them together."""
    if not len(others):
        return others
    at = np.minimum(np.searchsorted(others, steps), len(others) - 1)
    common: np.ndarray = steps[others[at] == steps]
    return common


def _where(condition: np.ndarray, then: np.ndarray, otherwise: np.ndarray) -> np.ndarray:
    chosen = np.where(condition != 0, then, otherwise)
    return np.where(np.isnan(condition), np.nan, chosen)


def _ema(values: np.ndarray, weight: float) -> np.ndarray:
    """y = weight * y_previous + (1 - weight) * x, y0 = x0, as a scan in log2(n) vectorized steps: y_t is the sum
    of weight ** (t - i) * b_i, b0 = x0 and b_i = (1 - weight) * x_i. Up to the first non-finite value the terms are
    finite; from there on the recursion carries inf (or nan) unchanged, which a running sum of the non-finite values
    gives exactly."""
    finite = np.isfinite(values)
    first_bad = len(values) if finite.all() else int(np.argmin(finite))
    terms = values[:first_bad] * (1 - weight)
    if first_bad:
        terms[0] = values[0]
    shift, factor = 1, weight
    while shift < len(terms) and factor > 0:
        terms[shift:] += factor * terms[:-shift]
        shift, factor = shift * 2, factor * factor
    if first_bad == len(values):
        return terms
    tail = np.cumsum(np.where(finite[first_bad:], 0.0, values[first_bad:]))
    return np.concatenate([terms, tail])


def _rolling_mean(values: np.ndarray, window: int) -> np.ndarray:
    """The mean of each point's window (it and up to window - 1 before it), by running sums: of the finite values,
    and counts of nan, inf and -inf, which decide the mean where the window holds any (as numpy's mean would)."""
    finite = np.isfinite(values)

    def windowed(column: np.ndarray) -> np.ndarray:
        running = np.concatenate([[0], np.cumsum(column)])
        ends = np.arange(1, len(column) + 1)
        sums: np.ndarray = running[ends] - running[np.maximum(ends - window, 0)]
        return sums

    sums = windowed(np.where(finite, values, 0.0))
    counts = np.minimum(np.arange(1, len(values) + 1), window)
    means = sums / counts
    if finite.all():
        return means
    nans = windowed(np.isnan(values).astype(np.int64))
    highs = windowed((values == np.inf).astype(np.int64))
    lows = windowed((values == -np.inf).astype(np.int64))
    means = np.where(highs > 0, np.inf, means)
    means = np.where(lows > 0, -np.inf, means)
    return np.where((nans > 0) | ((highs > 0) & (lows > 0)), np.nan, means)


_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "/": np.true_divide,
    "**": np.power,
    "<": lambda a, b: np.less(a, b).astype(np.float64),
    "<=": lambda a, b: np.less_equal(a, b).astype(np.float64),
    ">": lambda a, b: np.greater(a, b).astype(np.float64),
    ">=": lambda a, b: np.greater_equal(a, b).astype(np.float64),
    "==": lambda a, b: np.equal(a, b).astype(np.float64),
    "!=": lambda a, b: np.not_equal(a, b).astype(np.float64),
}
_ELEMENTWISE: dict[str, Callable[..., np.ndarray]] = {
    "log": np.log,
    "log10": np.log10,
    "exp": np.exp,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "clip": lambda x, low, high: np.minimum(np.maximum(x, low), high),
    "min": np.minimum,
    "max": np.maximum,
    "where": _where,
}
_ACCUMULATING: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "cumsum": np.cumsum,
    "cummax": np.maximum.accumulate,
    "cummin": np.minimum.accumulate,
}
