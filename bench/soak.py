"""Soak: writers append to a logdir while clients read from `trainboard --logdir`, which is killed (SIGKILL) and
started again on the same store every `--restart_every` seconds; at the end every answer of the soaked store equals a
cold load's of the same logdir.

    PYTHONPATH=. .venv/bin/python bench/soak.py [--minutes 10] [--writers 10] [--clients 50] [--restart_every 60]

Errors are 5xx answers and connection errors of requests sent while the server was up and not killed before they
ended; those sent in a restart gap (from a kill to the next process's first answer) or cut by a kill are counted
apart.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

from tests.ingest.order_calls import differences
from tests.ingest.order_stores import cold_load, serving
from tests.servers import BIN, free_port
from trainboard.store.opening import open_store

SCALARS = ("loss", "accuracy", "lr")
STATUSES = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]


def write(logdir: Path, index: int, seconds: float, step_seconds: float) -> None:
    """One training job: its hparams session, then scalars every step, a histogram every 5th, an image every 20th;
    tensorboardX flushes every few seconds, as in training."""
    import tensorboardX
    from tensorboard.plugins.hparams import summary_v2 as hparams_summary
    from tensorboardX.proto import summary_pb2

    rng = np.random.default_rng(index)
    run = logdir / f"job{index:02d}"
    with tensorboardX.SummaryWriter(str(run), flush_secs=2) as writer:
        hparams = {"lr": float(10 ** -(1 + index % 4)), "optimizer": ("adam", "sgd")[index % 2], "layers": index % 3}
        start = hparams_summary.hparams_pb(hparams, trial_id=f"trial{index % 4}")
        writer.file_writer.add_summary(summary_pb2.Summary.FromString(start.SerializeToString()))
        deadline, step = time.monotonic() + seconds, 0
        while time.monotonic() < deadline:
            loss = float(np.exp(-step / 300) + rng.normal(0, 0.01))
            writer.add_scalar("loss", loss, step)
            writer.add_scalar("accuracy", 1 - loss, step)
            writer.add_scalar("lr", hparams["lr"], step)
            if step % 5 == 0:
                writer.add_histogram("weights", rng.normal(step / 100, 1, size=500), step)
            if step % 20 == 0:
                writer.add_image("sample", rng.integers(0, 255, size=(3, 8, 8), dtype=np.uint8), step)
            step += 1
            time.sleep(step_seconds)


@dataclass
class Figures:
    latencies: dict[str, list[float]] = field(default_factory=dict)  # ms, by route
    errors: Counter[str] = field(default_factory=Counter)
    # Seconds since the last kill at each error.
    error_times: list[float] = field(default_factory=list)
    in_gaps: int = 0
    first_answers: list[float] = field(default_factory=list)


class Server:
    """`trainboard --logdir` on one store, killed with SIGKILL and started again; `up` while it answers."""

    def __init__(self, logdir: Path, db: Path, log: Path) -> None:
        self.logdir, self.db, self.log = logdir, db, log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.up = False
        # Kills so far, and when the last one was (monotonic seconds).
        self.kills = 0
        self.killed_at = 0.0

    def start(self) -> None:
        command = [
            str(BIN / "trainboard"),
            f"--logdir={self.logdir}",
            f"--db={self.db}",
            "--host=127.0.0.1",
            f"--port={self.port}",
            "--reload_interval=2",
            "--samples_per_plugin=all",
        ]
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=output, stderr=output, start_new_session=True
            )

    def kill(self) -> None:
        self.up = False
        self.kills += 1
        self.killed_at = time.monotonic()
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


async def first_answer(server: Server, http: httpx.AsyncClient) -> float:
    """Seconds from starting the process to its first answer of /data/runs."""
    started = time.perf_counter()
    server.start()
    while True:
        with contextlib.suppress(httpx.TransportError):
            if (await http.get(f"{server.url}/data/runs")).status_code == 200:
                server.up = True
                return time.perf_counter() - started
        await asyncio.sleep(0.02)


def request(chooser: random.Random, writers: int) -> tuple[str, str, dict[str, str] | None]:
    """(name, path, JSON body for a POST) of one read of the mix."""
    run, scalar = f"job{chooser.randrange(writers):02d}", chooser.choice(SCALARS)
    reads = [
        ("runs", "/data/runs", None),
        ("scalars/tags", "/data/plugin/scalars/tags", None),
        ("scalars", f"/data/plugin/scalars/scalars?run={run}&tag={scalar}", None),
        ("histograms", f"/data/plugin/histograms/histograms?run={run}&tag=weights", None),
        ("images/tags", "/data/plugin/images/tags", None),
        ("images", f"/data/plugin/images/images?run={run}&tag=sample", None),
        ("session_groups", "/data/plugin/hparams/session_groups", {"allowedStatuses": STATUSES, "sliceSize": 100}),
        ("tsvis/getCategory", "/api/getCategory", None),
        ("tsvis/scalar", f"/api/scalar?run={run}&tag={scalar}", None),
    ]
    return chooser.choice(reads)


async def clients(server: Server, count: int, writers: int, deadline: float, figures: Figures) -> None:
    # Idle connections expire before the server closes them (trainboard.http.limits.KEEP_ALIVE_SECONDS): at the same
    # 5 s, a request may go out on a connection the server is closing, and fail as no browser's would.
    limits = httpx.Limits(max_connections=count, max_keepalive_connections=count, keepalive_expiry=2)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:

        async def one(number: int) -> None:
            chooser = random.Random(number)
            while time.monotonic() < deadline:
                route, path, body = request(chooser, writers)
                up, kills, started = server.up, server.kills, time.perf_counter()
                try:
                    url = server.url + path
                    response = await (http.post(url, json=body) if body is not None else http.get(url))
                    failure = f"{response.status_code}" if response.status_code >= 500 else None
                except httpx.TransportError as error:
                    failure = type(error).__name__
                if failure is None:
                    figures.latencies.setdefault(route, []).append((time.perf_counter() - started) * 1000)
                elif up and server.kills == kills:
                    figures.errors[failure] += 1
                    figures.error_times.append(time.monotonic() - server.killed_at)
                else:
                    figures.in_gaps += 1
                    await asyncio.sleep(0.05)

        await asyncio.gather(*(one(number) for number in range(count)))


async def restarts(server: Server, every: float, deadline: float, figures: Figures) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        figures.first_answers.append(await first_answer(server, http))
        while time.monotonic() + every < deadline:
            await asyncio.sleep(every)
            server.kill()
            figures.first_answers.append(await first_answer(server, http))


async def soak(server: Server, args: argparse.Namespace, deadline: float) -> Figures:
    figures = Figures()
    await asyncio.gather(
        restarts(server, args.restart_every, deadline, figures),
        clients(server, args.clients, args.writers, deadline, figures),
    )
    return figures


def settle(server: Server) -> None:
    """With the writers stopped: the last process reads the rest (two passes more: one may have begun before they
    stopped), then is killed as the others were."""
    with httpx.Client(base_url=server.url, timeout=30) as http:

        def passes() -> int:
            return int(http.get("/data/ingest_progress").json()["passes"])

        wanted = passes() + 2
        while passes() < wanted:
            time.sleep(0.2)
    server.kill()


def store_points(db: Path) -> int:
    store = open_store(str(db))
    try:
        experiment = store.experiments()[0].id
        return sum(row.point_count for row in store.series(experiment, plugin_name=None, data_class=None))
    finally:
        store.close()


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


@dataclass(frozen=True, slots=True)
class Outcome:
    figures: Figures
    seconds: float
    soaked_points: int
    cold_points: int
    cold_seconds: float
    compared: int
    problems: list[str]
    tracebacks: int
    load: tuple[float, float]  # 1-minute load average before and at the end of the soak

    @property
    def failed(self) -> bool:
        return bool(self.problems or self.figures.errors or self.soaked_points != self.cold_points)


def run(root: Path, args: argparse.Namespace) -> Outcome:
    """The soak in `root`: writers and a restarted server for `args.minutes`, then the comparison with a cold load."""
    seconds = args.minutes * 60
    load_before = os.getloadavg()[0]
    logdir = root / "logs"
    logdir.mkdir()
    server = Server(logdir, root / "soaked.sqlite", root / "trainboard.log")
    spawn = multiprocessing.get_context("spawn")
    writers = [spawn.Process(target=write, args=(logdir, i, seconds, args.step_seconds)) for i in range(args.writers)]
    for writer in writers:
        writer.start()
    try:
        figures = asyncio.run(soak(server, args, time.monotonic() + seconds))
        load_during = os.getloadavg()[0]
        for writer in writers:
            writer.join()
        settle(server)
    finally:
        server.kill()
        for writer in writers:
            writer.kill()
    began = time.perf_counter()
    cold_load(logdir, root / "cold.sqlite")
    cold_seconds = time.perf_counter() - began
    with serving(logdir, root / "cold.sqlite") as cold, serving(logdir, server.db) as soaked:
        compared, problems = differences(cold, soaked, covering=False)
    return Outcome(
        figures,
        seconds,
        store_points(server.db),
        store_points(root / "cold.sqlite"),
        cold_seconds,
        compared,
        problems,
        server.log.read_text(errors="replace").count("Traceback"),
        (load_before, load_during),
    )


def report(outcome: Outcome, args: argparse.Namespace) -> str:
    figures = outcome.figures
    requests = sum(len(times) for times in figures.latencies.values()) + sum(figures.errors.values()) + figures.in_gaps
    every = [latency for times in figures.latencies.values() for latency in times]
    rows = [
        ("duration", f"{outcome.seconds / 60:g} min, {args.writers} writers, {args.clients} clients"),
        ("restarts (kill -9)", f"{len(figures.first_answers) - 1}, every {args.restart_every:g} s"),
        ("requests", f"{requests:,} ({requests / outcome.seconds:,.0f}/s)"),
        ("answered", f"{len(every):,}"),
        ("errors outside restart gaps", f"{sum(figures.errors.values())} {dict(figures.errors) or ''}{_when(figures)}"),
        ("refused in restart gaps or cut by a kill", f"{figures.in_gaps:,}"),
        ("latency p50 / p99, all", _latency(every)),
        *((f"  {route}", _latency(times)) for route, times in sorted(figures.latencies.items())),
        ("first start to first answer", f"{figures.first_answers[0]:.2f} s"),
        ("restart to first answer", _spread(figures.first_answers[1:])),
        ("points in the soaked / cold store", f"{outcome.soaked_points:,} / {outcome.cold_points:,}"),
        ("cold load of the logdir", f"{outcome.cold_seconds:.1f} s"),
        ("answers compared with the cold load", f"{outcome.compared:,}, {len(outcome.problems)} differ"),
        ("tracebacks in the server log", f"{outcome.tracebacks}"),
        ("load average before / at the end", f"{outcome.load[0]:.1f} / {outcome.load[1]:.1f} ({os.cpu_count()} cores)"),
    ]
    width = max(len(name) for name, _ in rows)
    lines = [f"{name:<{width}}  {value}" for name, value in rows]
    return "\n".join([*lines, *(f"DIFFERS: {problem}" for problem in outcome.problems[:10])])


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--writers", type=int, default=10)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--restart_every", type=float, default=60, help="seconds between two kill -9")
    parser.add_argument("--step_seconds", type=float, default=0.5, help="each writer's pause between steps")
    return parser


def main() -> None:
    args = parser().parse_args()
    with tempfile.TemporaryDirectory(prefix="soak-") as scratch:
        outcome = run(Path(scratch), args)
    print(report(outcome, args))
    sys.exit(1 if outcome.failed else 0)


def _when(figures: Figures) -> str:
    if not figures.error_times:
        return ""
    return f", {min(figures.error_times):.1f} to {max(figures.error_times):.1f} s after a kill"


def _latency(values: list[float]) -> str:
    return f"{percentile(values, 50):.1f} / {percentile(values, 99):.1f} ms (n={len(values):,})"


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"median {np.median(values):.2f} s, max {max(values):.2f} s (n={len(values)})"


if __name__ == "__main__":
    main()
