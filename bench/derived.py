"""Derived metrics and statistics (issue 26): through the provider over a real SQLite store, in process.

    .venv/bin/python -m bench.derived [--points 1000000] [--repeat 7]

- a derived series `gap = train/loss - val/loss` of --points points (both tags logged at every step): the first read
  (every point of both tags read from the store and computed), then downsampled reads (1,000 points, the charts'),
  which the provider's cache answers; targets 50 ms and 10 ms. Also the computation alone (parse and numpy).
- a group band with the 95 % interval of the mean over 100 runs x 10,000 points (`trainboard.plugins.groups`).
- a comparison of two sets of 500 runs (1,000 runs, 1,000 points each) on max(loss) (`trainboard.plugins.compare`).
Prints the median (and min) milliseconds of --repeat runs, and the median CPU milliseconds of this process (what the
work costs: on a machine shared with other work, wall times grow with its load, CPU times little); first reads are
timed once per fresh provider.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from trainboard.expressions.evaluation import canonical, evaluate
from trainboard.expressions.syntax import parse
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata
from trainboard.plugins import compare, groups
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter
from trainboard.reader.tail import FileCursor
from trainboard.store.opening import open_store
from trainboard.store.store import Store
from trainboard.store.writer import FileWrite

SCALARS = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)


def write(store: Store, experiment: str, run: str, tags: dict[str, np.ndarray]) -> None:
    steps = np.arange(len(next(iter(tags.values()))), dtype=np.int64)
    wall_times = 1.7e9 + steps * 0.1
    operations = [ScalarSeries(tag, steps, wall_times, values) for tag, values in tags.items()]
    batch = Batch(operations=list(operations), metadata=dict.fromkeys(tags, SCALARS))
    cursor = FileCursor(path=f"/{run}", offset=1, size=1, mtime=0.0, head=b"")
    store.write_batch(experiment, FileWrite(run, cursor, RunState(), batch, restarted=False, previous=None))


Figures = tuple[float, float, float]


def row(name: str, figures: Figures, target: str = "") -> None:
    median, least, cpu = figures
    print(f"| {name} | {median:.2f} | {least:.2f} | {cpu:.2f} | {target} |")


def timed(action: Callable[[], object], repeat: int) -> Figures:
    """Median and min wall milliseconds of `repeat` calls, and their median CPU milliseconds."""
    seconds = []
    cpu = []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        action()
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(seconds) * 1000, min(seconds) * 1000, statistics.median(cpu) * 1000


def derived_series(root: Path, points: int, repeat: int) -> None:
    store = open_store(f"sqlite:{root / 'derived.sqlite'}")
    experiment = store.create_experiment("bench").id
    rng = np.random.default_rng(0)
    write(store, experiment, "run", {"train/loss": rng.normal(size=points), "val/loss": rng.normal(size=points)})
    DataProvider(store, writer=store).define(experiment_id=experiment, name="gap", expression="train/loss - val/loss")
    chosen = RunTagFilter.of(["run"], ["gap"])

    def read(provider: DataProvider, downsample: int | None) -> object:
        return provider.read_scalar_columns(
            experiment_id=experiment, plugin_name="scalars", downsample=downsample, run_tag_filter=chosen
        )

    providers = [DataProvider(store) for _ in range(repeat)]
    firsts = [timed(partial(read, fresh, 1000), 1) for fresh in providers]
    provider = providers[-1]  # its cache holds the series: the downsampled reads below
    row(
        f"first read of a {points:,}-point derived series (read + computed)",
        (
            statistics.median(first[0] for first in firsts),
            min(first[1] for first in firsts),
            statistics.median(first[2] for first in firsts),
        ),
        "50",
    )
    logged = store.series(experiment, tags=["train/loss"])[0].id
    row(
        f"for scale: every point of one logged {points:,}-point tag from the store",
        timed(lambda: store.scalars(experiment, logged), repeat),
    )
    row("downsampled read after (1,000 points)", timed(lambda: read(provider, 1000), repeat), "10")
    series = {
        tag: canonical(np.arange(points, dtype=np.int64), np.zeros(points), rng.normal(size=points))
        for tag in ("train/loss", "val/loss")
    }
    tree = parse("train/loss - val/loss")
    computed = timed(lambda: evaluate(tree, lambda name: series[name.tag]), repeat)
    row("the computation alone (numpy)", computed, "")
    ema = parse("ema(train/loss, 0.9)")
    row("ema(train/loss, 0.9) alone", timed(lambda: evaluate(ema, lambda n: series[n.tag]), repeat))
    store.close()


def band(root: Path, repeat: int) -> None:
    store = open_store(f"sqlite:{root / 'band.sqlite'}")
    experiment = store.create_experiment("bench").id
    rng = np.random.default_rng(1)
    for run in range(100):
        write(store, experiment, f"cfg{run % 2}/seed{run}", {"loss": np.cumsum(rng.normal(size=10_000)) / 100})
    provider = DataProvider(store)

    def grouped() -> object:
        return groups.groups(
            provider,
            experiment,
            tag="loss",
            by=groups.grouping("dir:0"),
            band="ci",
            run_filter=None,
            runs=None,
            samples=1000,
        )

    row("group bands with 95 % CI, 100 runs x 10,000 points", timed(grouped, repeat), "")
    store.close()


def comparison(root: Path, repeat: int) -> None:
    store = open_store(f"sqlite:{root / 'compare.sqlite'}")
    experiment = store.create_experiment("bench").id
    rng = np.random.default_rng(2)
    for run in range(1000):
        write(store, experiment, f"{'ab'[run % 2]}/seed{run}", {"loss": rng.normal(run % 2, 1, size=1000)})
    provider = DataProvider(store)

    def compared() -> object:
        return compare.compare(provider, experiment, a="name ~ '^a/'", b="name ~ '^b/'", metric_text="max(loss)")

    row("compare 500 vs 500 runs on max(loss) (1,000 points each)", timed(compared, repeat), "")
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print("| bench | median (ms) | min (ms) | median CPU (ms) | target (ms) |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as scratch:
        derived_series(Path(scratch), args.points, args.repeat)
        band(Path(scratch), args.repeat)
        comparison(Path(scratch), args.repeat)


if __name__ == "__main__":
    main()
