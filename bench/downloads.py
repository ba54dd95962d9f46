"""Download benchmark (issue 14 item 3): every point of a chart's scalars from /data/trainboard/scalars as Parquet,
CSV and JSON, as the web UI's download buttons ask for them.

    .venv/bin/python -m bench.downloads [--points 1000000] [--runs 4] [--tags 1] [--repeat 5]

A SQLite store of --points points of --tags tags (one chart's tag, or every tag when more) over --runs runs
(written through `Store.write_batch` as ingest writes them; values and wall times with all their digits, as training
writes them), served by a real `trainboard serve` process; each format is fetched --repeat times (after one warm-up)
by a client that accepts gzip as browsers do, timed from the request to the last byte received (not decompressed).
Prints the median, min and max seconds, the bytes on the wire and whether the server compressed them.
Targets: Parquet <= 1 s, CSV and JSON <= 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from tests.servers import store_serving
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata
from trainboard.reader.tail import FileCursor
from trainboard.store.opening import open_store
from trainboard.store.writer import FileWrite

TAG = "train/loss"
TARGETS = {"parquet": 1.0, "csv": 2.0, "json": 2.0}


def write_store(db: str, points: int, runs: int, tags: int) -> str:
    """The experiment's id."""
    store = open_store(db)
    try:
        experiment = store.create_experiment("bench")
        per_run = points // (runs * tags)
        names = [TAG] if tags == 1 else [f"{TAG}{index}" for index in range(tags)]
        steps = np.arange(per_run, dtype=np.int64)
        metadata = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)
        rng = np.random.default_rng(0)
        for run in range(runs):
            wall_times = 1.7e9 + steps * 0.123456789 + rng.random(per_run) / 1000
            curve = np.exp(-steps / per_run)
            operations = [ScalarSeries(name, steps, wall_times, curve + rng.normal(0, 0.01, per_run)) for name in names]
            batch = Batch(operations=operations, metadata=dict.fromkeys(names, metadata))
            cursor = FileCursor(path=f"/run{run}", offset=per_run, size=per_run, mtime=0.0, head=b"")
            store.write_batch(
                experiment.id, FileWrite(f"run{run}", cursor, RunState(), batch, restarted=False, previous=None)
            )
        return experiment.id
    finally:
        store.close()


def fetch(client: httpx.Client, url: str, form: str, runs: int, tags: int) -> tuple[float, int, str]:
    """Seconds to the last byte, bytes on the wire, Content-Encoding."""
    query = [*([("tag", TAG)] if tags == 1 else []), ("format", form), *(("run", f"run{run}") for run in range(runs))]
    started = time.perf_counter()
    with client.stream("GET", url, params=query) as response:
        response.raise_for_status()
        size = sum(len(chunk) for chunk in response.iter_raw())
    return time.perf_counter() - started, size, response.headers.get("content-encoding", "-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--tags", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        db = f"sqlite:{Path(scratch) / 'store.sqlite'}"
        experiment = write_store(db, args.points, args.runs, args.tags)
        with store_serving(db, Path(scratch) / "serve", "--no_auth") as base:
            url = f"{base}/experiment/{experiment}/data/trainboard/scalars"
            headers = {"Accept-Encoding": "gzip, deflate, br"}
            with httpx.Client(timeout=300, headers=headers) as client:
                shape = f"{args.points:,} points, {args.runs} runs x {args.tags} tags"
                print(f"{shape}, {args.repeat} downloads of each format (after a warm-up)")
                for form in ("parquet", "csv", "json"):
                    fetch(client, url, form, args.runs, args.tags)
                    found = [fetch(client, url, form, args.runs, args.tags) for _ in range(args.repeat)]
                    seconds = [s for s, _, _ in found]
                    median = statistics.median(seconds)
                    verdict = "ok" if median <= TARGETS[form] else f"over the {TARGETS[form]} s target"
                    print(
                        f"{form:8} median {median:.2f} s (min {min(seconds):.2f}, max {max(seconds):.2f}),"
                        f" {found[0][1] / 1e6:.1f} MB on the wire, encoding {found[0][2]}: {verdict}"
                    )


if __name__ == "__main__":
    main()
