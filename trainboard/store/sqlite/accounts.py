"""Users, tokens and roles in the SQLite store (see `trainboard.store.accounts`)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from trainboard.store.sql_accounts import SqlAccounts


class SqliteAccounts(SqlAccounts):
    """On the backend's connections: a read-only one per thread (`reader`), and its one writer with its lock."""

    def __init__(
        self, read_connection: Callable[[], sqlite3.Connection], writer: sqlite3.Connection, write_lock: threading.RLock
    ) -> None:
        super().__init__(placeholder="?", user_id="id", token_id="id", experiment_id="id")
        self._read_connection = read_connection
        self._writer = writer
        self._write_lock = write_lock

    def _read(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        return self._read_connection().execute(sql, params).fetchall()

    def _write(self, sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        with self._write_lock:
            return self._writer.execute(sql, params).fetchall()

    def add_experiment(self, experiment_id: str, name: str, description: str, owner_id: int, created: float) -> bool:
        added = self._write(
            "INSERT INTO experiments (id, name, description, created, updated, owner_id) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING RETURNING id",
            (experiment_id, name, description, created, created, owner_id),
        )
        return bool(added)
