"""A logdir for comparing TS-VIS's API: TS-VIS's sample logs, a run of every kind TS-VIS's own SummaryWriter writes,
and a run written by tensorboardX (TensorBoard's format, which TS-VIS reads too). Runs are one level deep, because
TS-VIS names runs by their last directory only."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
from tensorboardX import SummaryWriter
from tensorboardX.proto import event_pb2, graph_pb2

from tests.tsvis.venv import run_in_tsvis

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tsvis"
WRITE_EVERY_KIND = Path(__file__).with_name("write_every_kind.py")


def write_api_logdir(root: Path) -> list[dict[str, Any]]:
    """Writes the logdir; returns what TS-VIS's reader read back from the run "run" its writer wrote."""
    shutil.copytree(FIXTURES / "logs", root)
    shutil.copytree(FIXTURES / "hp" / "hp1", root / "hp1")
    shutil.copytree(FIXTURES / "hp" / "hp2", root / "hp2")
    shutil.copytree(FIXTURES / "hp" / "log", root / "oneflow")
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    written: list[dict[str, Any]] = run_in_tsvis(WRITE_EVERY_KIND, str(root))
    write_tensorboardx_run(root / "tbx")
    write_graph_runs(root)
    return written


def write_tensorboardx_run(path: Path) -> None:
    rng = np.random.default_rng(11)
    with SummaryWriter(str(path)) as writer:
        for step in range(0, 120, 2):
            writer.add_scalar("train/loss", float(np.exp(-step / 40)), step)
            writer.add_scalar("train/accuracy", 1 - float(np.exp(-step / 30)), step)
            writer.add_scalar("lr", 0.1 * 0.99**step, step)
            writer.add_histogram("layer1/weights", rng.normal(step / 100, 1, size=2000), step)
        for step in range(3):
            writer.add_image("inputs/picture", rng.integers(0, 255, size=(3, 10, 12), dtype=np.uint8), step)
            writer.add_text("notes", f"step {step}: <i>text</i> & **markdown**", step)
            writer.add_audio("tone", np.sin(np.arange(4000) / 8000 * 2 * np.pi * 440 * (step + 1)), step, 8000)


def write_graph_runs(root: Path) -> None:
    """A graph torch traces from nested modules, embeddings torch writes as projector files, and a GraphDef with
    control inputs, several outputs and an op whose name is also a scope."""
    import torch
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    class Block(torch.nn.Module):
        def __init__(self, channels: int) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1)
            self.norm = torch.nn.BatchNorm2d(channels)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.norm(self.conv(x))) + x

    model = torch.nn.Sequential(Block(4), Block(4), torch.nn.Flatten(), torch.nn.Linear(4 * 6 * 6, 3))
    with TorchWriter(str(root / "torch_graph")) as writer:
        writer.add_graph(model.eval(), torch.zeros(2, 4, 6, 6))
    with TorchWriter(str(root / "torch_embedding")) as writer:
        points = torch.arange(40, dtype=torch.float32).reshape(10, 4) / 7
        pictures = torch.linspace(0, 1, 10 * 3 * 8 * 8).reshape(10, 3, 8, 8)
        writer.add_embedding(points, metadata=[f"label {i % 3}" for i in range(10)], label_img=pictures, tag="feat")
        writer.add_embedding(points * 2, metadata=[f"label {i % 3}" for i in range(10)], global_step=5, tag="feat")
    with SummaryWriter(str(root / "graphdef")) as writer:
        writer.file_writer.add_event(event_pb2.Event(graph_def=handmade_graph().SerializeToString()))


def handmade_graph() -> graph_pb2.GraphDef:
    graph = graph_pb2.GraphDef()

    def node(name: str, op: str, inputs: list[str], *shapes: list[int]) -> None:
        added = graph.node.add(name=name, op=op, input=inputs)
        for shape in shapes:
            added.attr["_output_shapes"].list.shape.add(dim=[{"size": size} for size in shape])
        added.attr["T"].type = 1

    node("input", "Placeholder", [], [-1, 4])
    node("layer/w", "VariableV2", [], [4, 3])
    node("layer/matmul", "MatMul", ["input", "layer/w"], [-1, 3])
    node("layer", "Identity", ["layer/matmul"], [-1, 3])
    node("split", "Split", ["layer:0"], [-1, 1], [-1, 2])
    node("out/a", "Relu", ["split:0", "^input"], [-1, 1])
    node("out/b", "Relu", ["split:1"], [-1, 2])
    node("out/c", "Add", ["out/a", "out/b", "^layer/w"], [-1, 2])
    return graph
