"""ListMetricEvals: every value of one metric of one session, as the scalars plugin serves the series."""

from __future__ import annotations

from typing import Any

from trainboard.errors import NotFoundError
from trainboard.plugins import scalars
from trainboard.plugins.hparams.sessions import metric_run_tag, session_metric_run_tag
from trainboard.plugins.hparams.values import MetricName
from trainboard.provider.provider import DataProvider


def list_metric_evals(
    provider: DataProvider, experiment_id: str, request: Any, *, samples: int | None
) -> list[scalars.Row]:
    """[wall_time, step, value] of the metric's series; an unknown series is a NotFoundError."""
    metric = MetricName(group=request.metric_name.group, tag=request.metric_name.tag)
    found = session_metric_run_tag(provider, experiment_id, request.session_name, metric)
    if found is not None:
        try:
            return scalars.rows(scalars.scalars(provider, experiment_id, run=found[0], tag=found[1], samples=samples))
        except NotFoundError:
            pass
    # Named as TensorBoard names it, by the session's run, also for a TS-VIS session (whose series is elsewhere).
    run, tag = metric_run_tag(request.session_name, metric)
    raise NotFoundError(f"No scalar data for run={run!r}, tag={tag!r}")
