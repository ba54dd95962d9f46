"""The histograms dashboard: [k, 3] bucket tensors (left, right, count) per step."""

from __future__ import annotations

from typing import Any

from trainboard.plugins.markdown import markdown_to_safe_html
from trainboard.plugins.series import tensors
from trainboard.provider.provider import DataProvider

PLUGIN_NAME = "histograms"
# TensorBoard's histograms route returns at most 51 histograms per series.
DEFAULT_SAMPLES = 51


def tags(provider: DataProvider, experiment_id: str) -> dict[str, dict[str, dict[str, str]]]:
    return {
        run: {
            tag: {"displayName": series.display_name, "description": markdown_to_safe_html(series.description)}
            for tag, series in by_tag.items()
        }
        for run, by_tag in provider.list_tensors(experiment_id=experiment_id, plugin_name=PLUGIN_NAME).items()
    }


def histograms(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, samples: int | None
) -> list[list[Any]]:
    points = tensors(
        provider,
        experiment_id,
        PLUGIN_NAME,
        run,
        tag,
        downsample=samples,
        not_found=f"No histogram tag {tag!r} for run {run!r}",
    )
    return [[datum.wall_time, datum.step, datum.numpy.tolist()] for datum in points]
