"""Engine benchmark (issues 6 and 16): trainboard against TensorBoard 2.21's Python loader (--load_fast=false) and Rust
loader (--load_fast=true) on the same logdir, side by side in one run, trainboard and the Rust loader in turns (one
load of each per round), medians of several rounds.

    .venv/bin/python -m bench.engine [--runs 50 --tags 20 --steps 2000] [--repeat 3] [--python-repeat 1]
        [--clients 200 --seconds 60] [--long 1000000] [--growth 10] [--many 10000] [--postgres]

The logdirs (scalars, histograms every 20 steps, an image every 100 steps, written by tensorboardX) are written once
under bench/out/ and kept. For each server: seconds from process start until every run's last step is served,
scalar points loaded per second, peak RSS of its process tree, p50 latency of /data/plugin/scalars/tags and /scalars
once loaded; for trainboard also a restart on the same store, under a wrk load test. Then the downsampled read of one
long series (trainboard and the Rust loader), optionally both on a logdir `--growth` times larger (4x the runs), and
each of issue 16's targets with its verdict; optionally a logdir of --many runs (10 tags x 100 steps, scalars only)
and the PostgreSQL store (--postgres: `trainboard ingest` into SQLite and PostgreSQL, p50 over HTTP from `serve`).
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson
import psutil

from bench.logdirs import Shape, logdir_for, scalar_points

BIN = Path(sys.executable).parent
LATENCY_REQUESTS = 50
LOAD_TIMEOUT = 3600.0


@dataclass(frozen=True, slots=True)
class Measure:
    load_seconds: float
    peak_rss_mb: float
    tags_ms: float
    scalars_ms: float
    runs_ms: float


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def measure(
    command: list[str], port: int, runs: list[str], last_step: int, then: Callable[[str], None] | None = None
) -> Measure:
    """Start `command`, time it until every run's last step is served, then time the two scalar routes on the last
    run (and run `then` with the server's URL). What earlier servers wrote is on disk first: the kernel writing a
    gigabyte of a killed server's store back meanwhile (one 10x cold load took 8.1 s that way, 6.4 s without)
    would slow whichever server came next."""
    os.sync()
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True
    )
    peak = [0]
    stop = threading.Event()
    sampler = threading.Thread(target=sample_rss, args=(process.pid, peak, stop), daemon=True)
    sampler.start()
    url = f"http://127.0.0.1:{port}"
    query = {"run": runs[-1], "tag": "tag00"}
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            # The last run first, one cheap request at a time; then all of them, since a loader may take runs in any
            # order (TensorBoard's Rust loader reads several at once).
            until_served(client, started, process, lambda: last_steps(client, runs[-1:]) == [last_step])
            until_served(client, started, process, lambda: last_steps(client, runs) == [last_step] * len(runs))
            loaded = time.perf_counter() - started
            settled(client)
            tags_ms = p50_ms(lambda: client.get("/data/plugin/scalars/tags").raise_for_status())
            scalars_ms = p50_ms(lambda: client.get("/data/plugin/scalars/scalars", params=query).raise_for_status())
            runs_ms = p50_ms(lambda: client.get("/data/runs").raise_for_status())
            if then is not None:
                then(url)
    finally:
        stop.set()
        sampler.join()
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return Measure(loaded, peak[0] / 2**20, tags_ms, scalars_ms, runs_ms)


def until_served(
    client: httpx.Client, started: float, process: subprocess.Popen[bytes], done: Callable[[], bool]
) -> None:
    """Poll `done` until it holds, waiting twice as long as each check took: a slow check (TensorBoard's Python
    loader answers 50 runs in seconds) must not take the CPU from the load it measures."""
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        if time.perf_counter() - started > LOAD_TIMEOUT:
            raise RuntimeError(f"the server did not load in {LOAD_TIMEOUT} s")
        checked = time.perf_counter()
        try:
            if done():
                return
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
            pass
        time.sleep(max(0.02, 2 * (time.perf_counter() - checked)))


def last_steps(client: httpx.Client, runs: list[str]) -> list[int]:
    """The last step served of tag00 in each run (scalars_multirun, which both servers answer), asked for 500 runs at
    a time, as before trainboard took forms of more than 1,000 fields, so that figures stay comparable. Parsed by
    orjson: the standard library took 25-55 ms of CPU for a 50-run answer (2.2 MB) on the cores the server loads on,
    and counted in every figure (it slowed TensorBoard's Rust loader by up to 0.5 s of its 2 s)."""
    steps = []
    for start in range(0, len(runs), 500):
        some = runs[start : start + 500]
        answer = client.post("/data/plugin/scalars/scalars_multirun", data={"tag": "tag00", "runs": some})
        found = orjson.loads(answer.raise_for_status().content)
        steps += [found[run][-1][1] for run in some]
    return steps


def settled(client: httpx.Client) -> None:
    """Wait until trainboard's ingest pass has ended (its last run may be served before the others are stored and the
    store folds its write-ahead log), so that latencies are those of a loaded server, as TensorBoard's are."""
    while True:
        answer = client.get("/data/ingest_progress")
        if answer.status_code != 200 or answer.json().get("done", True):
            return
        time.sleep(0.02)


def sample_rss(pid: int, peak: list[int], stop: threading.Event) -> None:
    """Keep the largest RSS of the process and its children in peak[0]."""
    while not stop.wait(0.02):
        try:
            root = psutil.Process(pid)
            processes = [root, *root.children(recursive=True)]
            peak[0] = max(peak[0], sum(process.memory_info().rss for process in processes))
        except psutil.Error:
            pass


def p50_ms(request: Callable[[], object]) -> float:
    timings = []
    for _ in range(LATENCY_REQUESTS):
        started = time.perf_counter()
        request()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


WRK_SCRIPT = """
math.randomseed(1)
request = function()
  if math.random() < 0.2 then
    return wrk.format("GET", "/data/plugin/scalars/tags")
  end
  local path = "/data/plugin/scalars/scalars?run=run%03d&tag=tag%02d"
  return wrk.format("GET", string.format(path, math.random(0, RUNS - 1), math.random(0, TAGS - 1)))
end
"""


@dataclass(frozen=True, slots=True)
class LoadTest:
    answers_per_second: str
    errors: int
    p50: str
    p99: str


def under_load(url: str, clients: int, seconds: float, runs: int, tags: int) -> LoadTest | None:
    """`clients` concurrent connections (wrk, from Debian) asking for tags and random series for `seconds`."""
    if shutil.which("wrk") is None:
        print("under load: skipped, wrk is not installed (apt install wrk)")
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(WRK_SCRIPT.replace("RUNS", str(runs)).replace("TAGS", str(tags)))
        script.flush()
        command = ["wrk", "-t2", f"-c{clients}", f"-d{seconds:.0f}s", "--latency", "-s", script.name, url]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    found = dict(re.findall(r"^\s*(50%|99%)\s+(\S+)", output, flags=re.MULTILINE))
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    failed_answers = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = sum(map(int, socket_errors.groups())) if socket_errors else 0
    errors += int(failed_answers.group(1)) if failed_answers else 0
    rate = re.search(r"Requests/sec:\s+(\S+)", output)
    return LoadTest(rate.group(1) if rate else "?", errors, found.get("50%", "?"), found.get("99%", "?"))


def median(measures: list[Measure]) -> Measure:
    return Measure(*(statistics.median(getattr(m, field) for m in measures) for field in Measure.__slots__))


def on_free_port(command: list[str], shape: Shape, then: Callable[[str], None] | None = None) -> Measure:
    port = free_port()
    runs = run_names(shape)
    return measure([*command, f"--port={port}"], port, runs, shape.steps - 1, then)


def side_by_side(
    shape: Shape, repeat: int, scratch: Path, load_test: Callable[[str], None] | None = None
) -> tuple[Measure, Measure, Measure]:
    """Medians of trainboard's cold loads (each on an empty store), of its restarts on those stores and of the Rust
    loader's loads, taken in turns, one of each per round, so that a slow spell of the machine falls on both servers
    (this 2-core VM's figures drift by a third within an hour); each round's figures are printed. `load_test` runs
    against the last restart."""
    cold, restart, rust = [], [], []
    for index in range(repeat):
        store = scratch / f"{shape.name}-{index}.sqlite"
        command = [str(BIN / "trainboard"), f"--logdir={logdir_for(shape)}", f"--db={store}", "--reload_interval=0"]
        cold.append(on_free_port(command, shape))
        restart.append(on_free_port(command, shape, load_test if index == repeat - 1 else None))
        rust.append(tensorboard(shape, True, 1))
        print(
            f"  {shape.name} round {index + 1}: trainboard cold {cold[-1].load_seconds:.2f} s, restart"
            f" {restart[-1].load_seconds:.2f} s; Rust loader {rust[-1].load_seconds:.2f} s",
            flush=True,
        )
    return median(cold), median(restart), median(rust)


def tensorboard(shape: Shape, load_fast: bool, repeat: int) -> Measure:
    command = [
        str(BIN / "tensorboard"),
        f"--logdir={logdir_for(shape)}",
        f"--load_fast={str(load_fast).lower()}",
        "--host=127.0.0.1",
        "--reload_interval=0",
    ]
    return median([on_free_port(command, shape) for _ in range(repeat)])


def run_names(shape: Shape) -> list[str]:
    return [f"run{run:03d}" for run in range(shape.runs)]


def verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


@dataclass(frozen=True, slots=True)
class Postgres:
    sqlite_ingest: float
    postgres_ingest: float
    tags_ms: float
    scalars_ms: float


def postgres(shape: Shape, repeat: int, scratch: Path) -> Postgres:
    """Medians of `trainboard ingest` into SQLite and into PostgreSQL (a fresh database each), then the p50 of tags and
    scalars over HTTP from a `trainboard serve` on the PostgreSQL store (bench/store.py's helpers)."""
    from bench.store import Backend, ingest_seconds, quiet_p50, replica
    from tests.pgserver import postgres_server
    from trainboard.store.opening import open_store

    with postgres_server() as server:
        sqlite_seconds, postgres_seconds = [], []
        backend = None
        for index in range(repeat):
            sqlite = Backend("SQLite", f"sqlite:{scratch / f'ingest-{index}.sqlite'}", None, dict(os.environ))
            backend = Backend("PostgreSQL", server.create_database(f"engine_{index}"), None, dict(os.environ))
            sqlite_seconds.append(ingest_seconds(sqlite, logdir_for(shape), "engine"))
            postgres_seconds.append(ingest_seconds(backend, logdir_for(shape), "engine"))
        assert backend is not None
        store = open_store(backend.db)
        experiment_id = store.create_experiment("engine").id
        store.close()
        with replica(backend, scratch / "postgres-replica") as url:
            tags_ms, scalars_ms = quiet_p50(url, experiment_id, shape.runs)
    return Postgres(statistics.median(sqlite_seconds), statistics.median(postgres_seconds), tags_ms, scalars_ms)


def figure(value: float | None, unit: str, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f} {unit}".strip()


def compiled() -> None:
    """trainboard's modules compiled to bytecode, as pip leaves an installed package (TensorBoard's are, in the venv): a
    source checkout run with PYTHONDONTWRITEBYTECODE=1 would compile every module at each start, ~0.12 s of CPU of a
    restart."""
    import trainboard

    compileall.compile_dir(Path(trainboard.__file__).parent, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of trainboard and the Rust loader")
    parser.add_argument("--python-repeat", type=int, default=1, help="runs of the Python loader (minutes each)")
    parser.add_argument("--clients", type=int, default=200, help="concurrent clients of the load test (0: none)")
    parser.add_argument("--seconds", type=float, default=60, help="length of the load test")
    parser.add_argument("--long", type=int, default=1_000_000, help="points of the long series (0: not measured)")
    parser.add_argument(
        "--growth", type=int, default=0, metavar="K", help="also load a logdir K times larger, 4x runs (0: not)"
    )
    parser.add_argument(
        "--many",
        type=int,
        default=0,
        metavar="N",
        help="also load N runs of 10 tags x 100 steps, scalars only (0: not)",
    )
    parser.add_argument("--postgres", action="store_true", help="also ingest into PostgreSQL and serve from it")
    args = parser.parse_args()
    compiled()
    shape = Shape(args.runs, args.tags, args.steps)
    logdir = logdir_for(shape)
    size_mb = sum(path.stat().st_size for path in logdir.rglob("*tfevents*")) / 1e6
    print(f"logdir: {logdir} ({shape.runs} runs x {shape.tags} tags x {shape.steps} steps, {size_mb:.0f} MB)")

    load_tests: list[LoadTest | None] = []

    def load_test(url: str) -> None:
        load_tests.append(under_load(url, args.clients, args.seconds, shape.runs, shape.tags))

    results: dict[str, Measure] = {}
    python: Measure | None = None
    with tempfile.TemporaryDirectory() as scratch:
        cold, restart, rust = side_by_side(shape, args.repeat, Path(scratch), load_test if args.clients else None)
        results["trainboard (cold)"], results["trainboard (restart)"] = cold, restart
        results["tensorboard --load_fast=true"] = rust
        if args.python_repeat:
            results["tensorboard --load_fast=false"] = python = tensorboard(shape, False, args.python_repeat)
        table(f"{scalar_points(shape):,} scalar points + histograms + images", shape, results, rust)

        long_reads: dict[str, float] = {}
        if args.long:
            # A fresh store each, so each is a cold load; only the downsampled read is reported.
            long_shape = Shape(1, 1, args.long)
            long_cold, _, long_rust = side_by_side(long_shape, 1, Path(scratch))
            long_reads["trainboard"], long_reads["Rust"] = long_cold.scalars_ms, long_rust.scalars_ms

        big = Shape(shape.runs * 4, shape.tags, shape.steps * args.growth // 4)
        growth: dict[str, Measure] = {}
        if args.growth:
            growth["trainboard (cold)"], _, growth[RUST] = side_by_side(big, args.repeat, Path(scratch))
            table(f"{args.growth}x: {scalar_points(big):,} scalar points", big, growth, growth[RUST])

        many_shape = Shape(args.many, 10, 100, extras=False)
        many: dict[str, Measure] = {}
        if args.many:
            many["trainboard (cold)"], _, many[RUST] = side_by_side(many_shape, 1, Path(scratch))
            table(f"{args.many:,} runs of 10 tags x 100 steps (one run each)", many_shape, many, many[RUST])

        store = postgres(shape, args.repeat, Path(scratch)) if args.postgres else None

    rows: list[tuple[str, str, str, str, str]] = []
    ratio = cold.load_seconds / rust.load_seconds
    py = python.load_seconds if python else None
    rows.append(
        (
            "cold load <= 0.75x Rust (1x)",
            f"{cold.load_seconds:.2f} s ({ratio:.2f}x)",
            figure(rust.load_seconds, "s"),
            figure(py, "s"),
            verdict(ratio <= 0.75),
        )
    )
    if growth:
        tb_big, rust_big = growth["trainboard (cold)"], growth[RUST]
        big_ratio = tb_big.load_seconds / rust_big.load_seconds
        rows.append(
            (
                f"cold load <= 0.75x Rust ({args.growth}x)",
                f"{tb_big.load_seconds:.2f} s ({big_ratio:.2f}x)",
                figure(rust_big.load_seconds, "s"),
                "not run",
                verdict(big_ratio <= 0.75),
            )
        )
    rows.append(
        ("restart <= 0.25 s", figure(restart.load_seconds, "s"), "-", "-", verdict(restart.load_seconds <= 0.25))
    )
    rss_ratio = cold.peak_rss_mb / rust.peak_rss_mb
    rows.append(
        (
            "peak RSS <= 0.8x Rust",
            f"{cold.peak_rss_mb:.0f} MB ({rss_ratio:.2f}x)",
            figure(rust.peak_rss_mb, "MB", 0),
            figure(python.peak_rss_mb if python else None, "MB", 0),
            verdict(rss_ratio <= 0.8),
        )
    )
    slowest = max(cold.tags_ms, cold.scalars_ms, restart.tags_ms, restart.scalars_ms)
    rows.append(
        (
            "tags, scalars p50 <= 5 ms",
            f"{max(cold.tags_ms, restart.tags_ms):.2f}, {max(cold.scalars_ms, restart.scalars_ms):.2f} ms",
            f"{rust.tags_ms:.2f}, {rust.scalars_ms:.2f} ms",
            f"{python.tags_ms:.2f}, {python.scalars_ms:.2f} ms" if python else "-",
            verdict(slowest <= 5),
        )
    )
    if long_reads:
        read = long_reads["trainboard"]
        rows.append(
            (
                f"{args.long:,}-point downsampled read <= 10 ms",
                figure(read, "ms"),
                figure(long_reads["Rust"], "ms") + " (kept 1,000 at load)",
                "not run",
                verdict(read <= 10),
            )
        )
    if growth:
        rates = {
            label: (scalar_points(big) / growth[label].load_seconds) / (scalar_points(shape) / small.load_seconds)
            for label, small in (("trainboard (cold)", cold), (RUST, rust))
        }
        rows.append(
            (
                f"points/s at {args.growth}x >= 1x's",
                f"{rates['trainboard (cold)']:.0%}",
                f"{rates[RUST]:.0%}",
                "not run",
                verdict(rates["trainboard (cold)"] >= 1),
            )
        )
    if many:
        tb_many, rust_many = many["trainboard (cold)"], many[RUST]
        many_ratio = tb_many.load_seconds / rust_many.load_seconds
        rows.append(
            (
                f"{args.many:,} runs served <= 2x Rust",
                f"{tb_many.load_seconds:.2f} s ({many_ratio:.2f}x)",
                figure(rust_many.load_seconds, "s"),
                "not run",
                verdict(many_ratio <= 2),
            )
        )
        rows.append(
            (
                f"{args.many:,} runs: /data/runs, tags p50 <= 20 ms",
                f"{tb_many.runs_ms:.2f}, {tb_many.tags_ms:.2f} ms",
                f"{rust_many.runs_ms:.2f}, {rust_many.tags_ms:.2f} ms",
                "not run",
                verdict(max(tb_many.runs_ms, tb_many.tags_ms) <= 20),
            )
        )
    if store is not None:
        share = store.sqlite_ingest / store.postgres_ingest
        rows.append(
            (
                "PostgreSQL ingest >= 50% of SQLite's rate",
                f"{share:.0%} ({store.postgres_ingest:.2f} s vs {store.sqlite_ingest:.2f} s)",
                "-",
                "-",
                verdict(share >= 0.5),
            )
        )
        rows.append(
            (
                "PostgreSQL tags, scalars p50 <= 10 ms (HTTP)",
                f"{store.tags_ms:.2f}, {store.scalars_ms:.2f} ms",
                "-",
                "-",
                verdict(max(store.tags_ms, store.scalars_ms) <= 10),
            )
        )
    print(f"\ntargets (issue 16); every figure from this run, medians of {args.repeat} unless said")
    print("| target | trainboard | Rust loader | Python loader | verdict |")
    print("| --- | ---: | ---: | ---: | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if load_tests and (load := load_tests[-1]) is not None:
        print(
            f"\nunder load: {args.clients} connections for {args.seconds:.0f} s: {load.errors} errors"
            f" ({verdict(load.errors == 0)}); {load.answers_per_second} answers/s, p50 {load.p50}, p99 {load.p99}"
        )


RUST = "tensorboard --load_fast=true"


def table(title: str, shape: Shape, results: dict[str, Measure], rust: Measure) -> None:
    print(f"\n{title}")
    columns = ("load s", "vs Rust", "points/s", "peak RSS MB", "tags ms", "scalars ms", "runs ms")
    print(f"{'server':32} " + " ".join(f"{column:>11}" for column in columns))
    for label, result in results.items():
        print(
            f"{label:32} {result.load_seconds:11.2f} {result.load_seconds / rust.load_seconds:10.2f}x"
            f" {scalar_points(shape) / result.load_seconds:11,.0f} {result.peak_rss_mb:11.0f}"
            f" {result.tags_ms:11.2f} {result.scalars_ms:11.2f} {result.runs_ms:11.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
