"""A session group's metric values from its sessions': their average, or those of its min, max or median session."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trainboard.errors import BadRequestError
from trainboard.plugins.hparams.values import MetricName, MetricValue, Session

AGGREGATION_UNSET, AGGREGATION_AVG, AGGREGATION_MEDIAN, AGGREGATION_MIN, AGGREGATION_MAX = range(5)


def aggregate(
    group_name: str, sessions: Sequence[Session], aggregation_type: int, aggregation_metric: MetricName
) -> tuple[MetricValue, ...]:
    """The group's metric values; `sessions` are in name order, which decides ties as in TensorBoard."""
    if aggregation_type in (AGGREGATION_AVG, AGGREGATION_UNSET):
        return _average(sessions)
    if aggregation_type == AGGREGATION_MEDIAN:
        measured = sorted(_measurements(group_name, sessions, aggregation_metric), key=lambda pair: pair[0])
        # With an even count, the lower of the two middle sessions.
        return measured[(len(measured) - 1) // 2][1].metric_values
    if aggregation_type in (AGGREGATION_MIN, AGGREGATION_MAX):
        pick: Callable[..., tuple[float, Session]] = min if aggregation_type == AGGREGATION_MIN else max
        return pick(_measurements(group_name, sessions, aggregation_metric), key=lambda pair: pair[0])[1].metric_values
    raise BadRequestError(f"Unknown aggregation_type in request: {aggregation_type}")


def _average(sessions: Sequence[Session]) -> tuple[MetricValue, ...]:
    """Per metric, the mean value, wall time and (floored) step over the sessions that report it."""
    totals: dict[MetricName, list[float]] = {}
    counts: dict[MetricName, int] = {}
    steps: dict[MetricName, int] = {}
    for session in sessions:
        for metric in session.metric_values:
            # Sums start at integer 0 and add in session order, so -0.0 and NaN come out as in TensorBoard.
            total = totals.setdefault(metric.name, [0, 0.0])
            total[0] += metric.value
            total[1] += metric.wall_time_secs
            counts[metric.name] = counts.get(metric.name, 0) + 1
            steps[metric.name] = steps.get(metric.name, 0) + metric.training_step
    return tuple(
        MetricValue(
            name=name,
            value=float(value) / float(counts[name]),
            training_step=steps[name] // counts[name],
            wall_time_secs=wall_time / counts[name],
        )
        for name, (value, wall_time) in totals.items()
    )


def _measurements(group_name: str, sessions: Sequence[Session], metric: MetricName) -> list[tuple[float, Session]]:
    measured = []
    for session in sessions:
        value = next((value for value in session.metric_values if value.name == metric), None)
        if value is not None:
            measured.append((value.value, session))
    if not measured:
        raise BadRequestError(
            f"No session of group {group_name!r} reports the aggregation metric (group={metric.group!r}, "
            f"tag={metric.tag!r})"
        )
    return measured
