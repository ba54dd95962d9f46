"""Python API benchmark (issue 15): `exp.scalars()` of every point of an ingested store, against tbparse (else
TensorBoard's EventAccumulator) on the same logdir.

    .venv/bin/python -m bench.python_api [--points 10000000] [--runs 10 --tags 20 --steps 1000] [--repeat 3]

1. A SQLite store of --points points (100 runs x 10 tags, written through `Store.write_batch` as ingest writes them),
   read whole with `trainboard.open(store).scalars()`: median of --repeat, target <= 2 s.
2. The engine logdir of --runs x --tags x --steps points (written by tensorboardX), ingested with `trainboard.open`,
   then every point read by trainboard, tbparse (`SummaryReader(...).scalars`) and EventAccumulator, medians of
   --repeat.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import trainboard
from bench.logdirs import Shape, logdir_for
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata
from trainboard.reader.tail import FileCursor
from trainboard.store.opening import open_store
from trainboard.store.writer import FileWrite

RUNS, TAGS = 100, 10


def write_store(path: Path, points: int) -> None:
    store = open_store(str(path))
    try:
        experiment = store.create_experiment("bench")
        per_series = points // (RUNS * TAGS)
        steps = np.arange(per_series, dtype=np.int64)
        metadata = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)
        for run in range(RUNS):
            batch = Batch(
                operations=[
                    ScalarSeries(f"tag{tag}", steps, 1.7e9 + steps / 10.0, np.sin(steps / 1000.0 + tag))
                    for tag in range(TAGS)
                ],
                metadata={f"tag{tag}": metadata for tag in range(TAGS)},
            )
            cursor = FileCursor(path=f"/run{run}", offset=per_series, size=per_series, mtime=0.0, head=b"")
            store.write_batch(
                experiment.id, FileWrite(f"run{run:03}", cursor, RunState(), batch, restarted=False, previous=None)
            )
    finally:
        store.close()


def median_seconds(read: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = read()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def event_accumulator_points(logdir: Path) -> int:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    total = 0
    for directory in sorted({path.parent for path in logdir.rglob("*tfevents*")}):
        accumulator = EventAccumulator(str(directory), size_guidance={"scalars": 0})
        accumulator.Reload()
        total += sum(len(accumulator.Scalars(tag)) for tag in accumulator.Tags()["scalars"])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        store = Path(scratch) / "store.sqlite"
        write_store(store, arguments.points)
        with trainboard.open(store) as experiment:
            seconds, frame = median_seconds(experiment.scalars, arguments.repeat)
            polars_seconds, _ = median_seconds(lambda: experiment.scalars(backend="polars"), arguments.repeat)
        print(f"store of {len(frame):,} points, exp.scalars() (pandas): {seconds:.2f} s median of {arguments.repeat}")
        print(
            f"  ({len(frame) / seconds / 1e6:.1f} M points/s; polars: {polars_seconds:.2f} s); target <= 2 s:"
            f" {'met' if seconds <= 2 else 'NOT MET'}"
        )

        logdir = logdir_for(Shape(arguments.runs, arguments.tags, arguments.steps))
        started = time.perf_counter()
        trainboard.open(logdir, db=str(Path(scratch) / "logdir.sqlite")).close()
        print(f"\nlogdir {logdir.name}: ingest by trainboard.open {time.perf_counter() - started:.2f} s (once)")
        with trainboard.open(logdir, db=str(Path(scratch) / "logdir.sqlite")) as experiment:
            figures = {"trainboard exp.scalars()": median_seconds(experiment.scalars, arguments.repeat)}
        try:
            from tbparse import SummaryReader

            figures["tbparse SummaryReader.scalars"] = median_seconds(
                lambda: SummaryReader(str(logdir), extra_columns={"dir_name", "wall_time"}).scalars, arguments.repeat
            )
        except ImportError:
            print("tbparse is not installed: pip install tbparse")
        ea_seconds, ea_points = median_seconds(lambda: event_accumulator_points(logdir), arguments.repeat)
        for name, (took, result) in figures.items():
            print(f"  {name}: {len(result):,} points in {took:.2f} s ({len(result) / took:,.0f} points/s)")
        print(
            f"  EventAccumulator: {ea_points:,} points in {ea_seconds:.2f} s ({ea_points / ea_seconds:,.0f} points/s)"
        )


if __name__ == "__main__":
    main()
