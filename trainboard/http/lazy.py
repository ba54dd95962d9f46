"""Route endpoints whose module is imported when the first request for one of them comes, not at start.

A restart's first answers (the runs, the scalars) need a few route modules; the others bring the rest of the data path
(protobuf messages, the hparams, projector, graph and download code): about a tenth of a restart. Their routes are
declared where importing costs nothing (their package's `__init__`), each naming its handler by module and name
(`LazyEndpoint`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from starlette.routing import request_response
from starlette.types import ASGIApp, Receive, Scope, Send


class LazyEndpoint:
    """The handler `name` of `module` (a function of a request, as Starlette's routes take), as an ASGI app that
    imports the module on its first request."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name
        self._app: ASGIApp | None = None

    @property
    def handler(self) -> Callable[..., Any]:
        """The handler, its module imported now if no request came yet (for the OpenAPI document too)."""
        found: Callable[..., Any] = getattr(importlib.import_module(self.module), self.name)
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._app is None:
            self._app = request_response(self.handler)
        await self._app(scope, receive, send)
