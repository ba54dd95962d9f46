"""The one migrations runner (`trainboard.store.migrations`) on both databases: each migration applied once and
recorded, a migration that fails leaves the schema as it was, and a database migrated by a newer trainboard is
refused."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from trainboard.store.errors import StoreUnavailable
from trainboard.store.migrations import migrate
from trainboard.store.opening import open_store
from trainboard.store.postgres import migrations as postgres
from trainboard.store.sqlite import migrations as sqlite

DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def database_url(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    return f"sqlite:{tmp_path / 'store.sqlite'}" if kind == "sqlite" else request.getfixturevalue("postgres_url")


def execute(url: str, sql: str) -> list[tuple[object, ...]]:
    """One statement on the database behind the store, through its own driver; the rows it returns."""
    if url.startswith("sqlite:"):
        with sqlite3.connect(url.removeprefix("sqlite:")) as connection:
            rows = connection.execute(sql).fetchall()
        connection.close()
        return rows
    with psycopg.connect(url, autocommit=True) as pg:
        cursor = pg.execute(sql.encode())
        return cursor.fetchall() if cursor.description is not None else []


@pytest.mark.parametrize("kind", DATABASES)
def test_each_migration_is_applied_once_and_a_newer_database_is_refused(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = database_url(kind, tmp_path, request)
    open_store(url).close()
    open_store(url).close()
    applied = [name for (name,) in execute(url, "SELECT name FROM migrations ORDER BY name")]
    assert applied == [name for name, _ in (sqlite.MIGRATIONS if kind == "sqlite" else postgres.MIGRATIONS)]
    execute(url, "INSERT INTO migrations (name, applied_at) VALUES ('0999_from_the_future', 0)")
    with pytest.raises(StoreUnavailable, match=r"was migrated by a newer trainboard \(0999_from_the_future\)"):
        open_store(url)


def test_a_migration_that_fails_leaves_the_schema_as_it_was(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / "store.sqlite", isolation_level=None)

    @contextlib.contextmanager
    def immediate() -> Iterator[sqlite3.Connection]:
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield connection
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    fine = ("0001_fine", "CREATE TABLE fine (x INTEGER)")
    broken = ("0002_broken", "CREATE TABLE kept (x INTEGER); INSERT INTO nowhere VALUES (1)")
    with pytest.raises(sqlite3.OperationalError, match="no such table: nowhere"):
        migrate([fine, broken], immediate, placeholder="?", location="the store", backfills={})
    assert connection.execute("SELECT name FROM sqlite_master").fetchall() == []
    migrate([fine], immediate, placeholder="?", location="the store", backfills={})
    tables = [name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert sorted(tables) == ["fine", "migrations"]
    connection.close()
