"""Users, tokens and roles in SQL (see `trainboard.store.accounts`), written once for SQLite and PostgreSQL.

The statements are templates: `{p}` is the driver's parameter marker, and `{user_id}`, `{token_id}` and
`{experiment_id}` the id columns of `users`, `tokens` and `experiments`, which the two schemas name differently
(`{token_columns}`: the columns of a `TokenRow`). Each backend's subclass runs SQL on its connections (`_read`,
`_write`) and adds an experiment as its schema wants.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from trainboard.store.accounts import ExperimentAccess, SessionRow, TokenRow, UserRow
from trainboard.store.sql_audit import SqlAudit

TOKEN_COLUMNS = "{token_id}, user_id, secret_hash, experiment_id, role, created, expires, revoked"


class SqlAccounts(SqlAudit, ABC):
    """Implements `AccountsBackend`, the audit log (`SqlAudit`) included."""

    def __init__(self, *, placeholder: str, user_id: str, token_id: str, experiment_id: str) -> None:
        self._names = {"p": placeholder, "user_id": user_id, "token_id": token_id, "experiment_id": experiment_id}
        self._names["token_columns"] = TOKEN_COLUMNS.format_map(self._names)

    @abstractmethod
    def _read(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]: ...

    @abstractmethod
    def _write(self, sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        """The rows the statement returns (RETURNING), committed."""

    @abstractmethod
    def add_experiment(self, experiment_id: str, name: str, description: str, owner_id: int, created: float) -> bool:
        """A new, empty experiment owned by the user; False when another of the user's experiments has that name."""

    def _rows(self, template: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """A template read."""
        return self._read(self._sql(template), params)

    def _change(self, template: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        """A template written; the rows it returns."""
        return self._write(self._sql(template), params)

    def _sql(self, template: str) -> str:
        return template.format_map(self._names)

    def add_user(self, name: str, created: float) -> UserRow | None:
        rows = self._change(
            "INSERT INTO users (name, created) VALUES ({p}, {p}) ON CONFLICT (name) DO NOTHING"
            " RETURNING {user_id}, name, created",
            (name, created),
        )
        return UserRow(*rows[0]) if rows else None

    def user(self, name: str) -> UserRow | None:
        rows = self._rows("SELECT {user_id}, name, created FROM users WHERE name = {p}", (name,))
        return UserRow(*rows[0]) if rows else None

    def user_by_id(self, user_id: int) -> UserRow | None:
        rows = self._rows("SELECT {user_id}, name, created FROM users WHERE {user_id} = {p}", (user_id,))
        return UserRow(*rows[0]) if rows else None

    def add_token(self, token: TokenRow) -> None:
        self._change(
            "INSERT INTO tokens ({token_columns}) VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, {p})",
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
        rows = self._rows("SELECT {token_columns} FROM tokens WHERE secret_hash = {p}", (secret_hash,))
        return TokenRow(*rows[0]) if rows else None

    def token_by_id(self, token_id: str) -> TokenRow | None:
        rows = self._rows("SELECT {token_columns} FROM tokens WHERE {token_id} = {p}", (token_id,))
        return TokenRow(*rows[0]) if rows else None

    def tokens(self, user_id: int | None) -> list[TokenRow]:
        if user_id is None:
            rows = self._rows("SELECT {token_columns} FROM tokens ORDER BY created, {token_id}")
        else:
            rows = self._rows(
                "SELECT {token_columns} FROM tokens WHERE user_id = {p} ORDER BY created, {token_id}", (user_id,)
            )
        return [TokenRow(*row) for row in rows]

    def revoke_token(self, token_id: str, revoked: float) -> None:
        self._change("UPDATE tokens SET revoked = {p} WHERE {token_id} = {p} AND revoked IS NULL", (revoked, token_id))

    def add_session(self, session: SessionRow) -> None:
        self._change(
            "INSERT INTO sessions (secret_hash, token_id, created, expires) VALUES ({p}, {p}, {p}, {p})",
            (session.secret_hash, session.token_id, session.created, session.expires),
        )

    def session_by_hash(self, secret_hash: str) -> SessionRow | None:
        rows = self._rows(
            "SELECT secret_hash, token_id, created, expires FROM sessions WHERE secret_hash = {p}", (secret_hash,)
        )
        return SessionRow(*rows[0]) if rows else None

    def delete_session(self, secret_hash: str) -> None:
        self._change("DELETE FROM sessions WHERE secret_hash = {p}", (secret_hash,))

    def delete_sessions_expired_by(self, now: float) -> None:
        self._change("DELETE FROM sessions WHERE expires <= {p}", (now,))

    def experiment_access(self, experiment_id: str, user_id: int | None = None) -> ExperimentAccess | None:
        # One row whether or not the experiment exists, and the role looked up either way.
        ((found, owner_id, public, role),) = self._rows(
            "SELECT e.{experiment_id}, e.owner_id, e.public, (SELECT role FROM experiment_roles"
            " WHERE experiment_id = {p} AND user_id = {p}) FROM (SELECT 1 AS one) one"
            " LEFT JOIN experiments e ON e.{experiment_id} = {p}",
            (experiment_id, user_id, experiment_id),
        )
        # SQLite keeps the flag as 0 or 1.
        return None if found is None else ExperimentAccess(owner_id, bool(public), None if role is None else int(role))

    def set_owner(self, experiment_id: str, user_id: int) -> bool:
        given = self._change(
            "UPDATE experiments SET owner_id = {p} WHERE {experiment_id} = {p} AND NOT EXISTS (SELECT 1"
            " FROM experiments other WHERE other.owner_id = {p} AND other.name = experiments.name"
            " AND other.{experiment_id} != {p})"
            " RETURNING {experiment_id}",
            (user_id, experiment_id, user_id, experiment_id),
        )
        return bool(given)

    def set_public(self, experiment_id: str, public: bool) -> None:
        self._change("UPDATE experiments SET public = {p} WHERE {experiment_id} = {p}", (public, experiment_id))

    def rename_experiment(self, experiment_id: str, name: str) -> bool:
        # Names are unique per owner: those without an owner count as one more (-1, as the unique index says).
        renamed = self._change(
            "UPDATE experiments SET name = {p} WHERE {experiment_id} = {p} AND NOT EXISTS (SELECT 1 FROM experiments"
            " other WHERE other.name = {p} AND coalesce(other.owner_id, -1) = coalesce(experiments.owner_id, -1)"
            " AND other.{experiment_id} != {p}) RETURNING {experiment_id}",
            (name, experiment_id, name, experiment_id),
        )
        return bool(renamed)

    def set_role(self, experiment_id: str, user_id: int, role: int | None) -> None:
        if role is None:
            self._change(
                "DELETE FROM experiment_roles WHERE experiment_id = {p} AND user_id = {p}", (experiment_id, user_id)
            )
            return
        self._change(
            "INSERT INTO experiment_roles (experiment_id, user_id, role) VALUES ({p}, {p}, {p})"
            " ON CONFLICT (experiment_id, user_id) DO UPDATE SET role = excluded.role",
            (experiment_id, user_id, role),
        )

    def role(self, experiment_id: str, user_id: int) -> int | None:
        rows = self._rows(
            "SELECT role FROM experiment_roles WHERE experiment_id = {p} AND user_id = {p}", (experiment_id, user_id)
        )
        return int(rows[0][0]) if rows else None

    def roles(self, experiment_id: str) -> dict[int, int]:
        rows = self._rows("SELECT user_id, role FROM experiment_roles WHERE experiment_id = {p}", (experiment_id,))
        return {int(user_id): int(role) for user_id, role in rows}

    def roles_of_user(self, user_id: int) -> dict[str, int]:
        rows = self._rows("SELECT experiment_id, role FROM experiment_roles WHERE user_id = {p}", (user_id,))
        return {experiment_id: int(role) for experiment_id, role in rows}

    def owned(self, user_id: int) -> list[str]:
        rows = self._rows(
            "SELECT {experiment_id} FROM experiments WHERE owner_id = {p} ORDER BY {experiment_id}", (user_id,)
        )
        return [eid for (eid,) in rows]

    def claim_roles(self, user_id: int) -> dict[str, tuple[int, int | None]]:
        rows = self._rows("SELECT experiment_id, role, replaced FROM claim_roles WHERE user_id = {p}", (user_id,))
        return {eid: (int(role), None if replaced is None else int(replaced)) for eid, role, replaced in rows}

    def set_claim_role(self, experiment_id: str, user_id: int, role: int | None, replaced: int | None) -> None:
        if role is None:
            self._change(
                "DELETE FROM claim_roles WHERE experiment_id = {p} AND user_id = {p}", (experiment_id, user_id)
            )
            return
        self._change(
            "INSERT INTO claim_roles (experiment_id, user_id, role, replaced) VALUES ({p}, {p}, {p}, {p})"
            " ON CONFLICT (experiment_id, user_id) DO UPDATE SET role = excluded.role, replaced = excluded.replaced",
            (experiment_id, user_id, role, replaced),
        )

    def owners(self) -> dict[str, str]:
        rows = self._rows(
            "SELECT e.{experiment_id}, u.name FROM experiments e JOIN users u ON u.{user_id} = e.owner_id"
        )
        return dict(rows)

    def public_experiments(self) -> list[str]:
        rows = self._rows("SELECT {experiment_id} FROM experiments WHERE public ORDER BY {experiment_id}")
        return [eid for (eid,) in rows]
