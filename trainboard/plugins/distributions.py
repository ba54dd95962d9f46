"""The distributions dashboard: each histogram compressed to the values at nine fixed percentiles."""

from __future__ import annotations

from typing import Any

import numpy as np

from trainboard.plugins import histograms
from trainboard.provider.provider import DataProvider

PLUGIN_NAME = "distributions"
# Basis points (1/100 of a percent) of a normal distribution's -inf, -2σ … +2σ, +inf: TensorBoard's bands.
NORMAL_BASIS_POINTS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)
# TensorBoard's distributions route compresses at most 501 histograms per series.
DEFAULT_SAMPLES = 501


def distributions(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, samples: int | None
) -> list[list[Any]]:
    return [
        [wall_time, step, compress(buckets)]
        for wall_time, step, buckets in histograms.histograms(
            provider, experiment_id, run=run, tag=tag, samples=samples
        )
    ]


def compress(buckets: list[list[float]]) -> list[list[float]]:
    """The value at each basis point, interpolating linearly within the bucket where the cumulative count crosses it."""
    if not buckets:
        return [[bp, 0.0] for bp in NORMAL_BASIS_POINTS]
    table = np.array(buckets, dtype=np.float64)
    low, high = table[0][0], table[-1][1]
    rights = table[:, 1].tolist()
    counts = table[:, 2]
    cumulative = (counts * NORMAL_BASIS_POINTS[-1] / (counts.sum() or 1.0)).cumsum()
    result: list[list[float]] = []
    for bp in NORMAL_BASIS_POINTS:
        value = _value_at(bp, cumulative, rights, float(low), float(high))
        if value is None:
            break
        result.append([bp, value])
    result += [[bp, float(high)] for bp in NORMAL_BASIS_POINTS[len(result) :]]
    return result


def _value_at(bp: int, cumulative: np.ndarray, rights: list[float], low: float, high: float) -> float | None:
    """None when no bucket past the basis point has weight: every later basis point then takes the maximum."""
    index = int(np.searchsorted(cumulative, bp, side="right"))
    while index < len(cumulative):
        upper = float(cumulative[index])
        lower = float(cumulative[index - 1]) if index > 0 else 0.0
        if upper == lower:
            index += 1
            continue
        left = low if (index == 0 or lower == 0) else max(rights[index - 1], low)
        right = min(rights[index], high)
        return float(left + (bp - lower) * float(right - left) / (upper - lower))
    return None
