"""A scalar tag drawn against another (a logged tag or a derived metric) as its x axis: tokens seen, epochs, compute.

Each point's x is the x tag's value at the point's step, asof: its last value at or before that step; points before
the x tag's first are left out, as are runs without both tags. Both tags are first one point per step (a step logged
twice counts its last, `trainboard.expressions.evaluation.canonical`). The points keep their step order; where x is not
monotonic the line follows that order and `monotonic` says so (TensorBoard's non-monotonic x option).
"""

from __future__ import annotations

import numpy as np

from trainboard.errors import InvalidArgumentError
from trainboard.expressions.evaluation import canonical
from trainboard.plugins import scalars
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter, ScalarColumns
from trainboard.store.downsample import sample_indices

# The longest x tag's name a download or frame takes.
MAX_X_LENGTH = 1024


def against(
    provider: DataProvider, experiment_id: str, *, tag: str, x: str, runs: list[str] | None, samples: int | None
) -> dict[str, object]:
    """Each run's points of `tag` with their x, sampled to `samples` points (first and last kept)."""
    found = provider.read_scalar_columns(
        experiment_id=experiment_id,
        plugin_name=scalars.PLUGIN_NAME,
        downsample=None,
        run_tag_filter=RunTagFilter.of(runs, [tag, x]),
    )
    answer: dict[str, object] = {}
    for run, by_tag in found.items():
        if tag not in by_tag or x not in by_tag:
            continue
        points = canonical(by_tag[tag].steps, by_tag[tag].wall_times, by_tag[tag].values)
        every_x = x_at(points.steps, by_tag[x])
        kept = _has_x(points.steps, by_tag[x])
        xs = every_x[kept]
        picked = sample_indices(int(kept.sum()), samples)
        finite = xs[np.isfinite(xs)]
        answer[run] = {
            "step": points.steps[kept][picked].tolist(),
            "wall_time": points.wall_times[kept][picked].tolist(),
            "value": points.values[kept][picked].tolist(),
            "x": xs[picked].tolist(),
            "monotonic": bool(np.all(finite[1:] >= finite[:-1])),
        }
    return {"tag": tag, "x": x, "runs": answer}


def x_at(steps: np.ndarray, axis: ScalarColumns) -> np.ndarray:
    """The x tag's last value at or before each of `steps` (its points one per step, a step logged twice counting
    its last); NaN before its first point."""
    found = canonical(axis.steps, axis.wall_times, axis.values)
    at = np.searchsorted(found.steps, steps, side="right") - 1
    xs = found.values[np.maximum(at, 0)] if len(found.steps) else np.full(len(steps), np.nan)
    return np.where(at >= 0, xs, np.nan)


def _has_x(steps: np.ndarray, axis: ScalarColumns) -> np.ndarray:
    return steps >= axis.steps.min() if len(axis.steps) else np.zeros(len(steps), dtype=bool)


def x_columns(
    provider: DataProvider, experiment_id: str, *, x: str, runs: list[str] | None
) -> dict[str, ScalarColumns]:
    """Every point of the x tag by run (of `runs`; None: every run); an `InvalidArgumentError` where no run has it."""
    found = provider.read_scalar_columns(
        experiment_id=experiment_id,
        plugin_name=scalars.PLUGIN_NAME,
        downsample=None,
        run_tag_filter=RunTagFilter.of(runs, [x]),
    )
    columns = {run: by_tag[x] for run, by_tag in found.items() if x in by_tag}
    if not columns:
        raise InvalidArgumentError(f"x: no run has a scalar tag or derived metric named {x[:200]!r}")
    return columns
