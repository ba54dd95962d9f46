"""TS-VIS's histograms and distributions: at most 50 evenly spaced steps (then `samples` of those, drawn as TS-VIS
draws them), each histogram as `[wall_time, step, min, max, [[left, right, count]...]]` and each distribution as
`[wall_time, step, [[basis point, value] x 9]]`."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from trainboard.plugins import histograms
from trainboard.plugins.series import tensors
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import TensorDatum

MAX_STEPS = 50
BASIS_POINTS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)


def histogram(provider: DataProvider, experiment_id: str, run: str, tag: str, samples: int | None) -> list[list[Any]]:
    rows = []
    for datum in _sampled(tensors(provider, experiment_id, histograms.PLUGIN_NAME, run, tag), samples):
        buckets = np.asarray(datum.numpy, dtype=np.float64).reshape(-1, 3)
        low, high = (float(buckets[0, 0]), float(buckets[-1, 1])) if len(buckets) else (0.0, 0.0)
        rows.append([datum.wall_time, datum.step, low, high, buckets.tolist()])
    return rows


def distribution(
    provider: DataProvider, experiment_id: str, run: str, tag: str, samples: int | None
) -> list[list[Any]]:
    return [
        [datum.wall_time, datum.step, _distribution(np.asarray(datum.numpy, dtype=np.float64).reshape(-1, 3))]
        for datum in _sampled(tensors(provider, experiment_id, histograms.PLUGIN_NAME, run, tag), samples)
    ]


def _sampled(points: list[TensorDatum], samples: int | None) -> list[TensorDatum]:
    if len(points) > MAX_STEPS:
        points = [points[int(i)] for i in np.linspace(0, len(points) - 1, MAX_STEPS)]
    if samples is not None and samples < len(points):
        chosen = sorted(random.Random(0).sample(range(len(points)), samples))
        points = [points[i] for i in chosen]
    return points


def _distribution(buckets: np.ndarray) -> list[list[float]]:
    """The value at each basis point of the cumulative counts, interpolated in its bucket as TS-VIS does: from the
    right edge of the bucket before it (the minimum for the first bucket), ties of empty buckets taken at the first
    of them; past the last weight, the maximum."""
    total = buckets[:, 2].sum() if len(buckets) else 0.0
    if total <= 0:
        return [[point, 0.0] for point in BASIS_POINTS]
    lowest, highest = float(buckets[0, 0]), float(buckets[-1, 1])
    rights = buckets[:, 1]
    weights = np.cumsum(buckets[:, 2]) * (BASIS_POINTS[-1] / total)
    found: list[list[float]] = []
    for point in BASIS_POINTS:
        index = int(np.searchsorted(weights, point, side="right"))
        if index >= len(weights):
            break
        upper_weight, right = float(weights[index]), min(float(rights[index]), highest)
        if index == 0:
            lower_weight, left = 0.0, lowest
        else:
            while index >= 2 and weights[index - 2] == weights[index - 1]:
                index -= 1
            lower_weight, left = float(weights[index - 1]), max(float(rights[index - 1]), lowest)
        found.append([point, left + (point - lower_weight) * (right - left) / (upper_weight - lower_weight)])
    found.extend([point, highest] for point in BASIS_POINTS[len(found) :])
    return found
