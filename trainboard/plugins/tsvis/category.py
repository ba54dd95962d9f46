"""TS-VIS's category listing: per run, the tags of each of its components that hold data."""

from __future__ import annotations

import re
from typing import Any

from trainboard.normaliser.normalise import GRAPHS_PLUGIN, RUN_GRAPH_TAG
from trainboard.normaliser.structure_graph import STRUCTURE_GRAPH_PLUGIN
from trainboard.plugins import audio, histograms, images, scalars, text
from trainboard.plugins.hparams.metadata import PLUGIN_NAME as HPARAMS_PLUGIN
from trainboard.plugins.hparams.metadata import SESSION_START_INFO_TAG
from trainboard.plugins.projector import RunConfig
from trainboard.plugins.tsvis.exception import GENERIC_TENSORS_PLUGIN
from trainboard.plugins.tsvis.projector import file_embeddings
from trainboard.provider.provider import DataProvider
from trainboard.reader.tsvis import EMBEDDINGS_PLUGIN, EXCEPTIONS_PLUGIN, TSVIS_SESSION_TAG

EMBEDDING_SAMPLE_PREFIX = "sample_"


def category(
    provider: DataProvider, experiment_id: str, projector_configs: dict[str, RunConfig]
) -> dict[str, dict[str, Any]]:
    runs: dict[str, dict[str, Any]] = {}

    def component(run: str) -> dict[str, Any]:
        return runs.setdefault(run, {"custom": ["true"]})

    for run, tags in provider.list_scalars(experiment_id=experiment_id, plugin_name=scalars.PLUGIN_NAME).items():
        component(run)["scalar"] = _by_prefix(tags)
    media: tuple[tuple[str, dict[str, Any]], ...] = (
        ("image", provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=images.PLUGIN_NAME)),
        ("audio", provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=audio.PLUGIN_NAME)),
        ("text", provider.list_tensors(experiment_id=experiment_id, plugin_name=text.PLUGIN_NAME)),
    )
    for kind, listed in media:
        for run, tags in listed.items():
            component(run).setdefault("media", {})[kind] = _sorted(tags)
    for run, tags in provider.list_tensors(experiment_id=experiment_id, plugin_name=histograms.PLUGIN_NAME).items():
        component(run)["statistic"] = {"histogram": _sorted(tags), "distribution": _sorted(tags)}
    graph_runs = {
        run
        for run, graph_tags in provider.list_blob_sequences(
            experiment_id=experiment_id, plugin_name=GRAPHS_PLUGIN
        ).items()
        if RUN_GRAPH_TAG in graph_tags
    }
    for run in graph_runs | set(
        provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=STRUCTURE_GRAPH_PLUGIN)
    ):
        # A run without a structure graph file gets one collapsed from its computation graph.
        component(run)["graph"] = ["c_graph", "s_graph"] if run in graph_runs else ["s_graph"]
    for run, tags in provider.list_tensors(experiment_id=experiment_id, plugin_name=HPARAMS_PLUGIN).items():
        if SESSION_START_INFO_TAG in tags or TSVIS_SESSION_TAG in tags:
            component(run)["hyperparm"] = ["true"]
    for run, tags in provider.list_tensors(experiment_id=experiment_id, plugin_name=EMBEDDINGS_PLUGIN).items():
        component(run)["embedding"] = _sorted(tag for tag in tags if not tag.startswith(EMBEDDING_SAMPLE_PREFIX))
    for run in projector_configs:
        embedding_tags = set(component(run).get("embedding", [])) | set(file_embeddings(projector_configs, run))
        component(run)["embedding"] = _sorted(embedding_tags)
    for plugin in (EXCEPTIONS_PLUGIN, GENERIC_TENSORS_PLUGIN):
        for run, tags in provider.list_tensors(experiment_id=experiment_id, plugin_name=plugin).items():
            component(run)["exception"] = _sorted({*component(run).get("exception", []), *tags})
    return runs


def _by_prefix(tags: Any) -> dict[str, list[str]]:
    """Tags grouped by what comes before their first "/" (the whole tag when there is none)."""
    groups: dict[str, list[str]] = {}
    for tag in _sorted(tags):
        groups.setdefault(tag.split("/", 1)[0], []).append(tag)
    return groups


def _sorted(tags: Any) -> list[str]:
    """TS-VIS's order: by the tag's letters, then by the number its digits make (its first 30 digits)."""
    return sorted(tags, key=lambda tag: (re.findall(r"[A-Za-z]", tag), int(re.sub(r"\D", "", tag)[:30] or 0)))
