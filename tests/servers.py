"""Real servers on loopback for the tests: TensorBoard 2.21 itself and trainboard, each in its own process, and
trainboard's app served in a thread of the test process (`in_process`) where no process of its own matters."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests import loopback
from tests.commands import in_process_command
from trainboard.cli import listen, parse_flags, url
from trainboard.http.server import server_of
from trainboard.ingest.progress import IngestProgress
from trainboard.store.opening import open_store
from trainboard.wiring import local_app, store_app

BIN = Path(sys.executable).parent
# Every plugin that TensorBoard samples (unlisted plugins keep 10 points). A count of 0 keeps every point in its
# reservoirs but makes its plugins downsample to nothing, so "all" is a count larger than any test series.
SAMPLED_PLUGINS = ("scalars", "histograms", "images", "audio", "pr_curves", "text", "mesh", "hparams", "custom_scalars")
TENSORBOARD_ALL = 1_000_000
POLL_SECONDS = 0.2
# The line trainboard prints on stderr once it listens.
SERVING = re.compile(r"^trainboard \S+ at (http://\S+/) \(Press CTRL\+C to quit\)", re.MULTILINE)
STABLE_POLLS = 5
# The logs of the servers running in process (`in_process`).
LOGS: list[logging.Handler] = []


@dataclass(frozen=True, slots=True)
class Server:
    url: str
    log: Path
    # Where its one experiment is served when not at the root (a `trainboard serve` of a store).
    experiment_path: str = ""
    # Whether it runs on the oldest protobuf trainboard admits (tests/protobuf_floor.py).
    protobuf_floor: bool = False

    def output(self, limit: int = 4000) -> str:
        """The end of what the server printed (stdout and stderr), for failure messages."""
        return self.log.read_text(errors="replace")[-limit:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def tensorboard_server(logdir: Path, scratch: Path) -> Iterator[Server]:
    """The real TensorBoard on `logdir`, every point of every plugin kept, the whole logdir loaded."""
    port = free_port()
    samples = ",".join(f"{plugin}={TENSORBOARD_ALL}" for plugin in SAMPLED_PLUGINS)
    command = [
        str(BIN / "tensorboard"),
        f"--logdir={logdir}",
        "--host=127.0.0.1",
        f"--port={port}",
        "--load_fast=false",
        # Load once, before listening: once the port answers, everything is loaded.
        "--reload_interval=0",
        "--reload_task=blocking",
        f"--samples_per_plugin={samples}",
    ]
    listings: list[object] = []

    def settled(client: httpx.Client) -> bool:
        # The projector decides in a background thread, started by the first listing, whether it is enabled: wait
        # until the listing has stayed the same for a second.
        listings.append(client.get("/data/plugins_listing").raise_for_status().json())
        return len(listings) > STABLE_POLLS and all(listing == listings[-1] for listing in listings[-STABLE_POLLS:])

    with running(command, port, scratch / "tensorboard.log", settled) as server:
        yield server


@contextmanager
def trainboard_server(
    logdir: Path,
    scratch: Path,
    *flags: str,
    path_prefix: str = "",
    python: Path = BIN / "python",
    env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """trainboard on `logdir` with its store in `scratch`, every point kept, after its ingest reports done; its routes
    under `path_prefix` when given; run by `python` (another venv's, to run on other versions of its dependencies)
    in `env` (else this process's environment)."""
    port = free_port()
    command = [
        str(python),
        "-m",
        "trainboard",
        *trainboard_flags(logdir, scratch, path_prefix),
        f"--port={port}",
        *flags,
    ]

    def ingested(client: httpx.Client) -> bool:
        return client.get(f"{path_prefix}/data/ingest_progress").raise_for_status().json()["done"] is True

    with running(command, port, scratch / "trainboard.log", ingested, env=env) as server:
        yield server


@contextmanager
def trainboard_in_process(logdir: Path, scratch: Path, *flags: str, path_prefix: str = "") -> Iterator[Server]:
    """As `trainboard_server`, but served in a thread of the test process (`in_process`)."""
    with in_process("trainboard", scratch, *trainboard_flags(logdir, scratch, path_prefix), *flags) as server:
        yield Server(server.url.removesuffix(path_prefix), server.log)


def trainboard_flags(logdir: Path, scratch: Path, path_prefix: str) -> list[str]:
    return [
        f"--logdir={logdir}",
        "--host=127.0.0.1",
        f"--db={scratch / 'store.sqlite'}",
        "--reload_interval=0",
        "--samples_per_plugin=all",
        f"--path_prefix={path_prefix}",
    ]


@contextmanager
def trainboard_store_server(logdir: Path, scratch: Path, db: str, *flags: str) -> Iterator[Server]:
    """`trainboard ingest` of `logdir` into the store `db`, then `trainboard serve` of that store, every point kept;
    the server's experiment_path is the logdir's experiment."""
    ingest = [str(BIN / "trainboard"), "ingest", f"--db={db}", "--experiment=full", f"--logdir={logdir}"]
    subprocess.run(ingest, check=True, capture_output=True, timeout=600)
    port = free_port()
    command = [
        str(BIN / "trainboard"),
        "serve",
        f"--db={db}",
        "--host=127.0.0.1",
        f"--port={port}",
        "--samples_per_plugin=all",
        # The differential tests compare answers, not access (tests/http/test_route_policies.py checks that).
        "--no_auth",
        *flags,
    ]
    found: list[str] = []

    def listed(client: httpx.Client) -> bool:
        found.extend(e["id"] for e in client.get("/data/experiments").raise_for_status().json() if e["name"] == "full")
        return bool(found)

    with running(command, port, scratch / "trainboard-serve.log", listed) as server:
        yield Server(server.url, server.log, experiment_path=f"/experiment/{found[0]}")


@contextmanager
def trainboard_store_in_process(logdir: Path, scratch: Path, db: str, *flags: str) -> Iterator[Server]:
    """As `trainboard_store_server`, but both commands run in the test process (`in_process`)."""
    in_process_command("ingest", f"--db={db}", "--experiment=full", f"--logdir={logdir}")
    serve = (f"--db={db}", "--samples_per_plugin=all", "--no_auth", *flags)
    with in_process("serve", scratch, *serve) as server:
        found = [e["id"] for e in loopback.get(f"{server.url}/data/experiments").json() if e["name"] == "full"]
        yield Server(server.url, server.log, experiment_path=f"/experiment/{found[0]}")


@contextmanager
def trainboard_uploaded_server(
    logdir: Path, scratch: Path, db: str, *flags: str, env: dict[str, str] | None = None
) -> Iterator[Server]:
    """`trainboard serve` of the store `db` (no tokens), and `trainboard upload` of `logdir` into it, every point
    kept; the server's experiment_path is the uploaded experiment."""
    with store_serving(db, scratch, "--no_auth", "--samples_per_plugin=all", *flags, env=env) as url:
        store = open_store(db)
        try:
            experiment_id = store.create_experiment("uploaded", location=str(logdir)).id
        finally:
            store.close()
        upload = [str(BIN / "trainboard"), "upload", f"--server={url}", "--experiment=uploaded", f"--logdir={logdir}"]
        subprocess.run(upload, check=True, capture_output=True, timeout=600, env=env)
        yield Server(url, scratch / "serve.stderr", experiment_path=f"/experiment/{experiment_id}")


@contextmanager
def store_serving(db: str, scratch: Path, *flags: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`trainboard serve --db DB FLAGS` on a free port; its URL (without the final slash) once it listens."""
    scratch.mkdir(parents=True, exist_ok=True)
    stderr = scratch / "serve.stderr"
    with stderr.open("wb") as errors:
        process = subprocess.Popen(
            [str(BIN / "trainboard"), "serve", f"--db={db}", "--port=0", *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            env=env,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while not (found := SERVING.search(stderr.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"trainboard serve did not start:\n{stderr.read_text(errors='replace')}")
            time.sleep(0.1)
        yield found.group(1).rstrip("/")
    finally:
        stop(process)


@contextmanager
def in_process(command: str, scratch: Path, *flags: str, clock: Callable[[], float] = time.time) -> Iterator[Server]:
    """The app of `trainboard FLAGS` (`command` "trainboard") or `trainboard serve FLAGS` ("serve"), built by the same
    wiring from the same flags and served by the same uvicorn set-up on a free loopback port, but in a thread of the
    test process: it starts in milliseconds where a process takes a second. For the tests of what the app answers;
    tests/cli runs the command itself (its output, signals, ports). The server's url is the one the command prints
    (its --path_prefix included, no final slash); its log holds what uvicorn and trainboard's loggers logged
    (tracebacks and the warnings a process prints on stderr included). A
    `trainboard` is yielded once its first ingest pass is done; `clock` is the one `trainboard serve`'s accounts expire
    tokens and sessions by."""
    settings, _ = parse_flags(["--host=127.0.0.1", "--port=0", *flags], command=command)
    progress = IngestProgress() if command == "trainboard" else IngestProgress.finished()
    app = local_app(settings, progress) if command == "trainboard" else store_app(settings, clock)
    server = server_of(app)
    scratch.mkdir(parents=True, exist_ok=True)
    log = scratch / f"{command}-in-process.log"
    errors = logging.FileHandler(log)
    errors.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    # uvicorn's Config (made by server_of) configures its loggers afresh, dropping the handlers of the servers still
    # running: each server's log takes what uvicorn logs while it runs, whichever server logged it.
    LOGS.append(errors)
    uvicorn_errors = logging.getLogger("uvicorn.error")
    for handler in LOGS:
        uvicorn_errors.addHandler(handler)
    trainboard_logs = logging.getLogger("trainboard")
    trainboard_logs.addHandler(errors)
    listener = listen(settings, scan=False)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, name="trainboard-server", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while not (server.started and progress.done):
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"trainboard {command} in process did not start:\n{log.read_text()}")
            time.sleep(0.01)
        yield Server(url(settings, listener).rstrip("/"), log)
    finally:
        server.should_exit = True
        thread.join(30)
        listener.close()
        LOGS.remove(errors)
        uvicorn_errors.removeHandler(errors)
        trainboard_logs.removeHandler(errors)
        errors.close()


@contextmanager
def running(
    command: list[str],
    port: int,
    log: Path,
    ready: Callable[[httpx.Client], bool],
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """Start `command`, wait until `ready` holds, yield the server, then stop its whole process group."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True, env=env
        )
    server = Server(f"http://127.0.0.1:{port}", log)
    try:
        wait_until_ready(process, server, ready, timeout)
        yield server
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the process's whole group: SIGTERM, then SIGKILL after 10 s; a group that is gone already is fine."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_until_ready(
    process: subprocess.Popen[bytes],
    server: Server,
    ready: Callable[[httpx.Client], bool],
    timeout: float,
    verify: ssl.SSLContext | bool = True,
) -> None:
    """Until `ready` holds; `verify` checks an https server's certificate (tests/team/proxies.py)."""
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=server.url, timeout=5, verify=verify) as client:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{process.args!r} exited with {process.returncode}:\n{server.output()}")
            try:
                if ready(client):
                    return
            except (httpx.HTTPError, ValueError, KeyError):
                pass  # not listening yet, or not answering the readiness route yet
            if time.monotonic() > deadline:
                raise RuntimeError(f"{process.args!r} not ready after {timeout} s:\n{server.output()}")
            time.sleep(POLL_SECONDS)
