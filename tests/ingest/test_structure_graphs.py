"""TS-VIS structure graph files (JSON beside the event files): read whole, replaced when rewritten; other JSON is left
alone and makes no run; a broken one is logged and skipped."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.stores import TestStore
from trainboard.errors import NotFoundError
from trainboard.plugins.tsvis.graph import graph
from trainboard.reader.logdir import LogDir


def keras_model(*names: str) -> dict[str, Any]:
    """A Keras functional model: each layer fed by the one before it, named Keras's way ([[[name, 0, 0, {}]]])."""
    layers = [{"class_name": "InputLayer", "name": names[0], "config": {"name": names[0]}, "inbound_nodes": []}]
    for previous, name in zip(names, names[1:], strict=False):
        layers.append(
            {"class_name": "Dense", "name": name, "config": {"units": 4}, "inbound_nodes": [[[previous, 0, 0, {}]]]}
        )
    return {"class_name": "Functional", "backend": "tensorflow", "config": {"name": "model", "layers": layers}}


def served_graph(logdir: Path, store: TestStore, run: str) -> list[list[dict[str, Any]]]:
    store.loader(LogDir(str(logdir))).poll()
    net: list[list[dict[str, Any]]] = json.loads(graph(store.provider(), store.experiment_id, run, "s_graph"))["net"]
    return net


def test_a_keras_model_is_served_and_replaced_when_rewritten(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    (logdir / "run").mkdir(parents=True)
    (logdir / "run" / "model.json").write_text(json.dumps([keras_model("input", "hidden/dense", "hidden/out")]))
    store = TestStore(tmp_path / "store.sqlite")
    (nodes,) = served_graph(logdir, store, "run")
    assert [node["uid"] for node in nodes] == ["input", "hidden"]
    assert [target["id"] for target in nodes[0]["targets"]] == ["hidden", "hidden/dense"]
    hidden = nodes[1]["sub_net"]
    assert [(node["uid"], node["inputs"]) for node in hidden] == [
        ("hidden/dense", ["input"]),
        ("hidden/out", ["hidden/dense"]),
    ]
    assert [target["id"] for target in hidden[0]["targets"]] == ["hidden/out"]

    (logdir / "run" / "model.json").write_text(json.dumps([keras_model("a", "b"), keras_model("c", "d", "e")]))
    assert [[node["uid"] for node in model] for model in served_graph(logdir, store, "run")] == [
        ["a", "b"],
        ["c", "d", "e"],
    ]


def test_other_json_makes_no_run(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    (logdir / "configs").mkdir(parents=True)
    (logdir / "configs" / "config.json").write_text(json.dumps({"class_name": "not a list", "lr": 0.1}))
    (logdir / "configs" / "values.json").write_text(json.dumps([1, 2, 3] * 1000))
    store = TestStore(tmp_path / "store.sqlite")
    store.loader(LogDir(str(logdir))).poll()
    assert store.runs() == []
    with pytest.raises(NotFoundError):
        graph(store.provider(), store.experiment_id, "configs", "s_graph")


def test_a_broken_structure_graph_is_logged_and_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    logdir = tmp_path / "logs"
    (logdir / "run").mkdir(parents=True)
    text = json.dumps([keras_model("x", "y")])
    (logdir / "run" / "model.json").write_text(text[: len(text) // 2])
    store = TestStore(tmp_path / "store.sqlite")
    with caplog.at_level(logging.INFO, logger="trainboard.reader"):
        store.loader(LogDir(str(logdir))).poll()
    assert any("model.json: not JSON" in record.getMessage() for record in caplog.records)
    assert store.runs() == []
