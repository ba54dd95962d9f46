"""TS-VIS's model structures of a run: `c_graph`, the computation graph of its GraphDef, and `s_graph`, its
structure graph (from its structure graph file, else its modules collapsed from its GraphDef); answered as a JSON
string of `{"net": [...], "operator": [...]}`, as TS-VIS answers."""

from __future__ import annotations

import json
from typing import Any

from trainboard.errors import NotFoundError
from trainboard.normaliser.structure_graph import STRUCTURE_GRAPH_PLUGIN, STRUCTURE_GRAPH_TAG
from trainboard.plugins import graphs
from trainboard.plugins.tsvis.computation_graph import computation_graph
from trainboard.plugins.tsvis.module_graph import module_graph
from trainboard.plugins.tsvis.operators import operator_categories
from trainboard.plugins.tsvis.structure_graph import structure_graph
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter

COMPUTATION_GRAPH = "c_graph"
STRUCTURE_GRAPH = "s_graph"


def _structure_graph_json(provider: DataProvider, experiment_id: str, run: str) -> bytes | None:
    """The run's structure graph file as stored, or None when it has none."""
    found = provider.read_blob_sequences(
        experiment_id=experiment_id,
        plugin_name=STRUCTURE_GRAPH_PLUGIN,
        downsample=1,
        run_tag_filter=RunTagFilter.of([run], [STRUCTURE_GRAPH_TAG]),
    )
    points = found.get(run, {}).get(STRUCTURE_GRAPH_TAG, [])
    if not points or not points[-1].values:
        return None
    return provider.read_blob(experiment_id=experiment_id, blob_key=points[-1].values[0].blob_key)


def graph(provider: DataProvider, experiment_id: str, run: str, tag: str) -> str:
    net: list[Any]
    if tag == COMPUTATION_GRAPH:
        net = computation_graph(graphs.run_graph(provider, experiment_id, run))
    elif tag == STRUCTURE_GRAPH:
        written = _structure_graph_json(provider, experiment_id, run)
        net = (
            structure_graph(json.loads(written))
            if written
            else module_graph(graphs.run_graph(provider, experiment_id, run))
        )
    else:
        raise NotFoundError(f"no graph {tag!r} in run {run!r}: the tags are {COMPUTATION_GRAPH} and {STRUCTURE_GRAPH}")
    return json.dumps({"net": net, "operator": operator_categories()})
