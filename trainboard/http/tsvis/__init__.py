"""TS-VIS's HTTP API (seed 004): GET only, every answer `{"code", "msg", "data"}` with HTTP 200. Its module is
imported when the first request for /api comes (`trainboard.http.lazy`): most servers never get one."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.lazy import RoutesOnFirstRequest

ON_FIRST_REQUEST = {"api": ("/api/",)}


def routes() -> list[BaseRoute]:
    return [RoutesOnFirstRequest(f"{__name__}.{name}", prefixes) for name, prefixes in ON_FIRST_REQUEST.items()]
