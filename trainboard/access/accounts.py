"""`Accounts`: users, tokens and grants over any backend, and the one rule of what a request may do on an
experiment (`role`)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from trainboard.access.roles import Role
from trainboard.access.tokens import hashed, new_token, token_id_of
from trainboard.store.accounts import AccountsBackend, TokenRow, UserRow

SECONDS_PER_DAY = 86_400
USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,99}")


class AccountError(ValueError):
    """A request about accounts that cannot be carried out, worded for the user."""


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request comes from: the user of a valid token, and the token (its limits apply)."""

    user: UserRow
    token: TokenRow


class Accounts:
    def __init__(self, backend: AccountsBackend, clock: Callable[[], float] = time.time) -> None:
        self.backend = backend
        self._clock = clock

    # Users and tokens.

    def add_user(self, name: str) -> UserRow:
        if not USER_NAME.fullmatch(name):
            raise AccountError(f"invalid user name {name!r}: letters, digits and . _ @ - (at most 100)")
        user = self.backend.add_user(name, self._clock())
        if user is None:
            raise AccountError(f"user {name!r} exists already")
        return user

    def user(self, name: str) -> UserRow:
        user = self.backend.user(name)
        if user is None:
            raise AccountError(f"no user named {name!r} (add one with: trainboard users add {name})")
        return user

    def create_token(
        self,
        user_name: str,
        *,
        experiment_id: str | None = None,
        role: Role | None = None,
        expires_days: float | None = None,
    ) -> tuple[TokenRow, str]:
        """A new token of the user and the token itself, which is shown once and never stored. Limited to one
        experiment, the token gives at most `role` there (read when not given), and the user is given that role
        unless they have it or more already."""
        user = self.user(user_name)
        if role is not None and experiment_id is None:
            raise AccountError("a role is given on an experiment: name it too")
        if experiment_id is not None:
            role = role or Role.READ
            if self.backend.experiment_access(experiment_id) is None:
                raise AccountError(f"no experiment with id {experiment_id!r}")
            current = self.user_role(user.id, experiment_id)
            if current is None or current < role:
                self.backend.set_role(experiment_id, user.id, role)
        now = self._clock()
        token_id, token = new_token()
        row = TokenRow(
            id=token_id,
            user_id=user.id,
            secret_hash=hashed(token),
            experiment_id=experiment_id,
            role=None if role is None else int(role),
            created=now,
            expires=None if expires_days is None else now + expires_days * SECONDS_PER_DAY,
            revoked=None,
        )
        self.backend.add_token(row)
        return row, token

    def tokens(self, user_name: str | None = None) -> list[TokenRow]:
        return self.backend.tokens(None if user_name is None else self.user(user_name).id)

    def revoke(self, id_or_prefix: str) -> TokenRow:
        """Revoke the token with this id, the one id starting with it, or this whole token."""
        wanted = token_id_of(id_or_prefix.strip())
        matching = [token for token in self.backend.tokens(None) if wanted and token.id.startswith(wanted)]
        exact = [token for token in matching if token.id == wanted]
        if len(exact) == 1:
            matching = exact
        if not matching:
            raise AccountError(f"no token with id {wanted!r} (trainboard tokens list shows them)")
        if len(matching) > 1:
            raise AccountError(f"{len(matching)} tokens have ids starting with {wanted!r}: give more of the id")
        self.backend.revoke_token(matching[0].id, self._clock())
        return matching[0]

    def authenticate(self, token: str) -> Principal | None:
        """The user of a token that exists, is not revoked and has not expired; else None."""
        row = self.backend.token_by_hash(hashed(token))
        if row is None or row.revoked is not None or (row.expires is not None and row.expires <= self._clock()):
            return None
        user = self.backend.user_by_id(row.user_id)
        return None if user is None else Principal(user, row)

    # Roles.

    def user_role(self, user_id: int, experiment_id: str) -> Role | None:
        """The user's own role: admin of what they own, else what they were given."""
        access = self.backend.experiment_access(experiment_id)
        if access is None:
            return None
        if access.owner_id == user_id:
            return Role.ADMIN
        role = self.backend.role(experiment_id, user_id)
        return None if role is None else Role(role)

    def role(self, principal: Principal | None, experiment_id: str) -> Role | None:
        """What a request may do on an experiment: the user's role, at most the token's on the one experiment it is
        limited to; read on a public experiment for anyone; None for an experiment that does not exist."""
        access = self.backend.experiment_access(experiment_id)
        if access is None:
            return None
        public = Role.READ if access.public else None
        if principal is None:
            return public
        token = principal.token
        if token.experiment_id is not None and token.experiment_id != experiment_id:
            return public
        role = self.user_role(principal.user.id, experiment_id)
        if role is not None and token.role is not None:
            role = min(role, Role(token.role))
        allowed = [found for found in (role, public) if found is not None]
        return max(allowed) if allowed else None

    def readable(self, principal: Principal | None) -> set[str]:
        """The experiments a request may read."""
        public = set(self.backend.public_experiments())
        if principal is None:
            return public
        token = principal.token
        if token.experiment_id is not None:
            return public | ({token.experiment_id} if self.role(principal, token.experiment_id) else set())
        user_id = principal.user.id
        return public | set(self.backend.owned(user_id)) | set(self.backend.roles_of_user(user_id))

    # What an experiment's admin may change.

    def share(self, experiment_id: str, user_name: str, role: Role | None) -> None:
        user = self.user(user_name)
        access = self.backend.experiment_access(experiment_id)
        if access is not None and access.owner_id == user.id:
            raise AccountError(f"{user_name!r} owns this experiment: its role cannot change")
        self.backend.set_role(experiment_id, user.id, None if role is None else int(role))

    def set_public(self, experiment_id: str, public: bool) -> None:
        self.backend.set_public(experiment_id, public)

    def rename(self, experiment_id: str, name: str) -> None:
        if not name.strip():
            raise AccountError("an experiment's name cannot be empty")
        if not self.backend.rename_experiment(experiment_id, name):
            raise AccountError(f"another experiment is named {name!r}")

    def set_owner(self, experiment_id: str, user_name: str) -> None:
        self.backend.set_owner(experiment_id, self.user(user_name).id)
