"""Every route of `trainboard serve` behind the policy it was declared with (`trainboard.http.policies`): a request
without a valid token gets 401, one whose token lacks the role on the experiment its URL names gets the 404 of an
experiment that does not exist, and a route declared without a policy is refused to everyone.

A request comes with a token (`Authorization: Bearer`) or with a session's cookie (`trainboard.http.sessions`). A
browser sends the cookie with requests that other sites' pages make too: a state-changing request signed in by the
cookie must come from this server's own pages (its Origin, or else Referer, names the Host it was sent to), else 403.
Requests to WRITE routes are limited per token (`trainboard.http.rate_limit`): 429 past the limit. A token that is
not valid is recorded in the audit log, and its failures are limited per address and per token id
(`trainboard.http.throttle`).

Each route is wrapped in the policy it carries, so that the policy is known by the route a request matched, not
guessed from its URL; a mount that serves a folder is guarded as one route.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.responses import RedirectResponse
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from trainboard.access.accounts import Accounts, Principal
from trainboard.errors import (
    NoSuchExperiment,
    NotFoundError,
    PermissionDeniedError,
    TooManyRequestsError,
    UnauthenticatedError,
)
from trainboard.http.context import DEFAULT_EXPERIMENT_IDS, Experiments
from trainboard.http.policies import Policy, policy_of

# Where the guard leaves who a request comes from, for the handlers that answer by it (imported from here too).
from trainboard.http.principal import PRINCIPAL
from trainboard.http.principal import principal_of as principal_of
from trainboard.http.rate_limit import RateLimit
from trainboard.http.throttle import authentication_failed

AUTHENTICATE = 'Bearer realm="trainboard"'
SESSION_COOKIE = "trainboard_session"
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def guard(routes: Iterable[BaseRoute]) -> None:
    """Wrap every route (each once, however many mounts hold it) in a `Guard` of its declared policy."""
    for route in routes:
        if isinstance(route, Mount) and isinstance(route.app, Router):
            guard(route.routes)
        elif isinstance(route, Route | Mount) and not isinstance(route.app, Guard):
            route.app = Guard(route.app, policy_of(route))


@dataclass(frozen=True, slots=True)
class Decision:
    principal: Principal | None
    allowed: bool
    # A bearer token that is not valid (unknown, revoked or expired): refused whatever the policy.
    refused_token: str | None = None


class Guard:
    """A route's app behind its policy; without one, refused to everyone."""

    def __init__(self, app: ASGIApp, policy: Policy | None) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        accounts: Accounts = scope["app"].state.accounts
        experiments: Experiments = scope["app"].state.experiments
        params = scope.get("path_params", {})
        experiment_id = params.get("experiment_id", "")
        if experiment_id in DEFAULT_EXPERIMENT_IDS:
            if "experiment_id" in params and experiments.default is None:
                # /experiment/defaultExperimentId/... on a server without a default experiment names none.
                raise NoSuchExperiment()
            experiment_id = experiments.default
        policy = self.policy
        decision = await run_in_threadpool(_decide, accounts, connection, policy, experiment_id)
        if decision.refused_token is not None:
            await authentication_failed(connection, decision.refused_token)
            raise UnauthenticatedError("the token is not valid: it is unknown, revoked or expired")
        principal = decision.principal
        if principal is not None and principal.session is not None and scope["method"] in STATE_CHANGING:
            if not same_origin(connection.headers):
                raise PermissionDeniedError(
                    "a request signed in by the session cookie must come from this server's own pages: its Origin"
                    " (or Referer) must name the host it is sent to; scripts send Authorization: Bearer <token>"
                )
        if not decision.allowed:
            if principal is None and _navigating(connection):
                # A browser opening a page signed out: to the sign-in page, and back here after.
                wanted = connection.url.path + (f"?{connection.url.query}" if connection.url.query else "")
                prefix = scope["app"].state.settings.path_prefix.rstrip("/")
                signin = f"{prefix}/auth/signin?{urlencode({'next': wanted})}"
                await RedirectResponse(signin, status_code=303)(scope, receive, send)
                return
            if principal is None:
                raise UnauthenticatedError("this server needs a token: sign in, or send Authorization: Bearer <token>")
            raise NoSuchExperiment() if experiment_id else NotFoundError("no such route")
        if policy is Policy.WRITE and principal is not None:
            limit: RateLimit = scope["app"].state.upload_limit
            wait = limit.take(principal.token.id)
            if wait > 0:
                raise TooManyRequestsError(
                    f"more than {limit.burst} upload requests at once or {limit.rate:g} a second with this token",
                    retry_after=max(1, math.ceil(wait)),
                )
        scope[PRINCIPAL] = principal
        await self.app(scope, receive, send)


def _navigating(connection: HTTPConnection) -> bool:
    """A browser asking for a page to show (not a script asking for data)."""
    headers = connection.headers
    return connection.scope["method"] == "GET" and (
        headers.get("sec-fetch-mode") == "navigate" or "text/html" in headers.get("accept", "")
    )


def same_origin(headers: Headers) -> bool | None:
    """Whether the page that sent a request is of the host the request was sent to: its Origin header, or else its
    Referer, names the Host header's host and port. None when it has neither."""
    sender = headers.get("origin") or headers.get("referer")
    if sender is None:
        return None
    host = headers.get("host")
    return host is not None and urlsplit(sender).netloc.lower() == host.lower()


def _decide(
    accounts: Accounts, connection: HTTPConnection, policy: Policy | None, experiment_id: str | None
) -> Decision:
    header = connection.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        token = token.strip() if scheme.lower() == "bearer" else ""
        principal = accounts.authenticate(token) if token else None
        if principal is None:
            return Decision(None, allowed=False, refused_token=token)
    else:
        secret = connection.cookies.get(SESSION_COOKIE)
        # A session that has ended counts as none, so that public experiments still answer.
        principal = accounts.session(secret) if secret else None
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
