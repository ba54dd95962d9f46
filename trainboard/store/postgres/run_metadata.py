"""Run metadata and saved views in the PostgreSQL store (see `trainboard.store.run_metadata`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg

from trainboard.store.postgres.pool import Pool
from trainboard.store.sql_run_metadata import SqlRunMetadata


class PostgresRunMetadata(SqlRunMetadata):
    def __init__(self, pool: Pool) -> None:
        super().__init__(placeholder="%s")
        self._pool = pool

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._pool.connection() as connection:
            return connection.execute(sql, params).fetchall()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[_Writing]:
        with self._pool.writing() as connection, connection.transaction():
            yield _Writing(connection)


class _Writing:
    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self._connection = connection

    def rows(self, sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        cursor = self._connection.execute(sql, params)
        return cursor.fetchall() if cursor.description is not None else []

    def many(self, sql: str, params: Sequence[Sequence[object]]) -> None:
        with self._connection.cursor() as cursor:
            cursor.executemany(sql, params)
