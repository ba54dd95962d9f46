"""A real PostgreSQL for tests: Debian's server binaries (initdb, pg_ctl) on a free loopback port in a temporary
directory, trust authentication, removed afterwards.

PostgreSQL refuses to run as root: as root, the data directory belongs to the `postgres` user and the binaries run
through `runuser -u postgres --`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.servers import free_port

USER = "trainboard"
# Durability is worth nothing to a test server that is removed afterwards; these make each commit cheap.
SETTINGS = ("fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=200")
START_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class PostgresServer:
    url: str
    log: Path

    def output(self, limit: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-limit:]

    def create_database(self, name: str) -> str:
        """A new empty database named `name` (made safe as an identifier); its URL."""
        name = database_name(name)
        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.database_url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{database_name(name)}" WITH (FORCE)')

    def database_url(self, name: str) -> str:
        return f"{self.url.rsplit('/', 1)[0]}/{name}"


def database_name(name: str) -> str:
    """Lower-case letters, digits and underscores, at most 63 characters (PostgreSQL's identifier limit)."""
    return re.sub(r"[^a-z0-9_]+", "_", name.lower())[:63]


def server_binaries() -> Path:
    """The bin directory of the newest PostgreSQL that Debian's `postgresql` package installed."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda path: int(path.parent.parent.name))
    if not found:
        raise RuntimeError("no PostgreSQL server found in /usr/lib/postgresql: install Debian's postgresql package")
    return found[-1].parent


@contextmanager
def postgres_server(settings: tuple[str, ...] = ()) -> Iterator[PostgresServer]:
    """Start a PostgreSQL of its own (with `settings` besides SETTINGS), yield it, then stop it and remove its
    files."""
    binaries = server_binaries()
    # Not under pytest's tmp_path: that is private to root (0700), and the server may run as `postgres`.
    scratch = Path(tempfile.mkdtemp(prefix="trainboard-postgres-"))
    as_server = _as_postgres_user if os.geteuid() == 0 else _as_ourselves
    try:
        data, sockets, log = scratch / "data", scratch / "sockets", scratch / "server.log"
        sockets.mkdir()
        if os.geteuid() == 0:
            for path in (scratch, sockets):
                shutil.chown(path, "postgres", "postgres")
        _run(as_server([str(binaries / "initdb"), "-D", str(data), "-U", USER, "-A", "trust", "-E", "UTF8",
                        "--no-locale", "--no-sync"]))  # fmt: skip
        port = _start(as_server, binaries, data, sockets, log, settings)
        try:
            yield PostgresServer(f"postgresql://{USER}@127.0.0.1:{port}/postgres", log)
        finally:
            _run(as_server([str(binaries / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate", "-w"]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _start(
    as_server: Callable[[list[str]], list[str]],
    binaries: Path,
    data: Path,
    sockets: Path,
    log: Path,
    settings: tuple[str, ...],
) -> int:
    """Start the server on a free port (another process may take the port first: try again on a new one)."""
    for attempt in range(START_ATTEMPTS):
        port = free_port()
        options = " ".join(
            [f"-h 127.0.0.1 -p {port} -k {sockets}", *(f"-c {setting}" for setting in (*SETTINGS, *settings))]
        )
        command = as_server([str(binaries / "pg_ctl"), "start", "-D", str(data), "-l", str(log), "-w", "-t", "60",
                             "-o", options])  # fmt: skip
        if subprocess.run(command, capture_output=True).returncode == 0:
            return port
        if attempt == START_ATTEMPTS - 1:
            raise RuntimeError(f"PostgreSQL did not start:\n{log.read_text(errors='replace')[-4000:]}")
    raise AssertionError("unreachable")


def _as_postgres_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command]


def _as_ourselves(command: list[str]) -> list[str]:
    return command


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{command!r} exited with {result.returncode}:\n{result.stdout}{result.stderr}")


@dataclass(frozen=True, slots=True)
class RestartablePostgres:
    """A PostgreSQL of its own that a test stops and starts again on the same port, data kept (tests/team/faults)."""

    server: PostgresServer
    control: Callable[[str], list[str]]

    def stop(self) -> None:
        """Stop as an operator's restart does (`pg_ctl stop -m fast`: open sessions are ended)."""
        _run(self.control("stop"))

    def start(self) -> None:
        _run(self.control("start"))


@contextmanager
def restartable_postgres_server() -> Iterator[RestartablePostgres]:
    """As `postgres_server`, on a port it keeps across `stop()` and `start()`."""
    binaries = server_binaries()
    scratch = Path(tempfile.mkdtemp(prefix="trainboard-postgres-"))
    as_server = _as_postgres_user if os.geteuid() == 0 else _as_ourselves
    try:
        data, sockets, log = scratch / "data", scratch / "sockets", scratch / "server.log"
        sockets.mkdir()
        if os.geteuid() == 0:
            for path in (scratch, sockets):
                shutil.chown(path, "postgres", "postgres")
        _run(as_server([str(binaries / "initdb"), "-D", str(data), "-U", USER, "-A", "trust", "-E", "UTF8",
                        "--no-locale", "--no-sync"]))  # fmt: skip
        port = _start(as_server, binaries, data, sockets, log, ())
        options = " ".join([f"-h 127.0.0.1 -p {port} -k {sockets}", *(f"-c {setting}" for setting in SETTINGS)])

        def control(action: str) -> list[str]:
            where = ["-D", str(data), "-l", str(log), "-w", "-t", "60"]
            return as_server(
                [str(binaries / "pg_ctl"), action, *where, *(["-m", "fast"] if action == "stop" else ["-o", options])]
            )

        try:
            yield RestartablePostgres(PostgresServer(f"postgresql://{USER}@127.0.0.1:{port}/postgres", log), control)
        finally:
            subprocess.run(
                as_server([str(binaries / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate", "-w"]),
                capture_output=True,
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
