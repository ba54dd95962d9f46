"""The experiment: its hyperparameter and metric infos, from an experiment summary or inferred from the sessions."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format

from trainboard.plugins import scalars
from trainboard.plugins.hparams.memo import Remember, compute_now
from trainboard.plugins.hparams.metadata import (
    EXPERIMENT_TAG,
    Contents,
    hparams_contents,
    parse_plugin_data,
)
from trainboard.plugins.hparams.starts import SessionStart, session_starts
from trainboard.plugins.hparams.values import MetricName
from trainboard.provider.provider import DataProvider
from trainboard.reader.protos.hparams_pb2 import (
    DATA_TYPE_BOOL,
    DATA_TYPE_FLOAT64,
    DATA_TYPE_STRING,
    DATA_TYPE_UNSET,
    Experiment,
    HParamInfo,
    MetricInfo,
)
from trainboard.reader.protos.versions import to_dict_with_defaults

KIND_TYPES = {"number_value": DATA_TYPE_FLOAT64, "string_value": DATA_TYPE_STRING, "bool_value": DATA_TYPE_BOOL}


def experiment(
    provider: DataProvider,
    experiment_id: str,
    contents: Contents,
    starts: Callable[[], list[SessionStart]],
    *,
    include_metrics: bool,
) -> dict[str, Any]:
    """The Experiment TensorBoard answers, as JSON: the first experiment summary in walk order, else one inferred from
    the session starts and the scalars of the sessions' runs (or the metrics TS-VIS sessions name), else an empty
    one. Hparam infos come differing first, then by name."""
    found = _from_summary(contents, include_metrics=include_metrics)
    if found is None:
        found = _inferred(provider, experiment_id, starts(), include_metrics=include_metrics)
    printed = to_dict_with_defaults(found)
    printed["hparamInfos"] = sorted(printed["hparamInfos"], key=lambda info: (not info["differs"], info["name"]))
    return printed


def limited(found: dict[str, Any], hparams_limit: int) -> dict[str, Any]:
    """The experiment with its first `hparams_limit` hparam infos; all of them when the limit is 0."""
    infos = found["hparamInfos"]
    return {**found, "hparamInfos": infos[: hparams_limit or len(infos)]}


def metric_names(found: dict[str, Any]) -> list[MetricName]:
    names = [info.get("name", {}) for info in found["metricInfos"]]
    return [MetricName(group=name.get("group", ""), tag=name.get("tag", "")) for name in names]


def _from_summary(contents: Contents, *, include_metrics: bool) -> Any | None:
    for tags in contents.values():
        if EXPERIMENT_TAG in tags:
            found = parse_plugin_data(tags[EXPERIMENT_TAG], "experiment")
            if not include_metrics:
                found.ClearField("metric_infos")
            return found
    return None


def _inferred(provider: DataProvider, experiment_id: str, starts: list[SessionStart], *, include_metrics: bool) -> Any:
    values: dict[str, list[Any]] = {}
    for start in starts:
        for name, value in start.info.hparams.items():
            values.setdefault(name, []).append(value)
    infos = [info for name, found in values.items() if (info := _hparam_info(name, found)) is not None]
    metrics: list[Any] = []
    if infos and include_metrics:
        listed = provider.list_scalars(experiment_id=experiment_id, plugin_name=scalars.PLUGIN_NAME)
        inferring_runs = {start.run for start in starts if start.metric_tags is None}
        # TS-VIS sessions name their metrics: those the session's run holds.
        named = {(tag, "") for start in starts for tag in start.metric_tags or () if tag in listed.get(start.run, {})}
        metrics = [
            MetricInfo(name={"group": group, "tag": tag})
            for tag, group in sorted(_metric_names(listed, inferring_runs) | named)
        ]
    return Experiment(hparam_infos=infos, metric_infos=metrics)


def _hparam_info(name: str, values: list[Any]) -> Any | None:
    """The type all values share (string when they differ), with a discrete domain for strings and booleans and an
    interval for numbers; None when no value is a number, string or boolean."""
    data_type = DATA_TYPE_UNSET
    for value in values:
        kind = KIND_TYPES.get(value.WhichOneof("kind") or "", DATA_TYPE_UNSET)
        if kind == DATA_TYPE_UNSET:
            continue
        data_type = kind if data_type in (DATA_TYPE_UNSET, kind) else DATA_TYPE_STRING
        if data_type == DATA_TYPE_STRING:
            break
    if data_type == DATA_TYPE_UNSET:
        return None
    info = HParamInfo(name=name, type=data_type)
    if data_type == DATA_TYPE_STRING:
        # TensorBoard lists a set, in no particular order; sorted is one of its orders.
        strings = sorted({_as_string(value) for value in values if _printable(value)})
        info.domain_discrete.extend(strings)
        info.differs = len(strings) > 1
    elif data_type == DATA_TYPE_BOOL:
        # Values of other kinds count as false, as in TensorBoard.
        booleans = sorted({value.bool_value for value in values})
        info.domain_discrete.extend(booleans)
        info.differs = len(booleans) > 1
    else:
        numbers = sorted(value.number_value for value in values)
        info.domain_interval.min_value = numbers[0]
        info.domain_interval.max_value = numbers[-1]
        info.differs = len(set(numbers)) > 1
    return info


def _printable(value: Any) -> bool:
    """Numbers, strings and booleans, except the NaN and infinite numbers that JSON cannot hold."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        number = value.number_value
        return bool(number == number and abs(number) != float("inf"))
    return kind in KIND_TYPES


def _as_string(value: Any) -> str:
    """A value as JSON text, strings without their quotes (but with their escapes), as TensorBoard shows them."""
    text = json_format.MessageToJson(value)
    return text[1:-1] if value.WhichOneof("kind") == "string_value" else text


def _metric_names(listed: dict[str, dict[str, Any]], session_runs: set[str]) -> set[tuple[str, str]]:
    """(tag, group) of every scalar series listed in a session's run or below it, the group being the path below
    it."""
    names: set[tuple[str, str]] = set()
    for run, tags in listed.items():
        session = _longest_parent(session_runs, run)
        if session is None:
            continue
        group = posixpath.relpath(run, session)
        if group == "." and not run.endswith("."):
            group = ""
        names.update((tag, group) for tag in tags)
    return names


def _longest_parent(candidates: set[str], run: str) -> str | None:
    """The longest of `candidates` that is `run` or one of its parent directories."""
    path = run
    while path not in candidates:
        if not path or path == posixpath.dirname(path):
            return None
        path = posixpath.dirname(path)
    return path


def get_experiment(
    provider: DataProvider, experiment_id: str, request: Any, remember: Remember = compute_now
) -> dict[str, Any]:
    """The GetExperiment answer for a GetExperimentRequest message, as JSON."""
    include_metrics = not request.HasField("include_metrics") or request.include_metrics
    return limited(full_experiment(provider, experiment_id, include_metrics, remember), request.hparams_limit)


def full_experiment(
    provider: DataProvider, experiment_id: str, include_metrics: bool, remember: Remember = compute_now
) -> dict[str, Any]:
    contents = remember("contents", lambda: hparams_contents(provider, experiment_id))
    return remember(
        ("experiment", include_metrics),
        lambda: experiment(
            provider,
            experiment_id,
            contents,
            lambda: all_starts(provider, experiment_id, remember),
            include_metrics=include_metrics,
        ),
    )


def all_starts(provider: DataProvider, experiment_id: str, remember: Remember = compute_now) -> list[SessionStart]:
    contents = remember("contents", lambda: hparams_contents(provider, experiment_id))
    return remember("starts", lambda: session_starts(provider, experiment_id, contents))
