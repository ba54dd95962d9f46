"""The real TS-VIS 0.4.2, installed by scripts/test into .venv-tsvis (it needs NumPy 1.23 and protobuf 3)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.servers import Server, free_port, running

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv-tsvis" / "bin" / "python"
SHIM = Path(__file__).with_name("shim")


def run_in_tsvis(script: Path, *args: str) -> Any:
    """Run `script` with TS-VIS's Python and return the JSON it prints."""
    assert PYTHON.exists(), f"{PYTHON} is missing: scripts/test installs the real TS-VIS there"
    done = subprocess.run([str(PYTHON), str(script), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{script.name} failed:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout)


@contextmanager
def tsvis_server(logdir: Path) -> Iterator[Server]:
    """The real TS-VIS backend on `logdir` (its cache goes beside it), after /api/init says its parse is done. It
    listens on every interface: TS-VIS has no flag for the host."""
    assert PYTHON.exists(), f"{PYTHON} is missing: scripts/test installs the real TS-VIS there"
    port = free_port()
    command = [str(PYTHON), "-m", "tsvis.server.main", f"--logdir={logdir}", f"--port={port}"]

    def parsed(client: httpx.Client) -> bool:
        return bool(client.get("/api/init", timeout=60).raise_for_status().json()["code"] == 200)

    env = {**os.environ, "PYTHONPATH": str(SHIM)}
    with running(command, port, logdir.parent / "tsvis.log", parsed, env=env) as server:
        yield server
