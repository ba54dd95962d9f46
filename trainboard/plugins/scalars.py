"""The scalars dashboard: tags with descriptions, and one series as JSON or CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from trainboard.plugins.markdown import markdown_to_safe_html
from trainboard.plugins.series import scalar_columns
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter, ScalarColumns

PLUGIN_NAME = "scalars"
DEFAULT_SAMPLES = 1000

Row = tuple[float, int, float]


def tags(provider: DataProvider, experiment_id: str) -> dict[str, dict[str, dict[str, str]]]:
    return {
        run: {
            tag: {"displayName": series.display_name, "description": markdown_to_safe_html(series.description)}
            for tag, series in by_tag.items()
        }
        for run, by_tag in provider.list_scalars(experiment_id=experiment_id, plugin_name=PLUGIN_NAME).items()
    }


def tag_runs(provider: DataProvider, experiment_id: str) -> dict[str, Any]:
    """What `tags` says, without saying again what runs share: `{"runs": [RUN, ...], "tags": {TAG: [{"displayName",
    "description", "runs"}, ...]}}`, the runs in `tags`' order, and each tag's runs grouped by its display name and
    description, as indices into `runs` (null: every run). 10,000 runs that log the same 50 tags are 50 entries here,
    where `tags` repeats them 500,000 times (24 MB of JSON for the page to read before it shows its scalars)."""
    listing = provider.list_scalars(experiment_id=experiment_id, plugin_name=PLUGIN_NAME)
    grouped: dict[str, dict[tuple[str, str], list[int]]] = {}
    for index, by_tag in enumerate(listing.values()):
        for tag, series in by_tag.items():
            grouped.setdefault(tag, {}).setdefault((series.display_name, series.description), []).append(index)
    described = {text: markdown_to_safe_html(text) for variants in grouped.values() for _, text in variants}
    return {
        "runs": list(listing),
        "tags": {
            tag: [
                {
                    "displayName": display_name,
                    "description": described[description],
                    "runs": None if len(runs) == len(listing) else runs,
                }
                for (display_name, description), runs in variants.items()
            ]
            for tag, variants in grouped.items()
        },
    }


def scalars(provider: DataProvider, experiment_id: str, *, run: str, tag: str, samples: int | None) -> ScalarColumns:
    return scalar_columns(
        provider,
        experiment_id,
        PLUGIN_NAME,
        run,
        tag,
        downsample=samples,
        not_found=f"No scalar data for run={run!r}, tag={tag!r}",
    )


def scalars_multirun(
    provider: DataProvider, experiment_id: str, *, runs: list[str], tag: str, samples: int | None
) -> dict[str, ScalarColumns]:
    found = provider.read_scalar_columns(
        experiment_id=experiment_id,
        plugin_name=PLUGIN_NAME,
        downsample=samples,
        run_tag_filter=RunTagFilter.of(runs, [tag]),
    )
    return {run: by_tag[tag] for run, by_tag in found.items()}


def rows(series: ScalarColumns) -> list[Row]:
    """[(wall_time, step, value), ...] as Python objects."""
    return list(zip(series.wall_times.tolist(), series.steps.tolist(), series.values.tolist(), strict=True))


def as_csv(series: ScalarColumns) -> str:
    output = io.StringIO()
    writer = csv.writer(output)
    writer.writerow(["Wall time", "Step", "Value"])
    writer.writerows(rows(series))
    return output.getvalue()
