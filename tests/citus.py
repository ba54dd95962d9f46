"""A real Citus cluster for tests: a coordinator and two workers, three PostgreSQL servers of tests/pgserver.py on
this machine with Citus preloaded. Each test database is made on every node from a template database that has the
extension and knows the nodes (`citus_set_coordinator_host`, `citus_add_node`), so a new one costs three
`CREATE DATABASE`s; the first store opened on it distributes trainboard's tables.

Citus is not in Debian's archive: `../shared/tools/build-citus` builds it into Debian's PostgreSQL 15 (scripts/test
runs it); without it the Citus tests skip, saying so.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.pgserver import PostgresServer, database_name, postgres_server, server_binaries

# A database with Citus that knows the nodes, which each test database is a copy of.
TEMPLATE = "citus_template"
# How long making or dropping a test database waits for Citus' own sessions in it (or the template) to end.
DROP_SECONDS = 30
# Few shards per table: a test database is distributed in a few seconds (Citus' default is 32 per table).
SHARD_COUNT = 4
SETTINGS = (
    "shared_preload_libraries=citus",
    f"citus.shard_count={SHARD_COUNT}",
    # Shard moves copy by logical replication.
    "wal_level=logical",
    "max_replication_slots=20",
    "max_wal_senders=20",
)
BUILD = Path(__file__).parents[2] / "shared" / "tools" / "build-citus"
HOW_TO_INSTALL = (
    "Citus is not installed in Debian's PostgreSQL: run ../shared/tools/build-citus (scripts/test does when ../shared"
    " exists), or install Citus 13 for PostgreSQL 15 (https://docs.citusdata.com/)"
)


def citus_installed() -> bool:
    return (server_binaries().parent / "lib" / "citus.so").exists()


def skip_without_citus() -> None:
    if not citus_installed():
        pytest.skip(HOW_TO_INSTALL)


@dataclass(frozen=True, slots=True)
class CitusCluster:
    coordinator: PostgresServer
    workers: tuple[PostgresServer, ...]

    @property
    def nodes(self) -> tuple[PostgresServer, ...]:
        return (self.coordinator, *self.workers)

    def create_database(self, name: str) -> str:
        """A new empty database with Citus and the workers, named `name` and a unique suffix; the coordinator's URL."""
        name = database_name(f"{name[:50]}_{uuid.uuid4().hex[:8]}")
        for node in self.nodes:
            with psycopg.connect(node.url, autocommit=True) as connection:
                copy_template(connection, name)
        return self.coordinator.database_url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        for node in self.nodes:
            # Citus' background sessions in the database (its maintenance daemon, a cleanup after a shard move) are
            # not ended by DROP DATABASE ... WITH (FORCE) at once.
            deadline = time.monotonic() + DROP_SECONDS
            while True:
                try:
                    node.drop_database(node.database_url(name))
                    break
                except psycopg.errors.ObjectInUse:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)

    def port(self, node: PostgresServer) -> int:
        return int(node.url.rsplit(":", 1)[1].split("/")[0])


def copy_template(connection: psycopg.Connection[tuple[object, ...]], name: str) -> None:
    """`CREATE DATABASE name` from the template. Citus' maintenance daemon keeps a session in each database with the
    extension, and a template in use cannot be copied: the daemon is ended first, and the copy tried again if it came
    back in between (it restarts after a few seconds)."""
    deadline = time.monotonic() + DROP_SECONDS
    while True:
        connection.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (TEMPLATE,))
        try:
            connection.execute(f'CREATE DATABASE "{name}" TEMPLATE {TEMPLATE}')
            return
        except psycopg.errors.ObjectInUse:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextmanager
def citus_cluster() -> Iterator[CitusCluster]:
    """Start a coordinator and two workers, make the template database on each, yield the cluster, stop it."""
    with ExitStack() as stack:
        coordinator, *workers = (stack.enter_context(postgres_server(SETTINGS)) for _ in range(3))
        cluster = CitusCluster(coordinator, tuple(workers))
        for node in cluster.nodes:
            with psycopg.connect(node.url, autocommit=True) as connection:
                connection.execute(f"CREATE DATABASE {TEMPLATE}")
            with psycopg.connect(node.database_url(TEMPLATE), autocommit=True) as connection:
                connection.execute("CREATE EXTENSION citus")
        with psycopg.connect(coordinator.database_url(TEMPLATE), autocommit=True) as connection:
            connection.execute("SELECT citus_set_coordinator_host('127.0.0.1', %s)", (cluster.port(coordinator),))
            for worker in workers:
                connection.execute("SELECT citus_add_node('127.0.0.1', %s)", (cluster.port(worker),))
        yield cluster
