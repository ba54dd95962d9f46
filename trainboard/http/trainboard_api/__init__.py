"""trainboard's own routes, beyond TensorBoard's and TS-VIS's APIs, under /data/trainboard/: every point as CSV, JSON
or Parquet (`downloads`), lossless frames for `trainboard.open("http://...")` (`frames`), server-sent events when the
data changes (`events`), what this server can do (`capabilities`), runs matching a filter (`runs`) and groups of runs
with bands (`groups`)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.trainboard_api import capabilities, downloads, events, frames, groups, runs
from trainboard.http.trainboard_api.downloads import PARQUET

__all__ = ["PARQUET", "routes"]


def routes() -> list[BaseRoute]:
    return [
        *downloads.routes(),
        *frames.routes(),
        *events.routes(),
        *capabilities.routes(),
        *runs.routes(),
        *groups.routes(),
    ]
