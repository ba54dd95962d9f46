"""Groups with bands: the time of `/data/trainboard/groups/scalars` on 50 runs x 10,000 points (every point read and
aligned by step, then sampled to 1,000), median of several requests after one warm-up; and the run filter's.

    .venv/bin/python -m bench.groups [--repeat 7]

The logdir (tensorboardX) is written once under bench/out/ and kept. Figures go to stdout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import httpx
import numpy as np

from bench.logdirs import OUT
from bench.ui import server

RUNS, STEPS, CONFIGS = 50, 10_000, 5


def write_run(root: Path, run: int) -> None:
    from tensorboardX import SummaryWriter
    from tensorboardX.summary import hparams

    rng = np.random.default_rng(run)
    values = np.cumsum(rng.normal(size=STEPS)) / 100
    with SummaryWriter(str(root / f"cfg{run % CONFIGS}_seed{run // CONFIGS}")) as writer:
        for summary in hparams({"lr": 10.0 ** -(run % CONFIGS), "seed": run // CONFIGS}, {}):
            writer.file_writer.add_summary(summary)
        for step, value in enumerate(values.tolist()):
            writer.add_scalar("loss", value, step, walltime=1_700_000_000 + step)


def logdir() -> Path:
    root = OUT / f"groups-{RUNS}x{STEPS}"
    done = root / ".complete"
    if not done.exists():
        print(f"writing {root} with tensorboardX ...", file=sys.stderr)
        with ProcessPoolExecutor() as pool:
            list(pool.map(write_run, [root] * RUNS, range(RUNS)))
        done.touch()
    return root


def timed(client: httpx.Client, path: str, params: dict[str, str], repeat: int) -> tuple[float, object]:
    answer = client.get(path, params=params).raise_for_status().json()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        client.get(path, params=params).raise_for_status()
        times.append(time.perf_counter() - start)
    return statistics.median(times), answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, server(logdir(), Path(scratch) / "store.sqlite") as url:
        with httpx.Client(base_url=url, timeout=300) as client:
            cases = [
                (
                    "groups: 5 groups of 10 runs (regex), std",
                    "/data/trainboard/groups/scalars",
                    {"tag": "loss", "by": r"regex:(cfg\d)_seed", "band": "std"},
                ),
                (
                    "groups: 1 group of 50 runs (regex), min-max",
                    "/data/trainboard/groups/scalars",
                    {"tag": "loss", "by": "regex:cfg", "band": "minmax"},
                ),
                (
                    "groups: 3 groups by hparam lr, filter lr < 0.05 (30 runs)",
                    "/data/trainboard/groups/scalars",
                    {"tag": "loss", "by": "hparam:lr", "filter": "lr < 0.05"},
                ),
                ("run filter: lr < 0.01 and loss > 0", "/data/trainboard/runs", {"filter": "lr < 0.01 and loss > 0"}),
                (
                    "reference: one run's scalars (1,000 of 10,000)",
                    "/data/plugin/scalars/scalars",
                    {"run": "cfg0_seed0", "tag": "loss"},
                ),
            ]
            print(f"| {RUNS} runs x {STEPS:,} points | median of {args.repeat} (s) | answer |")
            print("| --- | --- | --- |")
            for name, path, params in cases:
                seconds, answer = timed(client, path, params, args.repeat)
                shape = (
                    f"{len(answer['groups'])} groups, {len(answer['groups'][0]['step'])} points each"
                    if isinstance(answer, dict) and "groups" in answer
                    else f"{len(answer['runs'])} runs"
                    if isinstance(answer, dict)
                    else f"{len(answer)} points"
                )
                print(f"| {name} | {seconds:.3f} | {shape} |")


if __name__ == "__main__":
    main()
