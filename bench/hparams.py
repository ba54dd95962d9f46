"""HParams benchmark: p50 latency of session_groups (one filter, two sort keys) on 10,000 sessions with 5 hparams
and 3 metrics each, trainboard against TensorBoard 2.21 serving the same logdir.

    .venv/bin/python -m bench.hparams [--sessions 10000] [--repeats 20] [--logdir DIR]

The logdir is written once with tensorboard's own summary functions and kept for later runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from tensorboard.compat.proto import event_pb2
from tensorboard.plugins.hparams import summary_v2 as hparams_summary
from tensorboard.plugins.scalar import summary_v2 as scalar_summary
from tensorboard.summary.writer.record_writer import RecordWriter

from tests.hparams.logdirs import START_TIME, session_end_pb
from tests.servers import BIN, Server, free_port, running

OPTIMIZERS = ("adam", "sgd", "rmsprop", "adagrad", "momentum")
METRICS = ("loss", "accuracy", "f1")
STATUSES = ("STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING")
STEPS = 5
REQUEST = {
    "experimentName": "",
    "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
    "colParams": [
        {"metric": {"group": "", "tag": "loss"}, "order": "ORDER_ASC", "includeInResult": True},
        {"hparam": "optimizer", "order": "ORDER_DESC", "includeInResult": True},
        {"hparam": "lr", "filterInterval": {"minValue": 0.001, "maxValue": 0.1}, "includeInResult": True},
        {"hparam": "layers", "includeInResult": True},
        {"hparam": "batch_norm", "includeInResult": True},
        {"hparam": "dropout", "includeInResult": True},
        {"metric": {"group": "", "tag": "accuracy"}, "includeInResult": True},
        {"metric": {"group": "", "tag": "f1"}, "includeInResult": True},
    ],
    "aggregationType": "AGGREGATION_AVG",
    "startIndex": 0,
    "sliceSize": 100,
}


def write_logdir(root: Path, sessions: int) -> None:
    """One run per session: its start info, 3 metrics over STEPS steps, and its end info."""
    rng = np.random.default_rng(0)
    for index in range(sessions):
        path = root / f"session_{index:05d}"
        path.mkdir(parents=True)
        hparams = {
            "lr": float(10 ** rng.uniform(-4, 0)),
            "optimizer": OPTIMIZERS[index % len(OPTIMIZERS)],
            "layers": int(rng.integers(1, 9)),
            "batch_norm": bool(index % 2),
            "dropout": float(rng.choice([0.0, 0.25, 0.5])),
        }
        summaries = [hparams_summary.hparams_pb(hparams, start_time_secs=START_TIME + index)]
        steps = [0] * len(summaries)
        for step in range(STEPS):
            values = rng.uniform(size=len(METRICS))
            summaries += [
                scalar_summary.scalar_pb(tag, float(value)) for tag, value in zip(METRICS, values, strict=True)
            ]
            steps += [step] * len(METRICS)
        summaries.append(session_end_pb(STATUSES[index % len(STATUSES)], START_TIME + index + 60))
        steps.append(STEPS)
        with (path / f"events.out.tfevents.{int(START_TIME):010d}.bench.{index}").open("wb") as file:
            writer = RecordWriter(file)
            writer.write(event_pb2.Event(wall_time=START_TIME, file_version="brain.Event:2").SerializeToString())
            for step, summary in zip(steps, summaries, strict=True):
                event = event_pb2.Event(wall_time=START_TIME + index + step, step=step, summary=summary)
                writer.write(event.SerializeToString())


# Loading 10,000 runs takes minutes.
LOAD_TIMEOUT = 3600


def tensorboard(logdir: Path, scratch: Path) -> Iterator[Server]:
    """TensorBoard 2.21 with its Python loader (as the differential tests run it), listening once loaded."""
    port = free_port()
    command = [
        str(BIN / "tensorboard"),
        f"--logdir={logdir}",
        "--host=127.0.0.1",
        f"--port={port}",
        "--load_fast=false",
        "--reload_interval=0",
        "--reload_task=blocking",
    ]
    ready = lambda client: client.get("/data/runs").status_code == 200  # noqa: E731
    with running(command, port, scratch / "tensorboard.log", ready, timeout=LOAD_TIMEOUT) as server:
        yield server


def trainboard(logdir: Path, scratch: Path) -> Iterator[Server]:
    """trainboard once its ingest into an empty store is done."""
    port = free_port()
    store = scratch / "store.sqlite"
    command = [str(BIN / "trainboard"), f"--logdir={logdir}", "--host=127.0.0.1", f"--port={port}", f"--db={store}"]
    command.append("--reload_interval=0")
    ready = lambda client: client.get("/data/ingest_progress").json()["done"] is True  # noqa: E731
    with running(command, port, scratch / "trainboard.log", ready, timeout=LOAD_TIMEOUT) as server:
        yield server


def latencies(url: str, repeats: int) -> tuple[float, list[float], dict[str, Any]]:
    """Seconds of the first session_groups request, of `repeats` more, and the last answer."""
    body = json.dumps(REQUEST)
    with httpx.Client(base_url=url, timeout=600) as client:
        started = time.perf_counter()
        answer = client.post("/data/plugin/hparams/session_groups", content=body).raise_for_status().json()
        first = time.perf_counter() - started
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            answer = client.post("/data/plugin/hparams/session_groups", content=body).raise_for_status().json()
            times.append(time.perf_counter() - started)
    return first, times, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--logdir", type=Path, default=None, help="reused when it exists")
    arguments = parser.parse_args()
    logdir = arguments.logdir or Path(tempfile.gettempdir()) / f"trainboard-bench-hparams-{arguments.sessions}"
    if not logdir.exists():
        print(f"writing {arguments.sessions} sessions to {logdir}")
        write_logdir(logdir, arguments.sessions)
    rows = []
    answers = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name, serve in (("trainboard", trainboard), ("TensorBoard 2.21", tensorboard)):
            started = time.perf_counter()
            with contextmanager(serve)(logdir, Path(scratch) / name.split()[0]) as server:
                loaded = time.perf_counter() - started
                first, times, answers[name] = latencies(server.url, arguments.repeats)
            rows.append((name, loaded, first, times))
    assert answers["trainboard"] == answers["TensorBoard 2.21"], "the two servers answer differently"
    print(f"\nsession_groups on {arguments.sessions} sessions x 5 hparams x 3 metrics: 1 filter, 2 sort keys,")
    passing = answers["trainboard"]["totalSize"]
    print(f"{passing} groups pass, {REQUEST['sliceSize']} returned; p50 of {arguments.repeats} requests\n")
    print(f"| {'server':<18} | {'load s':>7} | {'first ms':>8} | {'p50 ms':>8} | {'p90 ms':>8} | {'min ms':>8} |")
    print(f"| {'-' * 18} | {'-' * 6}: | {'-' * 7}: | {'-' * 7}: | {'-' * 7}: | {'-' * 7}: |")
    for name, loaded, first, times in rows:
        p50 = statistics.median(times) * 1000
        p90 = statistics.quantiles(times, n=10)[-1] * 1000 if len(times) > 1 else p50
        cells = [f"{loaded:>7.1f}", *(f"{ms:>8.1f}" for ms in (first * 1000, p50, p90, min(times) * 1000))]
        print(f"| {name:<18} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
