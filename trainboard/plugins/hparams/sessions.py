"""Sessions, each a run with a session start info, and their last metric values; grouped by group name."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import Any

from google.protobuf import json_format

from trainboard.plugins import scalars
from trainboard.plugins.hparams.metadata import (
    SESSION_END_INFO_TAG,
    SESSION_START_INFO_TAG,
    Contents,
    parse_plugin_data,
)
from trainboard.plugins.hparams.values import JsonValue, MetricName, MetricValue, Session
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter, ScalarDatum

STATUS_UNKNOWN = 0


def metric_run_tag(session_name: str, metric: MetricName) -> tuple[str, str]:
    """The run and tag holding a session's values of a metric: the run `<session>/<group>`, joined as paths."""
    run = posixpath.join(session_name, metric.group)
    return run.removesuffix("/"), metric.tag


def sessions(provider: DataProvider, contents: Contents, metrics: list[MetricName]) -> list[Session]:
    """Every session in walk order, with the last value of each of `metrics` that its runs hold."""
    names = [run for run, tags in contents.items() if SESSION_START_INFO_TAG in tags]
    last = _last_scalars(provider, [metric_run_tag(name, metric) for name in names for metric in metrics])
    found = []
    for name in names:
        tags = contents[name]
        start = parse_plugin_data(tags[SESSION_START_INFO_TAG], "session_start_info")
        end = (
            parse_plugin_data(tags[SESSION_END_INFO_TAG], "session_end_info") if SESSION_END_INFO_TAG in tags else None
        )
        values = []
        for metric in metrics:
            datum = last.get(metric_run_tag(name, metric))
            if datum is not None:
                values.append(MetricValue(metric, datum.value, datum.step, datum.wall_time))
        found.append(
            Session(
                name=name,
                group_name=start.group_name or name,
                hparams=_printable_hparams(start.hparams.items()),
                start_time_secs=start.start_time_secs,
                end_time_secs=end.end_time_secs if end is not None else 0.0,
                status=end.status if end is not None else STATUS_UNKNOWN,
                model_uri=start.model_uri,
                monitor_url=start.monitor_url,
                metric_values=tuple(values),
            )
        )
    return found


def _last_scalars(provider: DataProvider, run_tags: list[tuple[str, str]]) -> dict[tuple[str, str], ScalarDatum]:
    if not run_tags:
        return {}
    run_tag_filter = RunTagFilter.of({run for run, _ in run_tags}, {tag for _, tag in run_tags})
    found = provider.read_scalars(plugin_name=scalars.PLUGIN_NAME, downsample=1, run_tag_filter=run_tag_filter)
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
