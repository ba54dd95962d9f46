"""TS-VIS's hyperparameters of one run: its sessions in file order (TS-VIS's several per file, or a TensorBoard
session), each under the group name its writer gave, and the last value of each metric tag per session."""

from __future__ import annotations

from typing import Any

from trainboard.errors import NotFoundError
from trainboard.plugins import scalars
from trainboard.plugins.hparams.metadata import hparams_contents
from trainboard.plugins.hparams.starts import SessionStart, session_starts
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter


def hyperparameters(provider: DataProvider, experiment_id: str, run: str) -> dict[str, Any]:
    starts = [
        start
        for start in session_starts(provider, experiment_id, hparams_contents(provider, experiment_id))
        if start.run == run
    ]
    if not starts:
        raise NotFoundError(f"no hyperparameters in run {run!r}")
    run_scalars = provider.read_scalar_columns(
        experiment_id=experiment_id,
        plugin_name=scalars.PLUGIN_NAME,
        downsample=1,
        run_tag_filter=RunTagFilter.of([run]),
    ).get(run, {})
    last = {tag: float(columns.values[-1]) for tag, columns in run_scalars.items() if len(columns.values)}
    # As TS-VIS: one metric column per metric of the first session, filled by position from every session.
    metrics: list[dict[str, Any]] = [{"tag": "", "value": []} for _ in _metric_tags(starts[0], last)]
    infos = [_info(start) for start in starts]
    for start in starts:
        for column, tag in zip(metrics, _metric_tags(start, last), strict=False):
            if tag in last:
                column["tag"] = tag
                column["value"].append(last[tag])
    return {"hparamsInfo": infos, "metrics": metrics}


def _info(start: SessionStart) -> dict[str, Any]:
    """A session under its group name, with its hyperparameters: as TS-VIS wrote them, or TensorBoard's by name."""
    written = start.tsvis_info
    if written is not None:
        hparams = [{"name": entry.key, "data": _json(entry.value)} for entry in written.hparams]
        return {written.group_name: {"hparams": hparams, "start_time_secs": written.start_time_secs}}
    info = start.info
    hparams = [{"name": name, "data": _json(info.hparams[name])} for name in sorted(info.hparams)]
    return {info.group_name or start.name: {"hparams": hparams, "start_time_secs": info.start_time_secs}}


def _metric_tags(start: SessionStart, last: dict[str, float]) -> list[str]:
    """The tags a TS-VIS session names; for a TensorBoard session, the scalar tags of its run."""
    return list(start.metric_tags) if start.metric_tags is not None else sorted(last)


def _json(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    return getattr(value, kind) if kind in ("number_value", "string_value", "bool_value") else None
