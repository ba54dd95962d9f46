"""Users, tokens and roles in the PostgreSQL store (see `trainboard.store.accounts`)."""

from __future__ import annotations

from typing import Any

from trainboard.store.postgres.pool import Pool
from trainboard.store.sql_accounts import SqlAccounts


class PostgresAccounts(SqlAccounts):
    def __init__(self, pool: Pool) -> None:
        super().__init__(placeholder="%s", user_id="user_id", token_id="token_id", experiment_id="experiment_id")
        self._pool = pool

    def _read(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        with self._pool.connection() as connection:
            return connection.execute(sql, params).fetchall()

    def _write(self, sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        with self._pool.writing() as connection:
            cursor = connection.execute(sql, params)
            return cursor.fetchall() if cursor.description is not None else []

    def add_experiment(self, experiment_id: str, name: str, description: str, owner_id: int, created: float) -> bool:
        # As the backend creates experiments, with their `experiment_state` row, and the owner.
        added = self._write(
            "WITH created AS (INSERT INTO experiments (experiment_id, name, description, created, owner_id)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING experiment_id, created)"
            " INSERT INTO experiment_state (experiment_id, updated) SELECT experiment_id, created FROM created"
            " RETURNING experiment_id",
            (experiment_id, name, description, created, owner_id),
        )
        return bool(added)
