"""TS-VIS's structure graph (`s_graph`): each model of a structure graph file as a tree of its layers (split on "/"
in their names), with an edge from every layer to the layers it feeds, between every pair of scopes below the ones
they share, as in the computation graph. Keras models name their inputs `[[name, ...], ...]`, OneFlow's and TS-VIS's
by name; OneFlow's summary-writing ops are left out; a Sequential model is a chain from an "input" node."""

from __future__ import annotations

from typing import Any

from trainboard.plugins.tsvis.scopes import path_of, preorder, scope_pairs

# OneFlow layers that write summaries: not part of the model.
SUMMARY_OPS = frozenset(
    {
        "summary_write_image",
        "summary_write_pb",
        "summary_write_histogram",
        "summary_write_scalar",
        "create_summary_writer",
        "flush_summary_writer",
    }
)


class _Scope:
    def __init__(self) -> None:
        self.children: dict[str, _Scope] = {}
        self.layer: _Layer | None = None


class _Layer:
    def __init__(self, name: str, op: str, attrs: Any) -> None:
        self.name, self.op, self.attrs = name, op, attrs
        self.inputs: list[str] = []
        self.outputs: list[str] = []


def structure_graph(models: list[Any]) -> list[list[dict[str, Any]]]:
    """One list of top-level nodes per model that has any."""
    found = []
    for model in models:
        layers = _sequential(model) if model.get("class_name") == "Sequential" else _functional(model)
        tree = _Scope()
        for layer in layers.values():
            scope = tree
            for part in path_of(layer.name):
                scope = scope.children.setdefault(part, _Scope())
            scope.layer = layer
        nodes: list[dict[str, Any]] = []
        _build(tree, "", 0, nodes)
        targets: dict[str, dict[str, None]] = {}
        for node in preorder(nodes):
            for target in node["targets"]:
                for source_uid, target_uid in scope_pairs(node["uid"], target):
                    targets.setdefault(source_uid, {})[target_uid] = None
        for node in preorder(nodes):
            node["targets"] = [{"id": target, "info": ""} for target in targets.get(node["uid"], {})]
        if nodes:
            found.append(nodes)
    return found


def _functional(model: dict[str, Any]) -> dict[str, _Layer]:
    oneflow = model.get("backend") == "oneflow"
    entries = [layer for layer in model["config"]["layers"] if isinstance(layer.get("name"), str)]
    skipped = {layer["name"] for layer in entries if oneflow and layer.get("class_name") in SUMMARY_OPS}
    layers = {
        layer["name"]: _Layer(layer["name"], str(layer.get("class_name", "")), layer.get("config", {}))
        for layer in entries
        if layer["name"] not in skipped
    }
    for layer in entries:
        if layer["name"] in skipped:
            continue
        for source in _inbound_names(layer.get("inbound_nodes"), oneflow):
            if source in skipped:
                continue
            layers[layer["name"]].inputs.append(source)
            if source in layers:
                layers[source].outputs.append(layer["name"])
    return {name: layer for name, layer in layers.items() if layer.inputs or layer.outputs}


def _inbound_names(inbound: Any, oneflow: bool) -> list[str]:
    """OneFlow's and TS-VIS's inbound nodes are names; Keras's are `[[[name, node, tensor, kwargs], ...]]`."""
    if not isinstance(inbound, list) or not inbound:
        return []
    if oneflow or all(isinstance(item, str) for item in inbound):
        return [item for item in inbound if isinstance(item, str)]
    first = inbound[0] if isinstance(inbound[0], list) else []
    return [item[0] for item in first if isinstance(item, list) and item and isinstance(item[0], str)]


def _sequential(model: dict[str, Any]) -> dict[str, _Layer]:
    config = model["config"]
    names = [str(layer.get("config", {}).get("name", "")) for layer in config["layers"]]
    layers = {"input": _Layer("input", "ReadVariable", {"shape": config.get("build_input_shape")})}
    previous = "input"
    for name, layer in zip(names, config["layers"], strict=True):
        layers[name] = _Layer(name, str(layer.get("class_name", "")), layer.get("config", {}))
        layers[name].inputs.append(previous)
        layers[previous].outputs.append(name)
        previous = name
    return layers


def _build(scope: _Scope, parent: str, level: int, into: list[dict[str, Any]]) -> None:
    for label, child in scope.children.items():
        path = f"{parent}/{label}" if level else label
        layer = child.layer
        uid = layer.name if layer else path
        node: dict[str, Any] = {
            "label": label,
            "parent": parent,
            "uid": uid,
            "op": layer.op if layer else "",
            "layer": level + 1,
            "attrs": _attrs(layer.attrs) if layer else {},
            "inputs": [name.replace("-", "/") for name in layer.inputs] if layer else [],
            "name": uid.replace("-", "/"),
            "targets": list(layer.outputs) if layer else [],
            "sub_net": [],
        }
        into.append(node)
        _build(child, path, level + 1, node["sub_net"])


def _attrs(config: Any) -> dict[str, Any]:
    """The layer's config, its "shape" as "{d1,d2}"."""
    if not isinstance(config, dict):
        return {}
    attrs = dict(config)
    if isinstance(attrs.get("shape"), list):
        attrs["shape"] = "{" + ",".join(str(size) for size in attrs["shape"]) + "}" if attrs["shape"] else ""
    return attrs
