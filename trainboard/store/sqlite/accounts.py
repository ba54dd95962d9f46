"""Users, tokens and roles in the SQLite store (see `trainboard.store.accounts`)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from trainboard.store.accounts import ExperimentAccess, SessionRow, TokenRow, UserRow

TOKEN_COLUMNS = "id, user_id, secret_hash, experiment_id, role, created, expires, revoked"
SESSION_COLUMNS = "secret_hash, token_id, created, expires"


class SqliteAccounts:
    """On the backend's connections: a read-only one per thread (`reader`), and its one writer with its lock."""

    def __init__(
        self, reader: Callable[[], sqlite3.Connection], writer: sqlite3.Connection, write_lock: threading.RLock
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._write_lock = write_lock

    def _rows(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        return self._reader().execute(sql, params).fetchall()

    def _write(self, sql: str, params: tuple[object, ...]) -> int:
        with self._write_lock:
            return self._writer.execute(sql, params).rowcount

    def add_user(self, name: str, created: float) -> UserRow | None:
        if not self._write(
            "INSERT INTO users (name, created) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", (name, created)
        ):
            return None
        return self.user(name)

    def user(self, name: str) -> UserRow | None:
        rows = self._rows("SELECT id, name, created FROM users WHERE name = ?", (name,))
        return UserRow(*rows[0]) if rows else None

    def user_by_id(self, user_id: int) -> UserRow | None:
        rows = self._rows("SELECT id, name, created FROM users WHERE id = ?", (user_id,))
        return UserRow(*rows[0]) if rows else None

    def add_token(self, token: TokenRow) -> None:
        self._write(
            f"INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                token.id,
                token.user_id,
                token.secret_hash,
                token.experiment_id,
                token.role,
                token.created,
                token.expires,
                token.revoked,
            ),
        )

    def token_by_hash(self, secret_hash: str) -> TokenRow | None:
        rows = self._rows(f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE secret_hash = ?", (secret_hash,))
        return TokenRow(*rows[0]) if rows else None

    def token_by_id(self, token_id: str) -> TokenRow | None:
        rows = self._rows(f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE id = ?", (token_id,))
        return TokenRow(*rows[0]) if rows else None

    def tokens(self, user_id: int | None) -> list[TokenRow]:
        if user_id is None:
            rows = self._rows(f"SELECT {TOKEN_COLUMNS} FROM tokens ORDER BY created, id")
        else:
            rows = self._rows(f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE user_id = ? ORDER BY created, id", (user_id,))
        return [TokenRow(*row) for row in rows]

    def revoke_token(self, token_id: str, revoked: float) -> None:
        self._write("UPDATE tokens SET revoked = ? WHERE id = ? AND revoked IS NULL", (revoked, token_id))

    def add_session(self, session: SessionRow) -> None:
        self._write(
            f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES (?, ?, ?, ?)",
            (session.secret_hash, session.token_id, session.created, session.expires),
        )

    def session_by_hash(self, secret_hash: str) -> SessionRow | None:
        rows = self._rows(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE secret_hash = ?", (secret_hash,))
        return SessionRow(*rows[0]) if rows else None

    def delete_session(self, secret_hash: str) -> None:
        self._write("DELETE FROM sessions WHERE secret_hash = ?", (secret_hash,))

    def delete_sessions_expired_by(self, now: float) -> None:
        self._write("DELETE FROM sessions WHERE expires <= ?", (now,))

    def add_experiment(self, experiment_id: str, name: str, description: str, owner_id: int, created: float) -> bool:
        return bool(
            self._write(
                "INSERT INTO experiments (id, name, description, created, updated, owner_id) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (name) DO NOTHING",
                (experiment_id, name, description, created, created, owner_id),
            )
        )

    def experiment_access(self, experiment_id: str) -> ExperimentAccess | None:
        rows = self._rows("SELECT owner_id, public FROM experiments WHERE id = ?", (experiment_id,))
        return ExperimentAccess(owner_id=rows[0][0], public=bool(rows[0][1])) if rows else None

    def set_owner(self, experiment_id: str, user_id: int) -> None:
        self._write("UPDATE experiments SET owner_id = ? WHERE id = ?", (user_id, experiment_id))

    def set_public(self, experiment_id: str, public: bool) -> None:
        self._write("UPDATE experiments SET public = ? WHERE id = ?", (int(public), experiment_id))

    def rename_experiment(self, experiment_id: str, name: str) -> bool:
        sql = (
            "UPDATE experiments SET name = ? WHERE id = ?"
            " AND NOT EXISTS (SELECT 1 FROM experiments WHERE name = ? AND id != ?)"
        )
        return bool(self._write(sql, (name, experiment_id, name, experiment_id)))

    def set_role(self, experiment_id: str, user_id: int, role: int | None) -> None:
        if role is None:
            self._write(
                "DELETE FROM experiment_roles WHERE experiment_id = ? AND user_id = ?", (experiment_id, user_id)
            )
            return
        self._write(
            "INSERT INTO experiment_roles (experiment_id, user_id, role) VALUES (?, ?, ?)"
            " ON CONFLICT (experiment_id, user_id) DO UPDATE SET role = excluded.role",
            (experiment_id, user_id, role),
        )

    def role(self, experiment_id: str, user_id: int) -> int | None:
        rows = self._rows(
            "SELECT role FROM experiment_roles WHERE experiment_id = ? AND user_id = ?", (experiment_id, user_id)
        )
        return int(rows[0][0]) if rows else None

    def roles(self, experiment_id: str) -> dict[int, int]:
        rows = self._rows("SELECT user_id, role FROM experiment_roles WHERE experiment_id = ?", (experiment_id,))
        return {int(user_id): int(role) for user_id, role in rows}

    def roles_of_user(self, user_id: int) -> dict[str, int]:
        rows = self._rows("SELECT experiment_id, role FROM experiment_roles WHERE user_id = ?", (user_id,))
        return {experiment_id: int(role) for experiment_id, role in rows}

    def owned(self, user_id: int) -> list[str]:
        return [eid for (eid,) in self._rows("SELECT id FROM experiments WHERE owner_id = ? ORDER BY id", (user_id,))]

    def public_experiments(self) -> list[str]:
        return [eid for (eid,) in self._rows("SELECT id FROM experiments WHERE public != 0 ORDER BY id")]
