"""Users, tokens and roles in the PostgreSQL store (see `trainboard.store.accounts`)."""

from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool

from trainboard.store.accounts import ExperimentAccess, SessionRow, TokenRow, UserRow

TOKEN_COLUMNS = "token_id, user_id, secret_hash, experiment_id, role, created, expires, revoked"
SESSION_COLUMNS = "secret_hash, token_id, created, expires"


class PostgresAccounts:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    def _rows(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        with self._pool.connection() as connection:
            return connection.execute(sql, params).fetchall()

    def _write(self, sql: str, params: tuple[object, ...]) -> int:
        with self._pool.connection() as connection:
            return connection.execute(sql, params).rowcount

    def add_user(self, name: str, created: float) -> UserRow | None:
        rows = self._rows(
            "INSERT INTO users (name, created) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING"
            " RETURNING user_id, name, created",
            (name, created),
        )
        return UserRow(*rows[0]) if rows else None

    def user(self, name: str) -> UserRow | None:
        rows = self._rows("SELECT user_id, name, created FROM users WHERE name = %s", (name,))
        return UserRow(*rows[0]) if rows else None

    def user_by_id(self, user_id: int) -> UserRow | None:
        rows = self._rows("SELECT user_id, name, created FROM users WHERE user_id = %s", (user_id,))
        return UserRow(*rows[0]) if rows else None

    def add_token(self, token: TokenRow) -> None:
        self._write(
            f"INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
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
        rows = self._rows(f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE secret_hash = %s", (secret_hash,))
        return TokenRow(*rows[0]) if rows else None

    def token_by_id(self, token_id: str) -> TokenRow | None:
        rows = self._rows(f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE token_id = %s", (token_id,))
        return TokenRow(*rows[0]) if rows else None

    def tokens(self, user_id: int | None) -> list[TokenRow]:
        if user_id is None:
            rows = self._rows(f"SELECT {TOKEN_COLUMNS} FROM tokens ORDER BY created, token_id")
        else:
            rows = self._rows(
                f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE user_id = %s ORDER BY created, token_id", (user_id,)
            )
        return [TokenRow(*row) for row in rows]

    def revoke_token(self, token_id: str, revoked: float) -> None:
        self._write("UPDATE tokens SET revoked = %s WHERE token_id = %s AND revoked IS NULL", (revoked, token_id))

    def add_session(self, session: SessionRow) -> None:
        self._write(
            f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES (%s, %s, %s, %s)",
            (session.secret_hash, session.token_id, session.created, session.expires),
        )

    def session_by_hash(self, secret_hash: str) -> SessionRow | None:
        rows = self._rows(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE secret_hash = %s", (secret_hash,))
        return SessionRow(*rows[0]) if rows else None

    def delete_session(self, secret_hash: str) -> None:
        self._write("DELETE FROM sessions WHERE secret_hash = %s", (secret_hash,))

    def delete_sessions_expired_by(self, now: float) -> None:
        self._write("DELETE FROM sessions WHERE expires <= %s", (now,))

    def add_experiment(self, experiment_id: str, name: str, description: str, owner_id: int, created: float) -> bool:
        # As the backend creates experiments, with their `experiment_state` row, and the owner.
        rows = self._rows(
            "WITH created AS (INSERT INTO experiments (experiment_id, name, description, created, owner_id)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (name) DO NOTHING RETURNING experiment_id, created)"
            " INSERT INTO experiment_state (experiment_id, updated) SELECT experiment_id, created FROM created"
            " RETURNING experiment_id",
            (experiment_id, name, description, created, owner_id),
        )
        return bool(rows)

    def experiment_access(self, experiment_id: str) -> ExperimentAccess | None:
        rows = self._rows("SELECT owner_id, public FROM experiments WHERE experiment_id = %s", (experiment_id,))
        return ExperimentAccess(owner_id=rows[0][0], public=bool(rows[0][1])) if rows else None

    def set_owner(self, experiment_id: str, user_id: int) -> None:
        self._write("UPDATE experiments SET owner_id = %s WHERE experiment_id = %s", (user_id, experiment_id))

    def set_public(self, experiment_id: str, public: bool) -> None:
        self._write("UPDATE experiments SET public = %s WHERE experiment_id = %s", (public, experiment_id))

    def rename_experiment(self, experiment_id: str, name: str) -> bool:
        rows = self._rows(
            "UPDATE experiments SET name = %s WHERE experiment_id = %s"
            " AND NOT EXISTS (SELECT 1 FROM experiments WHERE name = %s AND experiment_id != %s)"
            " RETURNING experiment_id",
            (name, experiment_id, name, experiment_id),
        )
        return bool(rows)

    def set_role(self, experiment_id: str, user_id: int, role: int | None) -> None:
        if role is None:
            self._write(
                "DELETE FROM experiment_roles WHERE experiment_id = %s AND user_id = %s", (experiment_id, user_id)
            )
            return
        self._write(
            "INSERT INTO experiment_roles (experiment_id, user_id, role) VALUES (%s, %s, %s)"
            " ON CONFLICT (experiment_id, user_id) DO UPDATE SET role = excluded.role",
            (experiment_id, user_id, role),
        )

    def role(self, experiment_id: str, user_id: int) -> int | None:
        rows = self._rows(
            "SELECT role FROM experiment_roles WHERE experiment_id = %s AND user_id = %s", (experiment_id, user_id)
        )
        return int(rows[0][0]) if rows else None

    def roles(self, experiment_id: str) -> dict[int, int]:
        rows = self._rows("SELECT user_id, role FROM experiment_roles WHERE experiment_id = %s", (experiment_id,))
        return {int(user_id): int(role) for user_id, role in rows}

    def roles_of_user(self, user_id: int) -> dict[str, int]:
        rows = self._rows("SELECT experiment_id, role FROM experiment_roles WHERE user_id = %s", (user_id,))
        return {experiment_id: int(role) for experiment_id, role in rows}

    def owned(self, user_id: int) -> list[str]:
        rows = self._rows(
            "SELECT experiment_id FROM experiments WHERE owner_id = %s ORDER BY experiment_id", (user_id,)
        )
        return [eid for (eid,) in rows]

    def public_experiments(self) -> list[str]:
        return [
            eid for (eid,) in self._rows("SELECT experiment_id FROM experiments WHERE public ORDER BY experiment_id")
        ]
