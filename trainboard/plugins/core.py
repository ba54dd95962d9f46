"""The core routes' views: environment, runs, the plugin listing and seed 000's runs-by-type."""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any

from trainboard.plugins.registry import DASHBOARDS
from trainboard.provider.provider import DataProvider

VERSION = "2.21.0"  # the TensorBoard API version trainboard serves


def environment(provider: DataProvider, experiment_id: str, *, window_title: str) -> dict[str, Any]:
    metadata = provider.experiment_metadata(experiment_id=experiment_id)
    return {
        "version": VERSION,
        "data_location": metadata.data_location,
        "window_title": window_title,
        "experiment_name": metadata.experiment_name,
        "experiment_description": metadata.experiment_description,
        "creation_time": metadata.creation_time,
    }


def runs(provider: DataProvider, experiment_id: str) -> list[str]:
    """Run names by first-event wall time (runs without events last), then name."""
    listed = provider.list_runs(experiment_id=experiment_id)
    ordered = sorted(listed, key=lambda run: (run.start_time if run.start_time is not None else math.inf, run.run_name))
    return [run.run_name for run in ordered]


def plugins_listing(
    provider: DataProvider, experiment_id: str, *, url_prefix: str, active: Collection[str] = ()
) -> dict[str, dict[str, Any]]:
    """Every dashboard; `url_prefix` (path prefix and experiment) goes before module paths, as TensorBoard does.
    `active` names plugins whose data is not in the store (the projector's files)."""
    with_data = {*provider.list_plugins(experiment_id=experiment_id), *active}
    return {
        dashboard.name: {
            "disable_reload": dashboard.disable_reload,
            "enabled": bool(with_data.intersection(dashboard.data_plugins)),
            "remove_dom": False,
            "tab_name": dashboard.tab_name,
            "loading_mechanism": dashboard.loading_mechanism(url_prefix),
        }
        for dashboard in DASHBOARDS
    }


def runs_by_type(provider: DataProvider, experiment_id: str) -> dict[str, dict[str, Any]]:
    """Seed 000's `/data/runs`: every run with its tags by type."""
    result: dict[str, dict[str, Any]] = {
        name: {
            "scalars": [],
            "histograms": [],
            "compressedHistograms": [],
            "images": [],
            "audio": [],
            "graph": False,
            "run_metadata": [],
        }
        for name in runs(provider, experiment_id)
    }
    for run, scalar_tags in provider.list_scalars(experiment_id=experiment_id, plugin_name="scalars").items():
        result[run]["scalars"] = list(scalar_tags)
    for run, histogram_tags in provider.list_tensors(experiment_id=experiment_id, plugin_name="histograms").items():
        result[run]["histograms"] = list(histogram_tags)
        result[run]["compressedHistograms"] = list(histogram_tags)
    for plugin, key in (("images", "images"), ("audio", "audio"), ("graph_tagged_run_metadata", "run_metadata")):
        for run, blob_tags in provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=plugin).items():
            result[run][key] = list(blob_tags)
    for run, graph_tags in provider.list_blob_sequences(experiment_id=experiment_id, plugin_name="graphs").items():
        result[run]["graph"] = "__run_graph__" in graph_tags
    return result
