"""Real servers on loopback for the tests: TensorBoard 2.21 itself and trainboard, each in its own process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

BIN = Path(sys.executable).parent
# Keep every point of every plugin: TensorBoard's samples_per_plugin of 0 means "none" to its provider.
TENSORBOARD_SAMPLES = ",".join(
    f"{plugin}=1000000"
    for plugin in ("scalars", "histograms", "distributions", "images", "audio", "text", "pr_curves", "tensors")
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def server(command: list[str], port: int, ready: Callable[[httpx.Client], bool], timeout: float = 120) -> Iterator[str]:
    """Start `command`, wait until `ready` holds, yield its base URL, then stop its whole process group."""
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"server-{port}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        with httpx.Client(base_url=url, timeout=5) as client:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"{command[0]} exited with {process.returncode}:\n{log.read_text()[-3000:]}")
                try:
                    if ready(client):
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{command[0]} not ready after {timeout} s:\n{log.read_text()[-3000:]}")
                time.sleep(0.2)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def tensorboard_server(logdir: Path, expected_runs: int) -> Iterator[str]:
    port = free_port()
    command = [
        str(BIN / "tensorboard"),
        f"--logdir={logdir}",
        "--host=127.0.0.1",
        f"--port={port}",
        "--load_fast=false",
        "--reload_interval=0",
        f"--samples_per_plugin={TENSORBOARD_SAMPLES}",
    ]
    # With --reload_interval=0 TensorBoard loads once, in the background; all runs listed means it has finished
    # only once the listing stops changing, so wait for the run count and then a stable tag listing.
    seen: list[object] = []

    def ready(client: httpx.Client) -> bool:
        runs = client.get("/data/runs").json()
        if len(runs) < expected_runs:
            return False
        listing = client.get("/data/plugin/scalars/tags").json()
        seen.append(listing)
        return len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]

    with server(command, port, ready) as url:
        yield url


@contextmanager
def trainboard_server(logdir: Path, db: Path, *extra: str) -> Iterator[str]:
    port = free_port()
    command = [
        str(BIN / "trainboard"),
        f"--logdir={logdir}",
        "--host=127.0.0.1",
        f"--port={port}",
        f"--db={db}",
        "--reload_interval=0",
        "--samples_per_plugin=all",
        *extra,
    ]
    with server(command, port, lambda client: client.get("/data/ingest_progress").json()["done"]) as url:
        yield url
