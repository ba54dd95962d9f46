"""A logdir for comparing TS-VIS's API: TS-VIS's sample logs, a run of every kind TS-VIS's own SummaryWriter writes,
and a run written by tensorboardX (TensorBoard's format, which TS-VIS reads too). Runs are one level deep, because
TS-VIS names runs by their last directory only."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
from tensorboardX import SummaryWriter

from tests.tsvis.venv import run_in_tsvis

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tsvis"
WRITE_EVERY_KIND = Path(__file__).with_name("write_every_kind.py")


def write_api_logdir(root: Path) -> list[dict[str, Any]]:
    """Writes the logdir; returns what TS-VIS's reader read back from the run "run" its writer wrote."""
    shutil.copytree(FIXTURES / "logs", root)
    shutil.copytree(FIXTURES / "hp" / "hp1", root / "hp1")
    shutil.copytree(FIXTURES / "hp" / "hp2", root / "hp2")
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    written: list[dict[str, Any]] = run_in_tsvis(WRITE_EVERY_KIND, str(root))
    write_tensorboardx_run(root / "tbx")
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
