"""The real `trainboard` console script in a subprocess on loopback, its stdout and stderr kept apart."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import random
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.servers import BIN, SERVING, stop

TIMEOUT = 120.0


@dataclass(frozen=True, slots=True)
class Trainboard:
    url: str
    stdout: Path
    stderr: Path
    process: subprocess.Popen[bytes]

    def errors(self) -> str:
        """What it printed on stderr, carriage returns kept."""
        return self.stderr.read_bytes().decode(errors="replace")


def command(*flags: str) -> list[str]:
    return [str(BIN / "trainboard"), *flags]


@contextmanager
def trainboard(
    scratch: Path, *flags: str, env: Mapping[str, str] | None = None, tty: bool = False, url: str | None = None
) -> Iterator[Trainboard]:
    """`trainboard FLAGS` once its first ingest pass is done, at the URL it prints (or `url`); with `tty`, its
    stderr is a 30×120 terminal."""
    scratch.mkdir(parents=True, exist_ok=True)
    stdout, stderr = scratch / "stdout", scratch / "stderr"
    environment = {**os.environ, **(env or {})}
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(stdout.open("wb"))
        if tty:
            terminal, err = pty.openpty()
            fcntl.ioctl(err, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
            stack.callback(os.close, terminal)
        else:
            err = stack.enter_context(stderr.open("wb")).fileno()
        process = subprocess.Popen(
            command(*flags), stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=environment, start_new_session=True
        )
        if tty:
            os.close(err)
            threading.Thread(target=_copy, args=(terminal, stderr), daemon=True).start()
        stack.callback(stop, process)
        server = Trainboard(url or _printed_url(process, stderr), stdout, stderr, process)
        _wait_for_ingest(process, server)
        yield server


def _copy(terminal: int, into: Path) -> None:
    with into.open("wb") as output:
        while True:
            try:
                chunk = os.read(terminal, 65536)
            except OSError:  # the other end closed
                return
            if not chunk:
                return
            output.write(chunk)
            output.flush()


def _printed_url(process: subprocess.Popen[bytes], stderr: Path) -> str:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = SERVING.search(stderr.read_text(errors="replace")) if stderr.exists() else None
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"trainboard exited with {process.returncode}: {stderr.read_text(errors='replace')}")
        time.sleep(0.1)
    raise RuntimeError(f"trainboard printed no URL in {TIMEOUT} s")


def _wait_for_ingest(process: subprocess.Popen[bytes], server: Trainboard) -> None:
    deadline = time.monotonic() + TIMEOUT
    with httpx.Client(base_url=server.url, timeout=5) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"trainboard exited with {process.returncode}: {server.errors()}")
            with contextlib.suppress(httpx.HTTPError):
                # Done at the route, and the terminal's summary line (drawn every 0.2 s) printed.
                if client.get("data/ingest_progress").json()["done"] is True and "ingest done: " in server.errors():
                    return
            time.sleep(0.2)
    raise RuntimeError(f"trainboard's ingest not done in {TIMEOUT} s: {server.errors()}")


def kill_partway(process: subprocess.Popen[bytes], partway: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
    """Kill -9 the process at a random moment once `partway` holds (some of its work committed, not all); False when
    it ended before."""
    deadline = time.monotonic() + timeout
    while not partway() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    time.sleep(random.uniform(0, 0.3))
    if process.poll() is not None:
        return False
    process.kill()
    process.wait()
    return True
