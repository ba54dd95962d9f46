"""Upload benchmark (issue 12): `trainboard upload` against `trainboard ingest` of the same logdir into the same
backend, on SQLite and on PostgreSQL + S3, side by side in one run; then dashboard clients on two replicas of
PostgreSQL + S3 with no upload running and while uploads stream into other experiments; then what a point costs in
PostgreSQL.

    .venv/bin/python -m bench.upload [--runs 50 --tags 20 --steps 2000] [--repeat 3] [--clients 50 --seconds 20]
        [--uploads 4] [--long 1000000]

1. For each backend, one `trainboard serve --no_auth` (warmed by a small upload first, so that its read kernels are
   loaded), then --repeat times: the real `trainboard upload` process into a fresh experiment, and `trainboard
   ingest` of the same logdir into another, each timed from process start to exit; MB/s of event files and scalar
   points/s (medians), the ratio upload/ingest, and the peak RSS of the server, of the upload client and of the
   ingest process (sampled every 20 ms from /proc, as bench/engine.py does).
2. PostgreSQL + S3, two serve replicas, --clients concurrent clients (as bench/store.py: the scalars tags or one run's
   scalars of the engine experiment, from either replica, as fast as they can) for --seconds: with no upload, while
   --uploads uploads stream into as many other experiments (split over the replicas), and with no upload again.
3. The bytes a point takes in PostgreSQL (pg_total_relation_size of each table) after `trainboard ingest` of the
   logdir into a database of its own (blobs in S3, whose bytes are counted too), and after writing one --long-point
   series.

PostgreSQL and SeaweedFS (S3) are started here, on loopback, as the tests start them. Everything shares this
machine's cores: servers, databases, the upload clients and the load generator.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
import psutil
import psycopg

import trainboard
from bench.engine import sample_rss
from bench.logdirs import Shape, logdir_for, scalar_points
from bench.store import Backend, Timings, load, percentile, replica
from tests.pgserver import postgres_server
from tests.s3server import s3_server
from tests.servers import BIN
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata
from trainboard.reader.tail import FileCursor
from trainboard.store.opening import open_store
from trainboard.store.writer import FileWrite

DONE = re.compile(r"(?:upload|ingest) done: .*?([0-9,]+) new points in")
# A small logdir uploaded to each server before anything is timed: its first chunks load the read kernels.
WARM_UP = Shape(2, 4, 200)
STREAMING_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Run:
    """One timed process: wall seconds, points it reported, its peak RSS and the server's over the same time (MB)."""

    seconds: float
    points: int
    peak_mb: float
    server_peak_mb: float


@dataclass(frozen=True, slots=True)
class Throughput:
    backend: str
    upload: list[Run]
    ingest: list[Run]


@contextmanager
def peak_rss(pid: int | None) -> Iterator[list[int]]:
    """The largest RSS (bytes) of `pid` and its children while the block runs, in the list's one item."""
    peak = [0]
    if pid is None:
        yield peak
        return
    stop = threading.Event()
    sampler = threading.Thread(target=sample_rss, args=(pid, peak, stop), daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        stop.set()
        sampler.join()


def timed(command: list[str], env: dict[str, str], server_pid: int | None = None) -> Run:
    """Run `command` to its end, sampling its RSS and the server's; the points its last line reports."""
    started = time.perf_counter()
    with peak_rss(server_pid) as server_peak:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        with peak_rss(process.pid) as peak:
            _, errors = process.communicate()
    seconds = time.perf_counter() - started
    text = errors.decode(errors="replace")
    found = DONE.search(text)
    if process.returncode != 0 or found is None:
        raise RuntimeError(f"{' '.join(command[:2])} failed ({process.returncode}):\n{text[-3000:]}")
    return Run(seconds, int(found.group(1).replace(",", "")), peak[0] / 2**20, server_peak[0] / 2**20)


def upload_command(url: str, experiment: str, logdir: Path) -> list[str]:
    return [str(BIN / "trainboard"), "upload", f"--server={url}", f"--experiment={experiment}", f"--logdir={logdir}"]


def ingest_command(backend: Backend, experiment: str, logdir: Path) -> list[str]:
    return [str(BIN / "trainboard"), "ingest", *backend.flags(), f"--experiment={experiment}", f"--logdir={logdir}"]


def create_experiment(backend: Backend, name: str) -> str:
    """A fresh experiment, made in the store: the upload finds it by name (a server without experiment creation
    over HTTP would refuse to make it)."""
    store = open_store(backend.db, backend.blobs)
    try:
        return store.create_experiment(name).id
    finally:
        store.close()


def listening_pid(url: str) -> int:
    """The process listening at `url`'s port (a `trainboard serve`)."""
    port = int(url.rsplit(":", 1)[1])
    for connection in psutil.net_connections("tcp"):
        if connection.laddr and connection.laddr.port == port and connection.status == psutil.CONN_LISTEN:
            if connection.pid is not None:
                return int(connection.pid)
    raise RuntimeError(f"no process listens at {url}")


def warm_up(url: str, backend: Backend, name: str) -> float:
    """Upload the small logdir once; its seconds (the server's first chunks load its read kernels)."""
    create_experiment(backend, name)
    return timed(upload_command(url, name, logdir_for(WARM_UP)), backend.env).seconds


def throughput(backend: Backend, logdir: Path, repeat: int, scratch: Path) -> tuple[Throughput, float]:
    """`repeat` uploads and ingests of the logdir, alternating; and the warm-up upload's seconds."""
    uploads, ingests = [], []
    with replica(backend, scratch) as url:
        server_pid = listening_pid(url)
        warm = warm_up(url, backend, "warm-up")
        for index in range(repeat):
            create_experiment(backend, f"upload-{index}")
            uploads.append(timed(upload_command(url, f"upload-{index}", logdir), backend.env, server_pid))
            ingests.append(timed(ingest_command(backend, f"ingest-{index}", logdir), backend.env))
            print(
                f"{backend.name}: upload {uploads[-1].seconds:.2f} s, ingest {ingests[-1].seconds:.2f} s",
                file=sys.stderr,
            )
    return Throughput(backend.name, uploads, ingests), warm


def committed_bytes(client: httpx.Client, url: str, experiment_ids: list[str]) -> int:
    """The bytes of event files the server has committed in these experiments."""
    total = 0
    for experiment_id in experiment_ids:
        files = client.get(f"{url}/experiment/{experiment_id}/upload/files").raise_for_status().json()["files"]
        total += sum(cursor["offset"] for cursor in files.values())
    return total


@dataclass(frozen=True, slots=True)
class Phase:
    name: str
    timings: Timings
    seconds: float
    # With uploads: MB they committed during the phase, and how many were still running at its end.
    uploaded_mb: float = 0.0
    running_at_end: int = 0

    def all_timings(self) -> list[float]:
        return [ms for route in self.timings.routes.values() for ms in route]


def under_load(
    backend: Backend, logdir: Path, experiment_id: str, arguments: argparse.Namespace, scratch: Path
) -> list[Phase]:
    """Dashboard clients on two replicas: no upload, `uploads` uploads streaming, no upload again."""
    shape = Shape(arguments.runs, arguments.tags, arguments.steps)
    phases = []
    with replica(backend, scratch / "a") as first, replica(backend, scratch / "b") as second:
        urls = [first, second]
        for index, url in enumerate(urls):
            warm_up(url, backend, f"warm-up-{index}")

        def clients(name: str) -> Phase:
            timings = asyncio.run(load(urls, experiment_id, shape.runs, arguments.clients, arguments.seconds))
            return Phase(name, timings, arguments.seconds)

        phases.append(clients("no upload"))
        names = [f"stream-{index}" for index in range(arguments.uploads)]
        experiment_ids = [create_experiment(backend, name) for name in names]
        processes = [
            subprocess.Popen(
                upload_command(urls[index % 2], name, logdir),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=backend.env,
                start_new_session=True,
            )
            for index, name in enumerate(names)
        ]
        try:
            with httpx.Client(timeout=60) as http:
                # Measure once every upload has committed its first chunk.
                deadline = time.monotonic() + STREAMING_SECONDS
                while any(committed_bytes(http, first, [e]) == 0 for e in experiment_ids):
                    if time.monotonic() > deadline or any(p.poll() not in (None, 0) for p in processes):
                        raise RuntimeError("the uploads did not start streaming")
                    time.sleep(0.2)
                before = committed_bytes(http, first, experiment_ids)
                started = time.perf_counter()
                timings = asyncio.run(load(urls, experiment_id, shape.runs, arguments.clients, arguments.seconds))
                seconds = time.perf_counter() - started
                after = committed_bytes(http, first, experiment_ids)
            running = sum(process.poll() is None for process in processes)
        finally:
            for process in processes:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
            for process in processes:
                process.wait(60)
        name = f"{arguments.uploads} uploads streaming"
        phases.append(Phase(name, timings, seconds, (after - before) / 1e6, running))
        phases.append(clients("no upload, after"))
    return phases


@dataclass(frozen=True, slots=True)
class Relation:
    name: str
    rows: int
    bytes: int


def relations(url: str) -> list[Relation]:
    """Each table of the database: its rows and pg_total_relation_size (heap, TOAST and indexes)."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("VACUUM ANALYZE")
        names = [
            row[0]
            for row in connection.execute(
                "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace"
            )
        ]
        found = []
        for name in names:
            row = connection.execute(f'SELECT count(*), pg_total_relation_size(\'"{name}"\') FROM "{name}"').fetchone()
            assert row is not None
            found.append(Relation(name, int(row[0]), int(row[1])))
    return sorted(found, key=lambda relation: -relation.bytes)


def bucket_bytes(endpoint: str, prefix: str) -> tuple[int, int]:
    """Objects and bytes under s3://`prefix` (through s3fs, as the store writes them)."""
    import s3fs

    fs = s3fs.S3FileSystem(key="trainboard", secret="trainboard", client_kwargs={"endpoint_url": endpoint})
    sizes = fs.du(prefix, total=False)
    return len(sizes), sum(sizes.values())


def long_series(url: str, points: int) -> None:
    """One series of `points` scalar points, written as ingest writes them (batches of a million)."""
    store = open_store(url)
    try:
        experiment = store.create_experiment("long")
        steps = np.arange(points, dtype=np.int64)
        metadata = {"x": SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)}
        previous = None
        for start in range(0, points, 1_000_000):
            part = steps[start : start + 1_000_000]
            batch = Batch(operations=[ScalarSeries("x", part, part / 10.0, np.sin(part / 1000.0))], metadata=metadata)
            cursor = FileCursor(path="/long", offset=start + len(part), size=points, mtime=0.0, head=b"")
            store.write_batch(
                experiment.id, FileWrite("long", cursor, RunState(), batch, restarted=False, previous=previous)
            )
            previous = cursor
    finally:
        store.close()


def machine(postgres_url: str) -> list[str]:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    memory = psutil.virtual_memory().total / 2**30
    with psycopg.connect(postgres_url) as connection:
        row = connection.execute("SHOW server_version").fetchone()
        postgres_version = row[0] if row else "?"
    weed = subprocess.run([str(BIN / "weed"), "version"], capture_output=True, text=True).stdout.split("\n")[0]
    import starlette
    import uvicorn

    return [
        f"machine: {os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, {platform.platform()}",
        f"versions: trainboard {trainboard.__version__}, Python {platform.python_version()}, PostgreSQL"
        f" {postgres_version}, SeaweedFS {weed.removeprefix('version ')}, uvicorn {uvicorn.__version__}, Starlette"
        f" {starlette.__version__}, psycopg {psycopg.__version__}, httpx {httpx.__version__}",
    ]


def median(values: list[float]) -> float:
    return statistics.median(values)


def print_throughput(results: list[Throughput], size_mb: float, points: int, repeat: int) -> None:
    print(f"\n1. upload against ingest, medians of {repeat} (wall time of each process, start to exit)\n")
    print(
        "| backend | command | seconds | MB/s | scalar points/s | upload/ingest | peak RSS of the process |"
        " peak RSS of serve |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for result in results:
        upload = median([run.seconds for run in result.upload])
        ingest = median([run.seconds for run in result.ingest])
        for command, runs, seconds in (("upload", result.upload, upload), ("ingest", result.ingest, ingest)):
            ratio = f"{ingest / upload:.0%}" if command == "upload" else ""
            server = f"{max(run.server_peak_mb for run in runs):,.0f} MB" if command == "upload" else ""
            print(
                f"| {result.backend} | {command} | {seconds:.2f} | {size_mb / seconds:.1f} | {points / seconds:,.0f} |"
                f" {ratio} | {median([run.peak_mb for run in runs]):,.0f} MB | {server} |"
            )
    for result in results:
        reported = {run.points for run in [*result.upload, *result.ingest]}
        verdict = "the same" if len(reported) == 1 else "DIFFERENT"
        print(
            f"{result.backend}: points committed by each upload and ingest (every kind): {sorted(reported)} ({verdict})"
        )


def print_phases(phases: list[Phase], arguments: argparse.Namespace) -> None:
    print(
        f"\n2. PostgreSQL + S3, two serve replicas, {arguments.clients} concurrent clients for"
        f" {arguments.seconds:.0f} s each (ms)\n"
    )
    print(
        "| while | tags p50 | tags p99 | scalars p50 | scalars p99 | all p50 | all p99 | answers/s | failed | uploads |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for phase in phases:
        uploads = (
            f"{phase.uploaded_mb / phase.seconds:.1f} MB/s committed, {phase.running_at_end} still running at the end"
            if phase.uploaded_mb
            else ""
        )
        cells = [
            percentile(values, q)
            for values in (phase.timings.routes["tags"], phase.timings.routes["scalars"], phase.all_timings())
            for q in (50, 99)
        ]
        answers = len(phase.all_timings()) / phase.seconds
        failed = ", ".join(f"{count} {reason}" for reason, count in phase.timings.errors.items()) or "0"
        print(
            f"| {phase.name} | "
            + " | ".join(f"{ms:.0f}" for ms in cells)
            + f" | {answers:,.0f} | {failed} | {uploads} |"
        )


def print_sizes(
    engine: list[Relation], objects: tuple[int, int], long: list[Relation], points: int, long_points: int
) -> None:
    print(f"\n3. PostgreSQL after `trainboard ingest` of the logdir (blobs in S3), {points:,} scalar points\n")
    print("| table | rows | MB | bytes per row |")
    print("| --- | ---: | ---: | ---: |")
    for relation in engine:
        per_row = f"{relation.bytes / relation.rows:,.0f}" if relation.rows else ""
        print(f"| {relation.name} | {relation.rows:,} | {relation.bytes / 1e6:.2f} | {per_row} |")
    total = sum(relation.bytes for relation in engine)
    print(f"| all tables | | {total / 1e6:.2f} | |")
    print(f"| S3 bucket | {objects[0]:,} objects | {objects[1] / 1e6:.2f} | |")
    chunks = next(relation for relation in engine if relation.name == "scalar_chunks")
    print(
        f"\nbytes per scalar point: scalar_chunks {chunks.bytes / points:.1f}, every table {total / points:.1f}"
        " (histograms, images' keys, series and files included)"
    )
    chunks = next(relation for relation in long if relation.name == "scalar_chunks")
    print(
        f"\none series of {long_points:,} points: scalar_chunks {chunks.bytes / 1e6:.1f} MB in {chunks.rows:,} chunks,"
        f" {chunks.bytes / long_points:.1f} bytes per point (24 of them the point itself)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--uploads", type=int, default=4, help="uploads streaming while the clients ask")
    parser.add_argument("--long", type=int, default=1_000_000, help="points of the series whose bytes are measured")
    arguments = parser.parse_args()
    shape = Shape(arguments.runs, arguments.tags, arguments.steps)
    logdir = logdir_for(shape)
    logdir_for(WARM_UP)
    size_mb = sum(path.stat().st_size for path in logdir.rglob("*tfevents*")) / 1e6
    points = scalar_points(shape)
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="trainboard-bench-upload-") as name, ExitStack() as stack:
        scratch = Path(name)
        postgres = stack.enter_context(postgres_server())
        s3 = stack.enter_context(s3_server(scratch / "s3", bucket="blobs"))
        s3_env = {
            "AWS_ENDPOINT_URL": s3.endpoint,
            "AWS_ACCESS_KEY_ID": "trainboard",
            "AWS_SECRET_ACCESS_KEY": "trainboard",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        os.environ.update(s3_env)
        env = dict(os.environ)
        about = machine(postgres.url)
        backends = [
            Backend("SQLite", f"sqlite:{scratch / 'store.sqlite'}", None, env),
            Backend("PostgreSQL + S3", postgres.create_database("bench_upload"), "s3://blobs/upload", env),
        ]
        results, warm = [], {}
        for backend in backends:
            result, warm[backend.name] = throughput(backend, logdir, arguments.repeat, scratch / backend.name)
            results.append(result)
        team = backends[-1]
        store = open_store(team.db, team.blobs)
        try:
            engine_id = store.create_experiment(f"ingest-{arguments.repeat - 1}").id
        finally:
            store.close()
        phases = under_load(team, logdir, engine_id, arguments, scratch / "load")

        sizes = Backend("PostgreSQL + S3", postgres.create_database("bench_sizes"), "s3://blobs/sizes", env)
        subprocess.run(ingest_command(sizes, "engine", logdir), check=True, capture_output=True, env=env)
        engine_relations = relations(sizes.db)
        objects = bucket_bytes(s3.endpoint, "blobs/sizes")
        long_url = postgres.create_database("bench_long")
        long_series(long_url, arguments.long)
        long_relations = relations(long_url)

    print()
    print(f"load average (1 min) at the start {load_start:.1f}, at the end {os.getloadavg()[0]:.1f}")
    for line in about:
        print(line)
    print(
        f"logdir {shape.name} (tensorboardX: {shape.runs} runs x {shape.tags} scalar tags x {shape.steps} steps,"
        f" histograms every 20 steps, an image every 100): {size_mb:.1f} MB of event files, {points:,} scalar points"
    )
    warmed = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in warm.items())
    print(f"warm-up upload of {WARM_UP.name} into a just-started server (not counted): {warmed}")
    print_throughput(results, size_mb, points, arguments.repeat)
    print_phases(phases, arguments)
    print_sizes(engine_relations, objects, long_relations, points, arguments.long)


if __name__ == "__main__":
    main()
