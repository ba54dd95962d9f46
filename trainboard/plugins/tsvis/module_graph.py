"""A structure graph (`s_graph`) collapsed from a computation graph, for runs that log no structure graph file: each
op belongs to its innermost module, which PyTorch's tracer names `Class[attribute]` in the op's scope (the op's top
scope when no part of its name is a module); the modules are the nodes, nested as their names are, and an edge joins
two modules when an op of one feeds an op of the other."""

from __future__ import annotations

import re
from typing import Any

from trainboard.plugins.tsvis.computation_graph import attributes, graph_ops, source_name
from trainboard.plugins.tsvis.scopes import path_of, preorder, scope_pairs
from trainboard.reader.protos.graph_pb2 import GraphDef

MODULE_SCOPE = re.compile(r"^([A-Za-z_][\w.]*)\[[^\]]*\]$")


def module_graph(graph: GraphDef) -> list[list[dict[str, Any]]]:
    ops = graph_ops(graph)
    module_of = {name: _module(name) for name in ops}
    members: dict[str, list[str]] = {}
    for name, module in module_of.items():
        members.setdefault(module, []).append(name)
    inputs: dict[str, dict[str, None]] = {}
    edges: dict[str, dict[str, str]] = {}
    for name, op in ops.items():
        shapes = attributes(op.attr).get("_output_shapes", [""])
        for consumer in op.outputs:
            source, target = module_of[name], module_of.get(source_name(consumer))
            if target is None or source == target:
                continue
            inputs.setdefault(target, {})[source] = None
            for source_scope, target_scope in scope_pairs(source, target):
                edges.setdefault(source_scope, {})[target_scope] = shapes[0] if len(shapes) == 1 else "{?}"
    tree: dict[str, Any] = {}
    for module in members:
        scope = tree
        for part in path_of(module):
            scope = scope.setdefault(part, {})
    nodes: list[dict[str, Any]] = []
    _build(tree, "", 0, nodes, ops, members, inputs)
    for node in preorder(nodes):
        node["targets"] = [{"id": target, "info": info} for target, info in edges.get(node["uid"], {}).items()]
    return [nodes] if nodes else []


def _module(name: str) -> str:
    path = path_of(name)
    scopes = [index for index, part in enumerate(path[:-1]) if MODULE_SCOPE.match(part)]
    return "/".join(path[: scopes[-1] + 1]) if scopes else path[0]


def _build(
    tree: dict[str, Any],
    parent: str,
    level: int,
    into: list[dict[str, Any]],
    ops: dict[str, Any],
    members: dict[str, list[str]],
    inputs: dict[str, dict[str, None]],
) -> None:
    for label, children in tree.items():
        uid = f"{parent}/{label}" if level else label
        module = MODULE_SCOPE.match(label)
        held = members.get(uid, [])
        kinds = {ops[name].op for name in held}
        node: dict[str, Any] = {
            "label": label,
            "parent": parent,
            "uid": uid,
            "op": module.group(1) if module else (kinds.pop() if len(kinds) == 1 else ""),
            "layer": level + 1,
            "attrs": {"ops": len(held)},
            "inputs": list(inputs.get(uid, {})),
            "name": uid,
            "targets": [],
            "sub_net": [],
        }
        into.append(node)
        _build(children, uid, level + 1, node["sub_net"], ops, members, inputs)
