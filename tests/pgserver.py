"""A real PostgreSQL for tests: Debian's server binaries (initdb, pg_ctl) on a free loopback port in a temporary
directory, trust authentication, removed afterwards. A test may stop and start it again (same port, data kept), and
make hot standbys of it that follow it by streaming replication (`pg_basebackup -R`), and promote one.

PostgreSQL refuses to run as root: as root, the data directory belongs to the `postgres` user and the binaries run
through `runuser -u postgres --`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
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
    data: Path
    control: Callable[[str], list[str]]

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

    @property
    def address(self) -> str:
        """host:port."""
        return self.url.split("@", 1)[1].split("/", 1)[0]

    def stop(self) -> None:
        """Stop as an operator's restart does (`pg_ctl stop -m fast`: open sessions are ended)."""
        _run(self.control("stop"))

    def start(self) -> None:
        _run(self.control("start"))

    def catch_up(self, primary: PostgresServer, timeout: float = 30) -> None:
        """Until this standby has replayed all that `primary` has written so far."""
        with psycopg.connect(primary.url, autocommit=True) as connection:
            row = connection.execute("SELECT pg_current_wal_insert_lsn() - '0/0'").fetchone()
        assert row is not None
        deadline = time.monotonic() + timeout
        with psycopg.connect(self.url, autocommit=True) as connection:
            while True:
                replayed = connection.execute("SELECT pg_last_wal_replay_lsn() - '0/0'").fetchone()
                if replayed is not None and replayed[0] is not None and replayed[0] >= row[0]:
                    return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the standby did not catch up within {timeout} s:\n{self.output()}")
                time.sleep(0.02)

    def promote(self) -> None:
        """A standby made a primary (failover), once it takes writes."""
        _run(self.control("promote"))


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
    with _cluster() as (scratch, as_server):
        _run(as_server([str(server_binaries() / "initdb"), "-D", str(scratch / "data"), "-U", USER, "-A", "trust",
                        "-E", "UTF8", "--no-locale", "--no-sync"]))  # fmt: skip
        with _running(scratch, as_server, settings) as server:
            yield server


@contextmanager
def standby_server(primary: PostgresServer) -> Iterator[PostgresServer]:
    """A hot standby of `primary`: its base backup taken by `pg_basebackup -R` (which writes the settings that make
    it stream the primary's WAL from then on), started on a port of its own; read-only until promoted."""
    with _cluster() as (scratch, as_server):
        host, port = primary.address.split(":")
        _run(as_server([str(server_binaries() / "pg_basebackup"), "-D", str(scratch / "data"), "-h", host, "-p", port,
                        "-U", USER, "-R", "-X", "stream", "--no-sync",
                        # At once, not after the primary's next spread checkpoint (minutes after a burst of writes).
                        "--checkpoint=fast"]))  # fmt: skip
        with _running(scratch, as_server, ("hot_standby=on",)) as server:
            yield server


@contextmanager
def _cluster() -> Iterator[tuple[Path, Callable[[list[str]], list[str]]]]:
    """A scratch directory for one server (owned by `postgres` when we are root), removed afterwards; and how to run
    the server's binaries."""
    # Not under pytest's tmp_path: that is private to root (0700), and the server may run as `postgres`.
    scratch = Path(tempfile.mkdtemp(prefix="trainboard-postgres-"))
    as_server = _as_postgres_user if os.geteuid() == 0 else _as_ourselves
    try:
        (scratch / "sockets").mkdir()
        if os.geteuid() == 0:
            for path in (scratch, scratch / "sockets"):
                shutil.chown(path, "postgres", "postgres")
        yield scratch, as_server
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextmanager
def _running(
    scratch: Path, as_server: Callable[[list[str]], list[str]], settings: tuple[str, ...]
) -> Iterator[PostgresServer]:
    """The server of `scratch/data` started on a free port, which `start()` uses again; stopped at the end."""
    binaries, data, sockets, log = server_binaries(), scratch / "data", scratch / "sockets", scratch / "server.log"
    port = _start(as_server, binaries, data, sockets, log, settings)
    options = _options(port, sockets, settings)

    def control(action: str) -> list[str]:
        where = ["-D", str(data), "-l", str(log), "-w", "-t", "60"]
        how = {"stop": ["-m", "fast"], "start": ["-o", options]}.get(action, [])
        return as_server([str(binaries / "pg_ctl"), action, *where, *how])

    try:
        yield PostgresServer(f"postgresql://{USER}@127.0.0.1:{port}/postgres", log, data, control)
    finally:
        subprocess.run(
            as_server([str(binaries / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate", "-w"]), capture_output=True
        )


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
        command = as_server([str(binaries / "pg_ctl"), "start", "-D", str(data), "-l", str(log), "-w", "-t", "60",
                             "-o", _options(port, sockets, settings)])  # fmt: skip
        if subprocess.run(command, capture_output=True).returncode == 0:
            return port
        if attempt == START_ATTEMPTS - 1:
            raise RuntimeError(f"PostgreSQL did not start:\n{log.read_text(errors='replace')[-4000:]}")
    raise AssertionError("unreachable")


def _options(port: int, sockets: Path, settings: tuple[str, ...]) -> str:
    return " ".join([f"-h 127.0.0.1 -p {port} -k {sockets}", *(f"-c {setting}" for setting in (*SETTINGS, *settings))])


def _as_postgres_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command]


def _as_ourselves(command: list[str]) -> list[str]:
    return command


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{command!r} exited with {result.returncode}:\n{result.stdout}{result.stderr}")
