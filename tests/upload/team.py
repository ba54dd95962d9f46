"""A real `trainboard serve` of a store (SQLite, or PostgreSQL with blobs on a real S3 server), without tokens, and
`trainboard upload` processes against it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli.process import command
from tests.servers import SERVING, stop
from trainboard.store.opening import open_store

TIMEOUT = 180.0


# The stores the upload tests run on; the kill tests on a Citus cluster too (on the xdist worker of the other Citus
# tests), by parametrising `team_store` with WITH_CITUS.
TEAM_STORES = ["sqlite", pytest.param("postgres+s3", marks=pytest.mark.postgres)]
WITH_CITUS = [*TEAM_STORES, pytest.param("citus+s3", marks=[pytest.mark.citus, pytest.mark.xdist_group("citus")])]


@dataclass(frozen=True, slots=True)
class TeamStore:
    db: str
    flags: tuple[str, ...]
    env: dict[str, str] | None

    def create_experiment(self, name: str) -> str:
        store = open_store(self.db)
        try:
            return store.create_experiment(name).id
        finally:
            store.close()


@contextmanager
def serving(store: TeamStore, scratch: Path, port: int = 0, *, tokens: bool = False) -> Iterator[str]:
    """`trainboard serve` of the store on `port` (0: any), without tokens unless `tokens`; its URL once it
    listens."""
    with started_server(store, scratch, port, tokens=tokens) as (url, _):
        yield url


@contextmanager
def started_server(
    store: TeamStore, scratch: Path, port: int, *, tokens: bool = False
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    scratch.mkdir(parents=True, exist_ok=True)
    log = scratch / f"serve-{time.monotonic_ns()}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            command(
                "serve",
                f"--db={store.db}",
                f"--port={port}",
                *([] if tokens else ["--no_auth"]),
                "--samples_per_plugin=all",
                *store.flags,
            ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=output,
            env=store.env,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + TIMEOUT
        while not (found := SERVING.search(log.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"trainboard serve did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield found.group(1).rstrip("/"), process
    finally:
        stop(process)


def upload(url: str, experiment: str, logdir: Path, *flags: str, token: str = "") -> subprocess.Popen[bytes]:
    """`trainboard upload`, with the token (if any) in TRAINBOARD_TOKEN as users are told to give it."""
    return subprocess.Popen(
        command("upload", f"--server={url}", f"--experiment={experiment}", f"--logdir={logdir}", *flags),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, "TRAINBOARD_TOKEN": token},
    )


def finished(process: subprocess.Popen[bytes]) -> str:
    output, errors = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, errors.decode(errors="replace")
    assert output == b""
    return errors.decode(errors="replace")
