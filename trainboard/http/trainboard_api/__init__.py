"""trainboard's own routes, beyond TensorBoard's and TS-VIS's APIs, under /data/trainboard/."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.trainboard_api import groups, runs


def routes() -> list[BaseRoute]:
    return [*runs.routes(), *groups.routes()]
