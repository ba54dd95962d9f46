"""Store benchmark (issue 11): SQLite against PostgreSQL (+ S3 blobs) on the same logdir, side by side in one run.

    .venv/bin/python -m bench.store [--runs 50 --tags 20 --steps 2000] [--repeat 3] [--clients 50 --seconds 20]
        [--long 10000000]

For each backend: points per second of `trainboard ingest` on the engine logdir (medians of --repeat runs, a fresh
database each), then two `trainboard serve` replicas on that database under --clients concurrent clients (each asks
for the tags or one run's scalars of the experiment, from either replica, as fast as it can) with p50 and p99 of each
route; then the downsampled read (1,000 points) of one series of --long points, in the process (`Store.scalars`) and
over HTTP, p50 of 30. Tags and scalars are also timed one request at a time, before the load. PostgreSQL and
SeaweedFS (S3) are started here, on loopback, as the tests start them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

from bench.logdirs import Shape, logdir_for, scalar_points
from tests.pgserver import postgres_server
from tests.s3server import s3_server
from tests.servers import BIN, store_serving
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata
from trainboard.reader.tail import FileCursor
from trainboard.store.opening import open_store
from trainboard.store.writer import FileWrite

DONE = re.compile(r"ingest done: .* in ([0-9.]+) s")
READS = 30


@dataclass(frozen=True, slots=True)
class Backend:
    name: str
    db: str
    blobs: str | None
    env: dict[str, str]

    def blob_flags(self) -> list[str]:
        return [f"--blobs={self.blobs}"] if self.blobs else []

    def flags(self) -> list[str]:
        return [f"--db={self.db}", *self.blob_flags()]


def ingest_seconds(backend: Backend, logdir: Path, experiment: str) -> float:
    """Wall time of one `trainboard ingest` of the logdir, process start to exit."""
    started = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "trainboard"), "ingest", *backend.flags(), f"--experiment={experiment}", f"--logdir={logdir}"],
        capture_output=True,
        env=backend.env,
        check=False,
    )
    seconds = time.perf_counter() - started
    errors = done.stderr.decode(errors="replace")
    if done.returncode != 0 or not DONE.search(errors):
        raise RuntimeError(f"trainboard ingest failed ({done.returncode}):\n{errors[-3000:]}")
    return seconds


def replica(backend: Backend, scratch: Path) -> AbstractContextManager[str]:
    return store_serving(backend.db, scratch, *backend.blob_flags(), "--no_auth", env=backend.env)


@dataclass(slots=True)
class Timings:
    """Milliseconds of each answer by route, and the requests that failed (a status of 400 or more, a connection
    dropped)."""

    routes: dict[str, list[float]]
    # What went wrong (a status code, an exception's name) and how often.
    errors: Counter[str] = field(default_factory=Counter)


async def load(urls: list[str], experiment_id: str, runs: int, clients: int, seconds: float) -> Timings:
    """`clients` clients each ask for the tags or one run's scalars, from either replica, as fast as they can for
    `seconds`; a failed request is counted rather than ending the run."""
    timings = Timings({"tags": [], "scalars": []})
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def client(number: int, http: httpx.AsyncClient) -> None:
        chooser = random.Random(number)
        while time.perf_counter() < deadline:
            base = f"{chooser.choice(urls)}/experiment/{experiment_id}/data/plugin/scalars"
            route = chooser.choice(("tags", "scalars"))
            if route == "tags":
                path = f"{base}/tags"
            else:
                path = f"{base}/scalars?run=run{chooser.randrange(runs):03d}&tag=tag{chooser.randrange(4):02d}"
            started = time.perf_counter()
            try:
                status = (await http.get(path)).status_code
                failure = str(status) if status >= 400 else None
            except httpx.TransportError as error:
                failure = type(error).__name__
            if failure is None:
                timings.routes[route].append((time.perf_counter() - started) * 1000)
            else:
                timings.errors[failure] += 1

    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        await asyncio.gather(*(client(number, http) for number in range(clients)))
    return timings


def quiet_p50(url: str, experiment_id: str, runs: int) -> tuple[float, float]:
    """p50 in ms of tags and of one run's scalars, one request at a time."""
    base = f"{url}/experiment/{experiment_id}"
    timings: dict[str, list[float]] = {"tags": [], "scalars": []}
    with httpx.Client(timeout=60) as client:
        for number in range(READS * 2):
            route = "tags" if number % 2 else "scalars"
            path = (
                f"{base}/data/plugin/scalars/tags"
                if route == "tags"
                else f"{base}/data/plugin/scalars/scalars?run=run{number % runs:03d}&tag=tag00"
            )
            started = time.perf_counter()
            client.get(path).raise_for_status()
            timings[route].append((time.perf_counter() - started) * 1000)
    return statistics.median(timings["tags"]), statistics.median(timings["scalars"])


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def long_series_reads(backend: Backend, points: int, scratch: Path) -> tuple[float, float]:
    """p50 in ms of the downsampled read of one `points`-point series: in the process, and over HTTP."""
    store = open_store(backend.db, backend.blobs)
    try:
        experiment = store.create_experiment("long")
        steps = np.arange(points, dtype=np.int64)
        chunk = 1_000_000
        metadata = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)
        previous = None
        for start in range(0, points, chunk):
            part = steps[start : start + chunk]
            batch = Batch(
                operations=[ScalarSeries("x", part, part / 10.0, np.sin(part / 1000.0))], metadata={"x": metadata}
            )
            cursor = FileCursor(path="/long", offset=start + len(part), size=points, mtime=0.0, head=b"")
            store.write_batch(
                experiment.id, FileWrite("long", cursor, RunState(), batch, restarted=False, previous=previous)
            )
            previous = cursor
        (row,) = store.series(experiment.id)
        in_process = []
        for _ in range(READS):
            started = time.perf_counter()
            assert len(store.scalars(experiment.id, row.id, downsample=1000)) == 1000
            in_process.append((time.perf_counter() - started) * 1000)
    finally:
        store.close()
    over_http = []
    with replica(backend, scratch) as url, httpx.Client(base_url=url, timeout=60) as client:
        path = f"/experiment/{experiment.id}/data/plugin/scalars/scalars?run=long&tag=x"
        client.get(path).raise_for_status()
        for _ in range(READS):
            started = time.perf_counter()
            assert len(client.get(path).raise_for_status().json()) == 1000
            over_http.append((time.perf_counter() - started) * 1000)
    return statistics.median(in_process), statistics.median(over_http)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--long", type=int, default=10_000_000)
    arguments = parser.parse_args()
    shape = Shape(arguments.runs, arguments.tags, arguments.steps)
    logdir = logdir_for(shape)
    points = scalar_points(shape)
    rows = []
    with tempfile.TemporaryDirectory(prefix="trainboard-bench-store-") as name, ExitStack() as stack:
        scratch = Path(name)
        postgres = stack.enter_context(postgres_server())
        s3 = stack.enter_context(s3_server(scratch / "s3", bucket="blobs"))
        s3_env = {
            "AWS_ENDPOINT_URL": s3.endpoint,
            "AWS_ACCESS_KEY_ID": "trainboard",
            "AWS_SECRET_ACCESS_KEY": "trainboard",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        env = {**os.environ, **s3_env}
        os.environ.update(s3_env)

        def backends(index: int) -> list[Backend]:
            return [
                Backend("SQLite", f"sqlite:{scratch / f'store-{index}.sqlite'}", None, env),
                Backend("PostgreSQL", postgres.create_database(f"bench_{index}"), None, env),
                Backend("PostgreSQL + S3", postgres.create_database(f"bench_s3_{index}"), f"s3://blobs/{index}", env),
            ]

        seconds: dict[str, list[float]] = {}
        last: list[Backend] = []
        for index in range(arguments.repeat):
            last = backends(index)
            for backend in last:
                taken = ingest_seconds(backend, logdir, "engine")
                seconds.setdefault(backend.name, []).append(taken)
                print(f"{backend.name}: ingest {taken:.2f} s", file=sys.stderr)
        for backend in last:
            store = open_store(backend.db, backend.blobs)
            experiment_id = store.create_experiment("engine").id
            store.close()
            with (
                replica(backend, scratch / f"{backend.name}-a") as first,
                replica(backend, scratch / f"{backend.name}-b") as second,
            ):
                quiet = quiet_p50(first, experiment_id, shape.runs)
                timings = asyncio.run(
                    load([first, second], experiment_id, shape.runs, arguments.clients, arguments.seconds)
                )
            ingest = statistics.median(seconds[backend.name])
            rows.append(
                (
                    backend.name,
                    ingest,
                    points / ingest,
                    percentile(timings.routes["tags"], 50),
                    percentile(timings.routes["tags"], 99),
                    percentile(timings.routes["scalars"], 50),
                    percentile(timings.routes["scalars"], 99),
                    sum(map(len, timings.routes.values())) / arguments.seconds,
                    *quiet,
                )
            )
        long_reads = {
            backend.name: long_series_reads(backend, arguments.long, scratch / f"long-{backend.name}")
            for backend in backends(arguments.repeat)[:2]
        }
    print(
        f"\nengine logdir {shape.name}: {points:,} scalar points (+ histograms, images); medians of {arguments.repeat}"
    )
    print(f"two serve replicas, {arguments.clients} concurrent clients for {arguments.seconds:.0f} s\n")
    print(
        "| store | ingest | points/s | tags p50, 1 client | scalars p50, 1 client | tags p50 | tags p99 | scalars p50 |"
        " scalars p99 | answers/s |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, ingest, rate, tags50, tags99, scalars50, scalars99, answers, quiet_tags, quiet_scalars in rows:
        print(
            f"| {name} | {ingest:.2f} s | {rate:,.0f} | {quiet_tags:.1f} ms | {quiet_scalars:.1f} ms | {tags50:.1f} ms"
            f" | {tags99:.1f} ms | {scalars50:.1f} ms | {scalars99:.1f} ms | {answers:,.0f} |"
        )
    sqlite_rate = rows[0][2]
    print(f"\nPostgreSQL ingest rate: {rows[1][2] / sqlite_rate:.0%} of SQLite's")
    print(f"\none series of {arguments.long:,} points, downsampled to 1,000 (p50 of {READS}):\n")
    print("| store | in the process | over HTTP |")
    print("| --- | ---: | ---: |")
    for name, (in_process, over_http) in long_reads.items():
        print(f"| {name} | {in_process:.1f} ms | {over_http:.1f} ms |")
    postgres_http = long_reads["PostgreSQL"][1]
    print(f"\ntarget: PostgreSQL downsampled read p50 <= 50 ms: {'met' if postgres_http <= 50 else 'not met'}")


if __name__ == "__main__":
    main()
