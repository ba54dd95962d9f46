"""What TS-VIS's two graphs share: nodes nested by name scope, and edges drawn between scopes."""

from __future__ import annotations

from typing import Any


def path_of(name: str) -> list[str]:
    return name.strip("/").split("/")


def scope_pairs(source: str, target: str) -> list[tuple[str, str]]:
    """An edge from `source` to `target` as edges from every scope of the source to every scope of the target below
    the scopes they share (so a collapsed group still shows where its data goes); none when one holds the other."""
    path, target_path = path_of(source), path_of(target)
    shared = next((i for i in range(min(len(path), len(target_path))) if path[i] != target_path[i]), None)
    if shared is None:
        return []
    return [
        ("/".join(path[: depth + 1]), "/".join(target_path[: target_depth + 1]))
        for depth in range(shared, len(path))
        for target_depth in range(shared, len(target_path))
    ]


def preorder(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Nodes and their `sub_net`s, depth first, each before its children."""
    found = []
    for node in nodes:
        found.append(node)
        found.extend(preorder(node["sub_net"]))
    return found
