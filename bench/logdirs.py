"""The benchmarks' seeded logdirs, written by tensorboardX on first use under bench/out/ and kept."""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

OUT = Path(__file__).parent / "out"


@dataclass(frozen=True, slots=True)
class Shape:
    runs: int
    tags: int
    steps: int
    # Histograms every 20 steps and an image every 100 beside the scalars.
    extras: bool = True

    @property
    def name(self) -> str:
        return f"{'engine' if self.extras else 'scalars'}-{self.runs}x{self.tags}x{self.steps}"


def write_run(root: Path, run: int, shape: Shape) -> None:
    from tensorboardX import SummaryWriter

    rng = np.random.default_rng(run)
    with SummaryWriter(str(root / f"run{run:03d}")) as writer:
        for step in range(shape.steps):
            for tag in range(shape.tags):
                writer.add_scalar(f"tag{tag:02d}", float(rng.normal()), step)
            if not shape.extras:
                continue
            if step % 20 == 0:
                for histogram in range(2):
                    writer.add_histogram(f"hist{histogram}", rng.normal(size=1000), step)
            if step % 100 == 0:
                writer.add_image("img", rng.integers(0, 255, size=(3, 32, 32), dtype=np.uint8), step)


def logdir_for(shape: Shape) -> Path:
    """The seeded logdir, written on first use with one process per core."""
    root = OUT / shape.name
    done = root / ".complete"
    if not done.exists():
        print(f"writing {root} with tensorboardX ...", file=sys.stderr)
        with ProcessPoolExecutor() as pool:
            list(pool.map(write_run, [root] * shape.runs, range(shape.runs), [shape] * shape.runs))
        done.touch()
    return root


def scalar_points(shape: Shape) -> int:
    return shape.runs * shape.tags * shape.steps
