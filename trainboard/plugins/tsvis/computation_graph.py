"""TS-VIS's computation graph (`c_graph`): a GraphDef as a tree of name scopes, with edges at every level.

Each node of the tree is a scope or an op: `{label, parent, uid, op, layer, attrs, targets, sub_net}`. An edge from
op A to op B appears between every scope of A and every scope of B below the scopes they share (so a collapsed group
still shows where its data goes), labelled with A's output shape. Edges that several ops give one pair of groups are
merged: their shapes joined by ";" and counted in `num`. An op whose name is also a scope (`a/b` beside `a/b/c`) gets
a stand-in `a/b/(b)` inside that scope, as TS-VIS draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format

from trainboard.plugins.tsvis.scopes import path_of, preorder, scope_pairs
from trainboard.reader.protos.graph_pb2 import GraphDef

UNKNOWN_SHAPE = "{?}"


@dataclass
class Op:
    name: str
    op: str
    attr: Any  # the NodeDef's attr map
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)  # consumers, "^" before control consumers


@dataclass
class _Scope:
    children: dict[str, _Scope] = field(default_factory=dict)
    op: Op | None = None


@dataclass
class _Edges:
    """Edges between tree nodes (uid pairs) as merged so far."""

    info: dict[str, str] = field(default_factory=dict)
    count: dict[str, int] = field(default_factory=dict)
    control: dict[str, str] = field(default_factory=dict)
    # Per edge: whether merging has stopped (a stand-in and its op gave it), and "name,depth" of the ops that gave it.
    merged_by: dict[str, list[str]] = field(default_factory=dict)
    targets: dict[str, dict[str, None]] = field(default_factory=dict)


def computation_graph(graph: GraphDef) -> list[dict[str, Any]]:
    ops = graph_ops(graph)
    _add_stand_ins(ops)
    root = _Scope()
    for name, op in ops.items():
        scope = root
        for part in path_of(name):
            scope = scope.children.setdefault(part, _Scope())
        scope.op = op
    net: list[dict[str, Any]] = []
    by_uid: dict[str, dict[str, Any]] = {}
    _build(root, "", 0, net, by_uid)
    edges = _Edges()
    for node in preorder(net):
        _add_edges(node, by_uid, edges)
    for node in preorder(net):
        node["targets"] = [
            {
                "id": target,
                "info": edges.info[f"{node['uid']}__{target}"],
                "control": edges.control[f"{node['uid']}__{target}"],
                "num": edges.count[f"{node['uid']}__{target}"],
            }
            for target in edges.targets.get(node["uid"], {})
        ]
    return net


def source_name(name: str) -> str:
    """An input's op name: without ":<output index>" and the "^" of a control input."""
    name = name.split(":")[0]
    return name[1:] if name.startswith("^") else name


def graph_ops(graph: GraphDef) -> dict[str, Op]:
    """The GraphDef's ops in order, each with its inputs and its consumers."""
    ops = {node.name: Op(node.name, node.op, node.attr) for node in graph.node}
    links: dict[str, list[tuple[str, str]]] = {}
    for node in graph.node:
        for given in node.input:
            consumer = f"^{node.name}" if given.startswith("^") else node.name
            links.setdefault(source_name(given), []).append((given, consumer))
            links.setdefault(node.name, []).append((given, consumer))
    for name, op in ops.items():
        for given, consumer in links.get(name, []):
            if source_name(given) == name:
                op.outputs.append(consumer)
            else:
                op.inputs.append(given)
    return ops


def _add_stand_ins(ops: dict[str, Op]) -> None:
    """For an op whose name begins another op's name it feeds or is fed by, a copy `<name>/(<last part>)`."""
    named: dict[str, None] = {}
    for op in ops.values():
        for consumer in op.outputs:
            if source_name(consumer).startswith(op.name):
                named[op.name] = None
            if op.name.startswith(source_name(consumer)):
                named[consumer] = None
    for name in named:
        original = ops[source_name(name)]
        stand_in = Op(f"{original.name}/({path_of(original.name)[-1]})", original.op, original.attr)
        for given in original.inputs:
            stand_in.inputs.append(given)
            producer = ops.get(source_name(given))
            if producer is not None:
                producer.outputs.append(f"^{stand_in.name}" if given.startswith("^") else stand_in.name)
        for consumer in original.outputs:
            stand_in.outputs.append(consumer)
            target = ops.get(source_name(consumer))
            if target is not None:
                target.inputs.append(f"^{stand_in.name}" if consumer.startswith("^") else stand_in.name)
        ops[stand_in.name] = stand_in


def _build(scope: _Scope, parent: str, level: int, into: list[dict[str, Any]], by_uid: dict[str, Any]) -> None:
    for label, child in scope.children.items():
        path = f"{parent}/{label}" if level else label
        op = child.op
        node: dict[str, Any] = {
            "label": label,
            "parent": parent,
            "uid": op.name if op else path,
            "op": op.op if op else "",
            "layer": level + 1,
            "attrs": attributes(op.attr) if op else {},
            "targets": list(op.outputs) if op else [],
            "sub_net": [],
        }
        by_uid[node["uid"]] = node
        into.append(node)
        _build(child, path, level + 1, node["sub_net"], by_uid)


def attributes(attr: Any) -> dict[str, Any]:
    """Attributes in protobuf's text form on one line; `_output_shapes` as "{d1,d2}" strings, -1 as "?"."""
    found: dict[str, Any] = {}
    for key, value in attr.items():
        if key == "_output_shapes":
            found[key] = [_shape(shape) for shape in value.list.shape]
        else:
            found[key] = text_format.MessageToString(value).replace("\n", "")
    return found


def _shape(shape: Any) -> str:
    sizes = ["?" if dim.size == -1 else str(dim.size) for dim in shape.dim]
    return "{" + ",".join(sizes) + "}" if sizes else ""


def _edge_shapes(node: dict[str, Any], by_uid: dict[str, Any]) -> list[str]:
    """Per target, the shape its edge carries: the op's only output shape, or the one output shape that the target
    has too ("{?}" when none or several match)."""
    shapes = node["attrs"].get("_output_shapes", [""])
    if len(shapes) == 1:
        return [shapes[0]] * len(node["targets"])
    found = []
    for target in node["targets"]:
        target_shapes = by_uid[source_name(target)]["attrs"].get("_output_shapes", [""])
        matches = [shape for shape in shapes if shape in target_shapes]
        found.append(matches[0] if len(matches) == 1 else UNKNOWN_SHAPE)
    return found


def _add_edges(node: dict[str, Any], by_uid: dict[str, Any], edges: _Edges) -> None:
    path = path_of(node["uid"])
    new_info: dict[str, str] = {}
    for target, shape in zip(node["targets"], _edge_shapes(node, by_uid), strict=True):
        for source_uid, target_uid in scope_pairs(node["uid"], source_name(target)):
            key = f"{source_uid}__{target_uid}"
            new_info[key] = shape
            if not target.startswith("^"):
                edges.control[key] = "false"
            else:
                edges.control.setdefault(key, "true")
            edges.targets.setdefault(source_uid, {})[target_uid] = None
    name, depth = path[-1], len(path)
    for key, shape in new_info.items():
        if key not in edges.info:
            edges.info[key], edges.count[key], edges.merged_by[key] = shape, 1, ["false", f"{name},{depth}"]
            continue
        merged_by = edges.merged_by[key]
        if any(_stand_in_pair(given, name, depth) for given in merged_by[1:]):
            merged_by[0] = "true"
        if merged_by[0] == "true":
            continue
        if shape or edges.info[key]:
            if not edges.info[key]:
                edges.info[key] = ";".join(["()"] * edges.count[key])
            edges.info[key] += ";" + (shape or "()")
        edges.count[key] += 1
        merged_by.append(f"{name},{depth}")


def _stand_in_pair(given: str, name: str, depth: int) -> bool:
    """Whether "name,depth" of an earlier op and this op are an op and its stand-in `(name)` one level down."""
    other, _, other_depth = given.rpartition(",")
    return (other.strip("()") == name and int(other_depth) - 1 == depth) or (
        name.strip("()") == other and int(other_depth) + 1 == depth
    )
