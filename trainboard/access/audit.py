"""The audit log: who signed in and out, failed to, created and revoked tokens, changed roles, shared, published,
renamed, deleted, uploaded and pinned; from which client address and user agent. Rows in the store, on every backend,
kept `--audit_days` (docs/access.md lists the events).

`AuditLog.record(event, actor, ...)` writes one: the HTTP routes record through `trainboard.http.audit.record`, which
knows the request's actor; the commands with `Actor.command_line`.
"""

from __future__ import annotations

import getpass
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from trainboard.store.audit import AuditBackend, AuditQuery, AuditRow

SECONDS_PER_DAY = 86_400
# A user agent is the client's to choose: kept to this many characters.
MAX_USER_AGENT = 200


class Event(StrEnum):
    # A session started: by a token at /auth/session (detail `method`: "token"), or by single sign-on.
    SIGN_IN = "sign_in"
    SIGN_OUT = "sign_out"
    # A request with a token (or to /auth/session) that is unknown, revoked or expired; `token_id` is the public id
    # it claims, if it has the form of one.
    AUTH_FAILURE = "auth_failure"
    # Authentication failures past the limit (trainboard.http.throttle): refused with 429; one row per key a minute
    # at most (detail `by`: "address" or "token").
    AUTH_THROTTLED = "auth_throttled"
    USER_ADD = "user_add"
    TOKEN_CREATE = "token_create"
    TOKEN_REVOKE = "token_revoke"
    # A user's role on an experiment given, changed or taken away (detail `role`: the role, or null).
    ROLE_CHANGE = "role_change"
    # Made public or private (detail `public`).
    PUBLISH = "publish"
    EXPERIMENT_CREATE = "experiment_create"
    RENAME = "rename"
    DELETE = "delete"
    # An uploaded file's first bytes (detail `run`, `path`).
    UPLOAD_START = "upload_start"
    PIN_CREATE = "pin_create"
    PIN_DELETE = "pin_delete"
    # Runs' metadata changed (detail `runs`: how many, `run`: the one when one, `changed`: the fields).
    RUN_METADATA = "run_metadata"
    # A saved view saved, renamed or deleted (detail `view`: its id, `name`).
    VIEW_SAVE = "view_save"
    VIEW_RENAME = "view_rename"
    VIEW_DELETE = "view_delete"
    # A derived metric defined (or replaced), or removed (detail `name`; `expression` and `align` when defined).
    DEFINE = "define"
    UNDEFINE = "undefine"


@dataclass(frozen=True, slots=True)
class Actor:
    """Who an event comes from: a user and the token they acted with (None for no valid one), and the client's
    address and user agent."""

    user: str | None
    token_id: str | None
    client: str | None
    user_agent: str | None

    @classmethod
    def command_line(cls, command: str) -> Actor:
        """A trainboard command run on a machine with access to the store: named with the system user running it."""
        try:
            system_user = getpass.getuser()
        except (OSError, KeyError):  # no name for the process's user id
            system_user = "?"
        return cls(user=None, token_id=None, client="command line", user_agent=f"trainboard {command} ({system_user})")


class AuditLog:
    def __init__(self, backend: AuditBackend, clock: Callable[[], float] = time.time) -> None:
        self._backend = backend
        self._clock = clock

    def record(
        self,
        event: Event,
        actor: Actor,
        *,
        experiment_id: str | None = None,
        target_user: str | None = None,
        **detail: object,
    ) -> None:
        """One event, now. `detail` holds JSON values: never a secret."""
        agent = None if actor.user_agent is None else actor.user_agent[:MAX_USER_AGENT]
        self._backend.add_audit(
            AuditRow(
                id=None,
                at=self._clock(),
                event=str(event),
                user=actor.user,
                token_id=actor.token_id,
                experiment_id=experiment_id,
                target_user=target_user,
                client=actor.client,
                user_agent=agent,
                detail=json.dumps(detail, sort_keys=True, ensure_ascii=False),
            )
        )

    def events(self, query: AuditQuery) -> list[AuditRow]:
        """Newest first."""
        return self._backend.audit(query)

    def delete_older_than(self, days: float) -> int:
        """Delete the events older than `days` (0: keep every event); how many."""
        if days <= 0:
            return 0
        return self._backend.delete_audit_before(self._clock() - days * SECONDS_PER_DAY)


def detail_of(row: AuditRow) -> dict[str, object]:
    found = json.loads(row.detail)
    return found if isinstance(found, dict) else {}
