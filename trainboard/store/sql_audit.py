"""The audit log in SQL (see `trainboard.store.audit`), written once for SQLite and PostgreSQL: one table,
`audit_log`, of the same columns in both."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from trainboard.store.audit import AuditQuery, AuditRow

COLUMNS = "entry_id, at, event, user_name, token_id, experiment_id, target_user, client, user_agent, detail"


class SqlAudit(ABC):
    """Implements `AuditBackend` on a backend's `_rows` (a read) and `_change` (a write, committed), whose statements
    are templates with `{p}` for the driver's parameter marker."""

    @abstractmethod
    def _rows(self, template: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]: ...

    @abstractmethod
    def _change(self, template: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]: ...

    def add_audit(self, row: AuditRow) -> None:
        self._change(
            "INSERT INTO audit_log (at, event, user_name, token_id, experiment_id, target_user, client, user_agent,"
            " detail) VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, {p}, {p})",
            (
                row.at,
                row.event,
                row.user,
                row.token_id,
                row.experiment_id,
                row.target_user,
                row.client,
                row.user_agent,
                row.detail,
            ),
        )

    def audit(self, query: AuditQuery) -> list[AuditRow]:
        conditions: list[str] = []
        params: list[object] = []
        if query.since is not None:
            conditions.append("at >= {p}")
            params.append(query.since)
        if query.user is not None:
            conditions.append("(user_name = {p} OR target_user = {p})")
            params += [query.user, query.user]
        if query.experiment_id is not None:
            conditions.append("experiment_id = {p}")
            params.append(query.experiment_id)
        if query.before is not None:
            conditions.append("entry_id < {p}")
            params.append(query.before)
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        rows = self._rows(
            f"SELECT {COLUMNS} FROM audit_log{where} ORDER BY entry_id DESC LIMIT {{p}}", (*params, query.limit)
        )
        return [AuditRow(*row) for row in rows]

    def delete_audit_before(self, at: float) -> int:
        return len(self._change("DELETE FROM audit_log WHERE at < {p} RETURNING entry_id", (at,)))
