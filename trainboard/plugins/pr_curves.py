"""The PR curves dashboard: per step, precision and recall at evenly spaced thresholds, with the confusion counts."""

from __future__ import annotations

from typing import Any

import numpy as np

from trainboard.errors import BadRequestError
from trainboard.plugins.markdown import markdown_to_safe_html
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter, TensorDatum
from trainboard.reader.protos.plugin_data_pb2 import PrCurvePluginData

PLUGIN_NAME = "pr_curves"
DEFAULT_SAMPLES = 100
# The newest version of PrCurvePluginData this reader understands; newer tags are left out, as TensorBoard does.
MAX_VERSION = 0
# Rows of a PR curve tensor.
TRUE_POSITIVES, FALSE_POSITIVES, TRUE_NEGATIVES, FALSE_NEGATIVES, PRECISION, RECALL = range(6)


def tags(provider: DataProvider, experiment_id: str) -> dict[str, dict[str, dict[str, str]]]:
    result: dict[str, dict[str, dict[str, str]]] = {}
    for run, by_tag in provider.list_tensors(experiment_id=experiment_id, plugin_name=PLUGIN_NAME).items():
        result[run] = {
            tag: {"displayName": series.display_name, "description": markdown_to_safe_html(series.description)}
            for tag, series in by_tag.items()
            if PrCurvePluginData.FromString(series.plugin_content).version <= MAX_VERSION
        }
    return result


def pr_curves(
    provider: DataProvider, experiment_id: str, *, runs: list[str], tag: str, samples: int | None
) -> dict[str, list[dict[str, Any]]]:
    """Curves of `tag` for each run; a run without that tag is an error naming it (TensorBoard answers 400)."""
    found = provider.read_tensors(
        experiment_id=experiment_id,
        plugin_name=PLUGIN_NAME,
        downsample=samples,
        run_tag_filter=RunTagFilter.of(runs, [tag]),
    )
    result = {}
    for run in runs:
        series = found.get(run, {}).get(tag)
        if series is None:
            raise BadRequestError(f"No PR curves could be found for run {run!r} and tag {tag!r}")
        result[run] = [_entry(datum) for datum in series]
    return result


def _entry(datum: TensorDatum) -> dict[str, Any]:
    """One step's curve, cut after the last threshold with any positive prediction."""
    data = datum.numpy
    positives = data[[TRUE_POSITIVES, FALSE_POSITIVES], :].astype(int).sum(axis=0)
    end = len(positives)
    while end > 1 and positives[end - 1] == 0:
        end -= 1
    counts = {
        name: [int(value) for value in data[row, :end]]
        for name, row in (
            ("true_positives", TRUE_POSITIVES),
            ("false_positives", FALSE_POSITIVES),
            ("true_negatives", TRUE_NEGATIVES),
            ("false_negatives", FALSE_NEGATIVES),
        )
    }
    return {
        "wall_time": datum.wall_time,
        "step": datum.step,
        "precision": data[PRECISION, :end].tolist(),
        "recall": data[RECALL, :end].tolist(),
        **counts,
        "thresholds": np.linspace(0.0, 1.0, data.shape[1])[:end].tolist(),
    }
