"""What a backend stores about who may see what: users, tokens and sessions (their secrets hashed), each experiment's
owner, public-read flag and per-user roles. Simple reads and writes only: `trainboard.access` decides what they
allow."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from trainboard.store.audit import AuditBackend


@dataclass(frozen=True, slots=True)
class UserRow:
    id: int
    name: str
    created: float


@dataclass(frozen=True, slots=True)
class TokenRow:
    """A token as stored: its public id, the SHA-256 of the whole token (never the token), and its limits."""

    id: str
    user_id: int
    secret_hash: str
    # A token limited to one experiment, at most `role` on it; None: the user's own roles everywhere.
    experiment_id: str | None
    role: int | None
    created: float
    expires: float | None
    revoked: float | None


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A browser's session as stored: the SHA-256 of its secret (the cookie's value, never stored), and the token it
    was opened with, whose limits it carries."""

    secret_hash: str
    token_id: str
    created: float
    expires: float


@dataclass(frozen=True, slots=True)
class ExperimentAccess:
    owner_id: int | None
    public: bool
    # The role a user was given on it, when `experiment_access` was asked about one.
    role: int | None = None


class AccountsBackend(AuditBackend, Protocol):
    """Users, tokens and roles in a backend's database, and its audit log. Roles are stored as small integers
    (`trainboard.access` names them); times are Unix seconds."""

    def add_user(self, name: str, created: float) -> UserRow | None:
        """The new user, or None when the name is taken."""

    def user(self, name: str) -> UserRow | None: ...

    def user_by_id(self, user_id: int) -> UserRow | None: ...

    def add_token(self, token: TokenRow) -> None: ...

    def token_by_hash(self, secret_hash: str) -> TokenRow | None: ...

    def token_by_id(self, token_id: str) -> TokenRow | None: ...

    def tokens(self, user_id: int | None) -> list[TokenRow]:
        """Of one user, or of everyone; oldest first."""

    def revoke_token(self, token_id: str, revoked: float) -> None: ...

    def add_session(self, session: SessionRow) -> None: ...

    def session_by_hash(self, secret_hash: str) -> SessionRow | None: ...

    def delete_session(self, secret_hash: str) -> None: ...

    def delete_sessions_expired_by(self, now: float) -> None: ...

    def add_experiment(self, experiment_id: str, name: str, description: str, owner_id: int, created: float) -> bool:
        """A new, empty experiment owned by the user; False when another of the user's experiments has that name."""

    def experiment_access(self, experiment_id: str, user_id: int | None = None) -> ExperimentAccess | None:
        """None when there is no such experiment; with a user, the role they were given on it too. One query, which
        does the same work whether or not the experiment exists (or the user has a role on it), so that the time of
        an answer tells nobody which experiments exist."""

    def set_owner(self, experiment_id: str, user_id: int) -> bool:
        """False when another of the user's experiments has the experiment's name."""

    def set_public(self, experiment_id: str, public: bool) -> None: ...

    def rename_experiment(self, experiment_id: str, name: str) -> bool:
        """False when another experiment of its owner (or, without one, another without one) has that name."""

    def set_role(self, experiment_id: str, user_id: int, role: int | None) -> None:
        """Grant `role` (replacing any other), or take the user's role away with None."""

    def role(self, experiment_id: str, user_id: int) -> int | None: ...

    def roles(self, experiment_id: str) -> dict[int, int]:
        """user id -> role, on one experiment."""

    def roles_of_user(self, user_id: int) -> dict[str, int]:
        """experiment id -> role, of one user (owned experiments not included)."""

    def owned(self, user_id: int) -> list[str]: ...

    def claim_roles(self, user_id: int) -> dict[str, tuple[int, int | None]]:
        """experiment id -> (the role claims gave the user there, the role it replaced), of one user."""

    def set_claim_role(self, experiment_id: str, user_id: int, role: int | None, replaced: int | None) -> None:
        """Record that claims gave `role` in place of `replaced`, or forget what they gave with None."""

    def owners(self) -> dict[str, str]:
        """experiment id -> its owner's user name, of every experiment that has an owner."""

    def public_experiments(self) -> list[str]: ...
