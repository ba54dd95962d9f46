"""A scalar tag drawn against another (a logged tag or a derived metric) as its x axis: tokens seen, epochs, compute.

Each point's x is the x tag's value at the point's step, asof: its last value at or before that step; points before
the x tag's first are left out, as are runs without both tags. Both tags are first one point per step (a step logged
twice counts its last, `trainboard.expressions.evaluation.canonical`). The points keep their step order; where x is not
monotonic the line follows that order and `monotonic` says so (TensorBoard's non-monotonic x option).
"""

from __future__ import annotations

import numpy as np

from trainboard.expressions.evaluation import canonical
from trainboard.plugins import scalars
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter
from trainboard.store.downsample import sample_indices


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
        axis = canonical(by_tag[x].steps, by_tag[x].wall_times, by_tag[x].values)
        at = np.searchsorted(axis.steps, points.steps, side="right") - 1
        kept = at >= 0
        xs = axis.values[at[kept]]
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
