"""Who may call each route of `trainboard serve`: every route is declared with its policy (`PolicyRoute`, and
`PolicyMount` for a folder of files), where its path is written. The same route serves the default experiment at /
and every experiment under /experiment/<id>, live and below /at/<pin>.

A route declared without a policy (a plain Starlette `Route` or `Mount`) is refused to everyone
(`trainboard.http.guard`), and the route-policy test fails on it: a new route is declared with the least it needs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from enum import Enum
from typing import Any

from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp

from trainboard.access.roles import Role


class Policy(Enum):
    # Anyone, even without a token.
    ANYONE = "anyone"
    # Any valid token; the route answers only with what the token may see.
    SIGNED_IN = "signed in"
    # A role on the experiment the URL names (at /, the default experiment; without one, a valid token).
    READ = "read"
    WRITE = "write"
    ADMIN = "admin"

    @property
    def role(self) -> Role | None:
        return {"read": Role.READ, "write": Role.WRITE, "admin": Role.ADMIN}.get(self.value)


class PolicyRoute(Route):
    """A route and who may call it; it takes GET unless `methods` says otherwise."""

    def __init__(
        self, path: str, endpoint: Callable[..., Any], policy: Policy, *, methods: Collection[str] = ("GET",)
    ) -> None:
        super().__init__(path, endpoint, methods=methods)
        self.policy = policy


class PolicyMount(Mount):
    """A folder of files (one app serving every path below `path`) and who may read them."""

    def __init__(self, path: str, app: ASGIApp, policy: Policy) -> None:
        super().__init__(path, app)
        self.policy = policy


def policy_of(route: BaseRoute) -> Policy | None:
    """The policy a route was declared with; None for a route declared without one."""
    return route.policy if isinstance(route, PolicyRoute | PolicyMount) else None
