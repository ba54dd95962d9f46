"""What a backend stores of the audit log: one row per event (who, from where, on what), kept until the retention
deletes it. Simple reads and writes only: `trainboard.access.audit` names the events and decides what to record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One event as stored; `id` grows with each row (None before it is stored). Never a token's secret: `token_id` is
    its public id."""

    id: int | None
    at: float
    event: str
    # Who did it (None: the command line, or a request without a valid token).
    user: str | None
    # The token they acted with, or the one the event is about (created, revoked, or claimed by a failure).
    token_id: str | None
    experiment_id: str | None
    # The user the event is about, when another than `user` (the one given a role, the owner of a new token).
    target_user: str | None
    client: str | None
    user_agent: str | None
    # More about the event, as JSON text: {"role": "read"}, {"run": ..., "path": ...}.
    detail: str


@dataclass(frozen=True, slots=True)
class AuditQuery:
    """Which events to read, newest first: since a time, of a user (who did it or whom it is about), on an
    experiment, with an id below `before` (the page after one that ended there), at most `limit`."""

    since: float | None = None
    user: str | None = None
    experiment_id: str | None = None
    before: int | None = None
    limit: int = 100


class AuditBackend(Protocol):
    def add_audit(self, row: AuditRow) -> None: ...

    def audit(self, query: AuditQuery) -> list[AuditRow]: ...

    def delete_audit_before(self, at: float) -> int:
        """Delete the events older than `at`; how many."""
