"""TS-VIS's model structures of a run: `c_graph`, the computation graph of its GraphDef, and `s_graph`, its
structure graph; answered as a JSON string of `{"net": [...], "operator": [...]}`, as TS-VIS answers."""

from __future__ import annotations

import json

from trainboard.errors import NotFoundError
from trainboard.plugins import graphs
from trainboard.plugins.tsvis.computation_graph import computation_graph
from trainboard.plugins.tsvis.operators import operator_categories
from trainboard.provider.provider import DataProvider

COMPUTATION_GRAPH = "c_graph"
STRUCTURE_GRAPH = "s_graph"


def graph(provider: DataProvider, run: str, tag: str) -> str:
    if tag == COMPUTATION_GRAPH:
        net = computation_graph(graphs.run_graph(provider, run))
    else:
        raise NotFoundError(f"no graph {tag!r} in run {run!r}: the tags are {COMPUTATION_GRAPH} and {STRUCTURE_GRAPH}")
    return json.dumps({"net": net, "operator": operator_categories()})
