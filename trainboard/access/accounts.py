"""`Accounts`: users, tokens, sessions and grants over any backend, and the one rule of what a request may do on an
experiment (`role`)."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from trainboard.access.roles import Role
from trainboard.access.tokens import hashed, new_token, token_id_of
from trainboard.names import CONTROL, loggable
from trainboard.store.accounts import AccountsBackend, ExperimentAccess, SessionRow, TokenRow, UserRow

SECONDS_PER_DAY = 86_400
# How long a browser's session lasts at most (less when its token expires sooner).
SESSION_SECONDS = 30 * SECONDS_PER_DAY
SESSION_SECRET_BYTES = 32
USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,99}")
# The longest name an experiment may be given by HTTP (created or renamed).
MAX_EXPERIMENT_NAME = 200


class AccountError(ValueError):
    """A request about accounts that cannot be carried out, worded for the user; `http_code` when it comes by HTTP."""

    http_code = 400


class NameTaken(AccountError):
    http_code = 409


class NoSuchUser(AccountError):
    """No user has the name: said on the command line, never by HTTP (where it would tell who has an account)."""


class NotAllowed(AccountError):
    http_code = 403


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request comes from: the user of a valid token, and the token (its limits apply); `session` when the
    request came with a session's cookie rather than the token itself."""

    user: UserRow
    token: TokenRow
    session: SessionRow | None = None


@dataclass(frozen=True, slots=True)
class NewSession:
    """A session just started: its user, its row, and its secret (the cookie's value, shown once, never stored)."""

    user: UserRow
    session: SessionRow
    secret: str


@dataclass(frozen=True, slots=True)
class Sharing:
    """Who has access to an experiment: its owner's name, whether anyone may read it, each other user's role."""

    owner: str | None
    public: bool
    shares: dict[str, Role]


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
            raise NoSuchUser(f"no user named {name!r} (add one with: trainboard users add {name})")
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
        return self._principal(self.backend.token_by_hash(hashed(token)))

    def _principal(self, token: TokenRow | None, session: SessionRow | None = None) -> Principal | None:
        if token is None or token.revoked is not None or (token.expires is not None and token.expires <= self._clock()):
            return None
        user = self.backend.user_by_id(token.user_id)
        return None if user is None else Principal(user, token, session)

    # Sessions.

    def start_session(self, token: str) -> NewSession | None:
        """A new session of a valid token; None for a token that is not valid. The session ends after
        SESSION_SECONDS, or when its token expires or is revoked."""
        principal = self.authenticate(token)
        if principal is None:
            return None
        now = self._clock()
        self.backend.delete_sessions_expired_by(now)
        secret = secrets.token_urlsafe(SESSION_SECRET_BYTES)
        ends = now + SESSION_SECONDS
        expires = ends if principal.token.expires is None else min(ends, principal.token.expires)
        session = SessionRow(hashed(secret), principal.token.id, created=now, expires=expires)
        self.backend.add_session(session)
        return NewSession(principal.user, session, secret)

    def session(self, secret: str) -> Principal | None:
        """The user of a session that has not expired and whose token is still valid; else None."""
        session = self.backend.session_by_hash(hashed(secret))
        if session is None or session.expires <= self._clock():
            return None
        return self._principal(self.backend.token_by_id(session.token_id), session)

    def end_session(self, secret: str) -> None:
        self.backend.delete_session(hashed(secret))

    # Single sign-on (`trainboard.http.oidc`).

    def now(self) -> float:
        """The time by the clock that tokens and sessions expire by."""
        return self._clock()

    def signed_in_user(self, name: str) -> UserRow:
        """The user of this name, added on their first sign-in."""
        if not USER_NAME.fullmatch(name):
            raise AccountError(f"{name!r} cannot be a user name here: letters, digits and . _ @ - (at most 100)")
        # Two first sign-ins at once: the second finds the user the first added.
        user = self.backend.user(name) or self.backend.add_user(name, self._clock()) or self.backend.user(name)
        assert user is not None
        return user

    def apply_claim_roles(self, user_id: int, claimed: Mapping[str, Role]) -> None:
        """Give the user, at a sign-in, the roles their claims give now (`claimed`: experiment id -> role), each
        where it raises their role; and take back what claims gave before and give no more, to the role it replaced,
        where nobody changed that role since."""
        earlier = self.backend.claim_roles(user_id)
        for experiment_id in sorted(earlier.keys() | claimed.keys()):
            current = self.user_role(user_id, experiment_id)
            base = current
            if experiment_id in earlier:
                given, replaced = earlier[experiment_id]
                if current is not None and int(current) == given:
                    base = None if replaced is None else Role(replaced)
            wanted = claimed.get(experiment_id)
            role: Role | None = base
            record: tuple[int, int | None] | None = None  # what claims gave and what it replaced
            if wanted is not None and (base is None or wanted > base):
                role, record = wanted, (int(wanted), None if base is None else int(base))
            if role != current:
                self.backend.set_role(experiment_id, user_id, None if role is None else int(role))
            if record != earlier.get(experiment_id):
                self.backend.set_claim_role(experiment_id, user_id, *(record or (None, None)))

    def start_signed_in_session(self, user: UserRow) -> NewSession:
        """A session of a user the identity provider signed in. It holds a token of its own that ends with it, listed
        with the user's tokens: revoking that token ends the session."""
        _, token = self.create_token(user.name, expires_days=SESSION_SECONDS / SECONDS_PER_DAY)
        started = self.start_session(token)
        assert started is not None
        return started

    # Roles.

    def user_role(self, user_id: int, experiment_id: str) -> Role | None:
        """The user's own role: admin of what they own, else what they were given."""
        return _own_role(self.backend.experiment_access(experiment_id, user_id), user_id)

    def role(self, principal: Principal | None, experiment_id: str) -> Role | None:
        """What a request may do on an experiment: the user's role, at most the token's on the one experiment it is
        limited to; read on a public experiment for anyone; None for an experiment that does not exist. One query,
        the same whether the experiment exists or not (`experiment_access`): the guard answers a forbidden and a
        missing experiment alike, in time too."""
        access = self.backend.experiment_access(experiment_id, None if principal is None else principal.user.id)
        if access is None:
            return None
        public = Role.READ if access.public else None
        if principal is None:
            return public
        token = principal.token
        if token.experiment_id is not None and token.experiment_id != experiment_id:
            return public
        role = _own_role(access, principal.user.id)
        if role is not None and token.role is not None:
            role = min(role, Role(token.role))
        allowed = [found for found in (role, public) if found is not None]
        return max(allowed) if allowed else None

    def roles(self, principal: Principal | None) -> dict[str, Role]:
        """What a request may do on each experiment it may read: `role` of every one, in a few queries."""
        found = dict.fromkeys(self.backend.public_experiments(), Role.READ)
        if principal is None:
            return found
        user_id, token = principal.user.id, principal.token
        own = {eid: Role(role) for eid, role in self.backend.roles_of_user(user_id).items()}
        own |= dict.fromkeys(self.backend.owned(user_id), Role.ADMIN)
        for experiment_id, role in own.items():
            if token.experiment_id is not None and token.experiment_id != experiment_id:
                continue
            if token.role is not None:
                role = min(role, Role(token.role))
            found[experiment_id] = max(role, found.get(experiment_id, role))
        return found

    def public(self) -> set[str]:
        return set(self.backend.public_experiments())

    def owned(self, principal: Principal | None) -> set[str]:
        """The experiments the request's user owns (a token limited to one experiment: that one, if the user owns
        it)."""
        if principal is None:
            return set()
        owned = set(self.backend.owned(principal.user.id))
        limit = principal.token.experiment_id
        return owned if limit is None else owned & {limit}

    def owners(self) -> dict[str, str]:
        """experiment id -> its owner's name, of every experiment that has one."""
        return self.backend.owners()

    # Experiments.

    def create_experiment(self, principal: Principal, name: str, description: str = "") -> str:
        """The id of a new experiment owned by the request's user, unless the user has one of that name (names are
        unique per owner: other users' names are neither refused nor told). Not by a token limited to one experiment."""
        if principal.token.experiment_id is not None:
            raise NotAllowed("this token is limited to one experiment: it cannot create experiments")
        name = experiment_name(name)
        experiment_id = secrets.token_urlsafe(9)
        if not self.backend.add_experiment(experiment_id, name, description, principal.user.id, self._clock()):
            raise NameTaken(f"you have an experiment named {name!r} already")
        return experiment_id

    def sharing(self, experiment_id: str) -> Sharing | None:
        """None when there is no such experiment."""
        access = self.backend.experiment_access(experiment_id)
        if access is None:
            return None
        owner = None if access.owner_id is None else self.backend.user_by_id(access.owner_id)
        shares: dict[str, Role] = {}
        for user_id, role in self.backend.roles(experiment_id).items():
            user = self.backend.user_by_id(user_id)
            if user is not None:
                shares[user.name] = Role(role)
        return Sharing(
            owner=None if owner is None else owner.name, public=access.public, shares=dict(sorted(shares.items()))
        )

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
        """Unless its owner has another experiment of that name (or, for one without an owner, another without one
        has it)."""
        if not self.backend.rename_experiment(experiment_id, experiment_name(name)):
            raise NameTaken(f"another experiment of the same owner is named {name!r}")

    def set_owner(self, experiment_id: str, user_name: str) -> None:
        """Unless the user has another experiment of its name."""
        if not self.backend.set_owner(experiment_id, self.user(user_name).id):
            raise NameTaken(f"{user_name!r} has another experiment of this one's name: rename one first")


def _own_role(access: ExperimentAccess | None, user_id: int) -> Role | None:
    """Admin of what the user owns, else the role they were given (`access` read with the user's id)."""
    if access is None:
        return None
    if access.owner_id == user_id:
        return Role.ADMIN
    return None if access.role is None else Role(access.role)


def experiment_name(name: str) -> str:
    if not name.strip():
        raise AccountError("an experiment's name cannot be empty")
    if len(name) > MAX_EXPERIMENT_NAME:
        raise AccountError(f"an experiment's name has at most {MAX_EXPERIMENT_NAME} characters")
    if CONTROL.search(name):
        raise AccountError(f"an experiment's name cannot hold a control character: '{loggable(name)}'")
    return name
