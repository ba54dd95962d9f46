"""Session starts: TensorBoard's (one per run with a session start info, named by the run) and TS-VIS's (several per
hparams file, each named `<run>/<its group name>`)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError

from trainboard.errors import BadRequestError
from trainboard.plugins.hparams.metadata import (
    PLUGIN_NAME,
    SESSION_END_INFO_TAG,
    SESSION_START_INFO_TAG,
    Contents,
    parse_plugin_data,
)
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter
from trainboard.reader.protos import tsvis_pb2
from trainboard.reader.protos.hparams_pb2 import SessionStartInfo
from trainboard.reader.tsvis import TSVIS_SESSION_TAG


@dataclass(frozen=True, slots=True)
class SessionStart:
    name: str
    # The run whose scalars (and those of its subdirectories, by metric group) hold the session's metric values.
    run: str
    info: Any  # a TensorBoard SessionStartInfo
    end: Any | None  # a SessionEndInfo, when the session's run has one
    # The metric tags a TS-VIS session names; None for TensorBoard's sessions, whose metrics are inferred.
    metric_tags: tuple[str, ...] | None = None
    # A TS-VIS session's SessionStartInfo as written (TS-VIS's API serves it so).
    tsvis_info: Any = None


def session_starts(provider: DataProvider, experiment_id: str, contents: Contents) -> list[SessionStart]:
    """TensorBoard's sessions in walk order, then TS-VIS's, by run in walk order and in file order within a run."""
    starts = [_tensorboard_start(run, tags) for run, tags in contents.items() if SESSION_START_INFO_TAG in tags]
    return starts + tsvis_starts(provider, experiment_id)


def _tensorboard_start(run: str, tags: dict[str, bytes]) -> SessionStart:
    info = parse_plugin_data(tags[SESSION_START_INFO_TAG], "session_start_info")
    end = parse_plugin_data(tags[SESSION_END_INFO_TAG], "session_end_info") if SESSION_END_INFO_TAG in tags else None
    return SessionStart(name=run, run=run, info=info, end=end)


def tsvis_starts(provider: DataProvider, experiment_id: str) -> list[SessionStart]:
    found = provider.read_tensors(
        experiment_id=experiment_id,
        plugin_name=PLUGIN_NAME,
        downsample=None,
        run_tag_filter=RunTagFilter.of(None, {TSVIS_SESSION_TAG}),
    )
    starts = []
    for run in found:
        taken: set[str] = set()
        for index, datum in enumerate(found[run].get(TSVIS_SESSION_TAG, [])):
            tsvis_info = _parse_tsvis(datum.numpy.reshape(-1)[0])
            name = _unique(posixpath.join(run, tsvis_info.group_name or str(index)).removeprefix("./"), taken)
            info = SessionStartInfo(group_name=name, start_time_secs=tsvis_info.start_time_secs or datum.wall_time)
            for entry in tsvis_info.hparams:
                info.hparams[entry.key].CopyFrom(entry.value)
            metric_tags = tuple(dict.fromkeys(entry.key for entry in tsvis_info.metrics))
            starts.append(SessionStart(name, run, info, None, metric_tags, tsvis_info))
    return starts


def _parse_tsvis(content: bytes) -> Any:
    try:
        return tsvis_pb2.HParamsPluginData.FromString(content).session_start_info
    except DecodeError:
        raise BadRequestError("TS-VIS hparams data is no HParamsPluginData message") from None


def _unique(name: str, taken: set[str]) -> str:
    """`name`, or `name (2)`, `name (3)`... when a file names several sessions alike."""
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name} ({number})"
    taken.add(candidate)
    return candidate
