"""Run metadata and saved views in the SQLite store (see `trainboard.store.run_metadata`)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from trainboard.store.sql_run_metadata import SqlRunMetadata


class SqliteRunMetadata(SqlRunMetadata):
    """On the backend's connections: a read-only one per thread (`read_connection`), and its writer's transactions
    (`immediate`), which take turns with ingest's."""

    def __init__(
        self,
        read_connection: Callable[[], sqlite3.Connection],
        immediate: Callable[[], AbstractContextManager[sqlite3.Connection]],
    ) -> None:
        super().__init__(placeholder="?")
        self._read_connection = read_connection
        self._immediate = immediate

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        return self._read_connection().execute(sql, params).fetchall()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[_Writing]:
        with self._immediate() as db:
            yield _Writing(db)


class _Writing:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def rows(self, sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        return self._db.execute(sql, params).fetchall()

    def many(self, sql: str, params: Sequence[Sequence[object]]) -> None:
        self._db.executemany(sql, params)
