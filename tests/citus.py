"""A real Citus cluster for tests: a coordinator and two workers, three PostgreSQL servers of tests/pgserver.py on
this machine with Citus preloaded. Each test database is made on every node from a template database that has the
extension and knows the nodes (`citus_set_coordinator_host`, `citus_add_node`) and, unless asked otherwise,
trainboard's schema migrated and distributed, so a new one costs three `CREATE DATABASE`s.

Citus is not in Debian's archive: `../shared/tools/build-citus` builds it into Debian's PostgreSQL 15 (scripts/test
runs it); without it the Citus tests skip, saying so.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.pgserver import PostgresServer, database_name, postgres_server, server_binaries
from trainboard.store.postgres.database import PostgresDatabase

# Databases with Citus and the nodes; the second with trainboard's schema migrated and distributed too.
TEMPLATE = "citus_template"
MIGRATED_TEMPLATE = "citus_trainboard"
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

    def create_database(self, name: str, *, migrated: bool = True) -> str:
        """A new database with Citus and the workers, named `name` and a unique suffix, with trainboard's schema
        distributed and no rows (or no tables, not `migrated`); the coordinator's URL."""
        name = database_name(f"{name[:50]}_{uuid.uuid4().hex[:8]}")
        self._copy(MIGRATED_TEMPLATE if migrated else TEMPLATE, name)
        return self.coordinator.database_url(name)

    def _copy(self, template: str, name: str) -> None:
        for node in self.nodes:
            with psycopg.connect(node.url, autocommit=True) as connection:
                # Citus' maintenance daemon keeps a connection to each database with the extension, and a template in
                # use cannot be copied: the daemon of a template, which no one uses, is ended and not restarted.
                connection.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (template,)
                )
                connection.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        for node in self.nodes:
            node.drop_database(node.database_url(name))

    def port(self, node: PostgresServer) -> int:
        return int(node.url.rsplit(":", 1)[1].split("/")[0])


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
        cluster._copy(TEMPLATE, MIGRATED_TEMPLATE)
        PostgresDatabase(coordinator.database_url(MIGRATED_TEMPLATE)).close()
        yield cluster
