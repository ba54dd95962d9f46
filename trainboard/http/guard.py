"""Every route of `trainboard serve` behind its declared policy (`trainboard.http.policies`): a request without a
valid token gets 401, one whose token lacks the role on the experiment its URL names gets the 404 of an experiment
that does not exist, and a route without a policy is refused to everyone.

Routes are wrapped where they are declared, so that the policy is known by the route a request matched, not guessed
from its URL; a mount whose routes are built later (TS-VIS's /api) or that serves a folder is guarded by the path
inside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from trainboard.access.accounts import Accounts, Principal
from trainboard.errors import NotFoundError, UnauthenticatedError
from trainboard.http.context import DEFAULT_EXPERIMENT_IDS, Experiments
from trainboard.http.policies import Policy, policy_of

# Where the guard leaves who a request comes from, for the handlers that answer by it.
PRINCIPAL = "trainboard.principal"
AUTHENTICATE = 'Bearer realm="trainboard"'


def _declared(path: str) -> Callable[[Scope], str]:
    return lambda scope: path


def _within(mount_path: str) -> Callable[[Scope], str]:
    """The mount's path and the path inside it (Starlette's mounts extend root_path and keep path whole)."""

    def path_of(scope: Scope) -> str:
        path: str = scope["path"]
        root_path: str = scope.get("root_path", "")
        return mount_path + (path[len(root_path) :] if path.startswith(root_path) else path)

    return path_of


def principal_of(connection: HTTPConnection) -> Principal | None:
    found: Principal | None = connection.scope.get(PRINCIPAL)
    return found


def guard(routes: Iterable[BaseRoute], prefix: str = "") -> None:
    """Wrap every route (each once, however many mounts hold it) in a `Guard` of its declared policy."""
    for route in routes:
        if isinstance(route, Route) and not isinstance(route.app, Guard):
            route.app = Guard(route.app, _declared(route.path))
        elif isinstance(route, Mount) and isinstance(route.app, Router):
            guard(route.routes)
        elif isinstance(route, Mount) and not isinstance(route.app, Guard):
            route.app = Guard(route.app, _within(route.path))


@dataclass(frozen=True, slots=True)
class Decision:
    principal: Principal | None
    allowed: bool


class Guard:
    """A route's app behind the policy of its path (`path_of` the request's scope)."""

    def __init__(self, app: ASGIApp, path_of: Callable[[Scope], str]) -> None:
        self.app = app
        self._path_of = path_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        accounts: Accounts = scope["app"].state.accounts
        experiments: Experiments = scope["app"].state.experiments
        path = self._path_of(scope)
        experiment_id = scope.get("path_params", {}).get("experiment_id", "")
        if experiment_id in DEFAULT_EXPERIMENT_IDS:
            experiment_id = experiments.default
        policy = policy_of(path, scope["app"].state.settings.ui)
        decision = await run_in_threadpool(_decide, accounts, connection, policy, experiment_id)
        if not decision.allowed:
            if decision.principal is None:
                raise UnauthenticatedError("this server needs a token: send Authorization: Bearer <token>")
            raise NotFoundError(f"no experiment with id {experiment_id!r}" if experiment_id else "no such route")
        scope[PRINCIPAL] = decision.principal
        await self.app(scope, receive, send)


def _decide(
    accounts: Accounts, connection: HTTPConnection, policy: Policy | None, experiment_id: str | None
) -> Decision:
    principal = _principal(accounts, connection)
    if policy is None:
        return Decision(principal, allowed=False)
    if policy is Policy.ANYONE:
        return Decision(principal, allowed=True)
    needed = policy.role
    if needed is None or experiment_id is None:
        # SIGNED_IN, or an experiment's route at / on a server without a default experiment (which answers 404).
        return Decision(principal, allowed=principal is not None)
    role = accounts.role(principal, experiment_id)
    return Decision(principal, allowed=role is not None and role >= needed)


def _principal(accounts: Accounts, connection: HTTPConnection) -> Principal | None:
    """The user of the request's bearer token; None without one; 401 for a token that is not valid."""
    header = connection.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    found = accounts.authenticate(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
    if found is None:
        raise UnauthenticatedError("the token is not valid: it is unknown, revoked or expired")
    return found
