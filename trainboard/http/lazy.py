"""Routes whose module is imported when the first request for one of their paths comes, not at start.

A restart's first answers (the runs, the scalars) need a few route modules; the others bring the rest of the data path
(protobuf messages, the hparams, projector, graph and download code): about a tenth of a restart. The module's
routes keep their full paths; `prefixes` says which paths may be theirs, so that other requests never load them.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send

# Where `matches` leaves the route of the module that matched, for `handle`.
MATCHED = "trainboard.lazy_route"


class RoutesOnFirstRequest(BaseRoute):
    def __init__(self, module: str, prefixes: tuple[str, ...]) -> None:
        self.module = module
        self.prefixes = prefixes
        self._routes: list[BaseRoute] | None = None
        self._steps: list[Callable[[list[BaseRoute]], None]] = []
        self._lock = threading.Lock()

    def prepare(self, step: Callable[[list[BaseRoute]], None]) -> None:
        """Have `step` done to the routes as they are imported, before any request reaches them (now, if they are
        imported already): what the app does to every route (its pin check, its guard)."""
        with self._lock:
            self._steps.append(step)
            if self._routes is not None:
                step(self._routes)

    @property
    def routes(self) -> list[BaseRoute]:
        """The module's routes, imported now if no request came yet (for the OpenAPI document too)."""
        with self._lock:
            if self._routes is None:
                routes = importlib.import_module(self.module).routes()
                for step in self._steps:
                    step(routes)
                self._routes = routes
            return self._routes

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or not _route_path(scope).startswith(self.prefixes):
            return Match.NONE, {}
        partial: tuple[Match, Scope] = (Match.NONE, {})
        for route in self.routes:
            match, child_scope = route.matches(scope)
            if match == Match.FULL:
                return match, {**child_scope, MATCHED: route}
            if match == Match.PARTIAL and partial[0] == Match.NONE:
                partial = (match, {**child_scope, MATCHED: route})
        return partial

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        route: BaseRoute = scope[MATCHED]
        await route.handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        for route in self.routes:
            try:
                return route.url_path_for(name, **path_params)
            except NoMatchFound:
                pass
        raise NoMatchFound(name, path_params)


def _route_path(scope: Scope) -> str:
    """The path below the mounts the request went through, as Starlette's routes match it."""
    path: str = scope["path"]
    root_path: str = scope.get("root_path", "")
    return path[len(root_path) :] if root_path and path.startswith(root_path) else path
