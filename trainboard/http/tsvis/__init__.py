"""TS-VIS's HTTP API (seed 004): GET only, every answer `{"code", "msg", "data"}` with HTTP 200."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.tsvis import api


def routes() -> list[BaseRoute]:
    return api.routes()
