"""A TS-VIS structure graph file's models as one blob-sequence point: the JSON, with TS-VIS's "variable" layers left
out (of the layers and of every layer's inbound nodes), as TS-VIS keeps it."""

from __future__ import annotations

import json
import time
from typing import Any

from trainboard.normaliser.points import Batch, BlobSequencePoint, DataClass, SeriesMetadata

STRUCTURE_GRAPH_TAG = "__structure_graph__"
STRUCTURE_GRAPH_PLUGIN = "tsvis_structure_graph"
VARIABLE_CLASS = "variable"


def structure_graph_batch(models: list[Any]) -> Batch:
    variables = {layer.get("name") for model in models for layer in model["config"]["layers"] if _is_variable(layer)}
    kept = []
    for model in models:
        layers = [
            {**layer, "inbound_nodes": _inbound(layer, variables)}
            for layer in model["config"]["layers"]
            if isinstance(layer, dict) and not _is_variable(layer)
        ]
        kept.append({**model, "config": {**model["config"], "layers": layers}})
    batch = Batch()
    batch.metadata[STRUCTURE_GRAPH_TAG] = SeriesMetadata(
        plugin_name=STRUCTURE_GRAPH_PLUGIN, data_class=DataClass.BLOB_SEQUENCE
    )
    blob = json.dumps(kept).encode()
    batch.operations.append(BlobSequencePoint(tag=STRUCTURE_GRAPH_TAG, step=0, wall_time=time.time(), blobs=(blob,)))
    return batch


def _is_variable(layer: Any) -> bool:
    return isinstance(layer, dict) and layer.get("class_name") == VARIABLE_CLASS


def _inbound(layer: Any, variables: set[Any]) -> Any:
    inbound = layer.get("inbound_nodes", []) if isinstance(layer, dict) else []
    if not isinstance(inbound, list):
        return inbound
    return [node for node in inbound if not (isinstance(node, str) and node in variables)]
