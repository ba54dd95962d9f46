"""TS-VIS's HTTP API (seed 004): GET only, every answer `{"code", "msg", "data"}` with HTTP 200."""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount, Router
from starlette.types import Receive, Scope, Send


class _RoutesOnFirstRequest:
    """TS-VIS's routes under /api, their modules imported when the first request comes: most servers never get one,
    and importing them is a sizeable part of a restart."""

    def __init__(self) -> None:
        self._router: Router | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._loaded()(scope, receive, send)

    @property
    def routes(self) -> list[BaseRoute]:
        """The routes, imported now if no request came yet (as a Router's, for the OpenAPI document)."""
        return self._loaded().routes

    def _loaded(self) -> Router:
        if self._router is None:
            from trainboard.http.tsvis import api

            self._router = Router(api.routes())
        return self._router


def routes() -> list[BaseRoute]:
    return [Mount("/api", app=_RoutesOnFirstRequest())]
