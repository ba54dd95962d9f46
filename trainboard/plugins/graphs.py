"""The graphs dashboard: which runs have graphs and run metadata, and each as TensorBoard's pbtxt."""

from __future__ import annotations

from typing import Any

from trainboard.errors import InvalidArgumentError, NotFoundError
from trainboard.normaliser.normalise import GRAPHS_PLUGIN, RUN_GRAPH_TAG, TAGGED_RUN_METADATA_PLUGIN
from trainboard.plugins import core
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter
from trainboard.reader.protos.graph_pb2 import GraphDef
from trainboard.reader.protos.run_metadata_pb2 import RunMetadata

RUN_METADATA_PLUGIN = "graph_run_metadata"
RUN_METADATA_WITH_GRAPH_PLUGIN = "graph_run_metadata_graph"
KERAS_MODEL_PLUGIN = "graph_keras_model"
# Version marker the graph sub-plugins write as their plugin content.
SUPPORTED_CONTENT = b"1"


def info(provider: DataProvider, experiment_id: str) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}

    def tag_item(run: str, tag: str) -> dict[str, Any]:
        tags: dict[str, dict[str, Any]] = run_item(run)["tags"]
        return tags.setdefault(tag, {"tag": tag, "conceptual_graph": False, "op_graph": False, "profile": False})

    def run_item(run: str) -> dict[str, Any]:
        return result.setdefault(run, {"run": run, "tags": {}, "run_graph": False})

    for plugin, flags in (
        (RUN_METADATA_WITH_GRAPH_PLUGIN, ("op_graph",)),
        (RUN_METADATA_PLUGIN, ("profile", "op_graph")),
        (KERAS_MODEL_PLUGIN, ("conceptual_graph",)),
    ):
        for run, by_tag in provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=plugin).items():
            for tag, series in by_tag.items():
                if series.plugin_content == SUPPORTED_CONTENT:
                    tag_item(run, tag).update(dict.fromkeys(flags, True))
    for run, by_tag in provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=GRAPHS_PLUGIN).items():
        if RUN_GRAPH_TAG in by_tag:
            run_item(run)["run_graph"] = True
    for run, by_tag in provider.list_blob_sequences(
        experiment_id=experiment_id, plugin_name=TAGGED_RUN_METADATA_PLUGIN
    ).items():
        for tag in by_tag:
            tag_item(run, tag)["profile"] = True
    return result


def runs_with_graphs(provider: DataProvider, experiment_id: str) -> list[str]:
    """Seed 001's runs that have a graph, in the order of /data/runs (not the order ingest stored them in)."""
    with_graph = set(provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=GRAPHS_PLUGIN))
    return [run for run in core.runs(provider, experiment_id) if run in with_graph]


def graph(
    provider: DataProvider,
    experiment_id: str,
    *,
    run: str,
    tag: str | None,
    limit_attr_size: int | None,
    large_attrs_key: str | None,
) -> str:
    """The run's graph (or the graph in a tag's run metadata) as pbtxt, with large attributes left out."""
    if tag is None:
        graph_def = run_graph(provider, experiment_id, run)
    else:
        raw = _first_blob(provider, experiment_id, [RUN_METADATA_PLUGIN, RUN_METADATA_WITH_GRAPH_PLUGIN], run, tag)
        function_graphs = RunMetadata.FromString(raw).function_graphs
        graph_def = GraphDef()
        for function_graph in function_graphs:
            graph_def.node.extend(function_graph.pre_optimization_graph.node)
    _limit_attributes(graph_def, limit_attr_size, large_attrs_key)
    return str(graph_def)


def run_graph(provider: DataProvider, experiment_id: str, run: str) -> GraphDef:
    """The run's graph (the last one logged); NotFoundError when it has none."""
    return GraphDef.FromString(_first_blob(provider, experiment_id, [GRAPHS_PLUGIN], run, RUN_GRAPH_TAG))


def run_metadata(provider: DataProvider, experiment_id: str, *, run: str, tag: str) -> str:
    raw = _first_blob(provider, experiment_id, [TAGGED_RUN_METADATA_PLUGIN, RUN_METADATA_PLUGIN], run, tag)
    return str(RunMetadata.FromString(raw))


def _first_blob(provider: DataProvider, experiment_id: str, plugins: list[str], run: str, tag: str) -> bytes:
    """The first blob of the last step of (run, tag) under the first of `plugins` that has it."""
    for plugin in plugins:
        found = provider.read_blob_sequences(
            experiment_id=experiment_id, plugin_name=plugin, downsample=1, run_tag_filter=RunTagFilter.of([run], [tag])
        )
        points = found.get(run, {}).get(tag, [])
        if points and points[0].values:
            return provider.read_blob(experiment_id=experiment_id, blob_key=points[0].values[0].blob_key)
    # TensorBoard answers a bare "Not found" here, naming nothing.
    raise NotFoundError("")


def _limit_attributes(graph_def: GraphDef, limit: int | None, key: str | None) -> None:
    if limit is None:
        return
    if key is None:
        raise InvalidArgumentError("large_attrs_key must be given with limit_attr_size")
    if limit <= 0:
        raise InvalidArgumentError(f"limit_attr_size must be > 0, but is {limit}")
    for node in graph_def.node:
        for name in list(node.attr.keys()):
            if node.attr[name].ByteSize() > limit:
                del node.attr[name]
                node.attr[key].list.s.append(name.encode())
