"""Sessions, from their starts, with their last metric values."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import Any

from google.protobuf import json_format

from trainboard.plugins import scalars
from trainboard.plugins.hparams.starts import SessionStart, tsvis_starts
from trainboard.plugins.hparams.values import JsonValue, MetricName, MetricValue, Session
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter, ScalarDatum

STATUS_UNKNOWN = 0


def metric_run_tag(session_run: str, metric: MetricName) -> tuple[str, str]:
    """The run and tag holding a session's values of a metric: the run `<session's run>/<group>`, joined as paths."""
    run = posixpath.join(session_run, metric.group)
    return run.removesuffix("/"), metric.tag


def session_metric_run_tag(
    provider: DataProvider, experiment_id: str, session_name: str, metric: MetricName
) -> tuple[str, str] | None:
    """The run and tag of a session's metric; None for a metric that a TS-VIS session does not name."""
    for start in tsvis_starts(provider, experiment_id):
        if start.name == session_name:
            return metric_run_tag(start.run, metric) if _has_metric(start, metric) else None
    return metric_run_tag(session_name, metric)


def _has_metric(start: SessionStart, metric: MetricName) -> bool:
    """Whether a session may have values of `metric`: a TS-VIS session has only the metrics it names."""
    return start.metric_tags is None or (not metric.group and metric.tag in start.metric_tags)


def sessions(
    provider: DataProvider, experiment_id: str, starts: list[SessionStart], metrics: list[MetricName]
) -> list[Session]:
    """Every session, in the order of `starts`, with the last value of each of `metrics` that its runs hold."""
    wanted = [metric_run_tag(start.run, metric) for start in starts for metric in metrics if _has_metric(start, metric)]
    last = _last_scalars(provider, experiment_id, wanted)
    found = []
    for start in starts:
        values = []
        for metric in metrics:
            if not _has_metric(start, metric):
                continue
            datum = last.get(metric_run_tag(start.run, metric))
            if datum is not None:
                values.append(MetricValue(metric, datum.value, datum.step, datum.wall_time))
        info, end = start.info, start.end
        found.append(
            Session(
                name=start.name,
                group_name=info.group_name or start.name,
                hparams=_printable_hparams(info.hparams.items()),
                start_time_secs=info.start_time_secs,
                end_time_secs=end.end_time_secs if end is not None else 0.0,
                status=end.status if end is not None else STATUS_UNKNOWN,
                model_uri=info.model_uri,
                monitor_url=info.monitor_url,
                metric_values=tuple(values),
            )
        )
    return found


def _last_scalars(
    provider: DataProvider, experiment_id: str, run_tags: list[tuple[str, str]]
) -> dict[tuple[str, str], ScalarDatum]:
    if not run_tags:
        return {}
    run_tag_filter = RunTagFilter.of({run for run, _ in run_tags}, {tag for _, tag in run_tags})
    found = provider.read_scalars(
        experiment_id=experiment_id, plugin_name=scalars.PLUGIN_NAME, downsample=1, run_tag_filter=run_tag_filter
    )
    return {(run, tag): points[-1] for run, by_tag in found.items() for tag, points in by_tag.items() if points}


def _printable_hparams(items: Iterable[tuple[str, Any]]) -> dict[str, JsonValue]:
    """Hyperparameter values as JSON, leaving out NaN and infinite numbers, which TensorBoard treats as unset."""
    result: dict[str, JsonValue] = {}
    for name, value in items:
        kind = value.WhichOneof("kind")
        if kind == "number_value":
            number = value.number_value
            if number == number and abs(number) != float("inf"):
                result[name] = number
        elif kind == "string_value":
            result[name] = value.string_value
        elif kind == "bool_value":
            result[name] = value.bool_value
        elif kind is not None:
            result[name] = json_format.MessageToDict(value)
    return result
