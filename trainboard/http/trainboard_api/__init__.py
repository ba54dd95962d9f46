"""trainboard's own routes under /data/trainboard/: every point as CSV, JSON or Parquet (`downloads`), lossless
frames for `trainboard.open("http://...")` (`frames`), server-sent events when the data changes (`events`), and what
this server can do (`capabilities`)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.trainboard_api import capabilities, downloads, events, frames
from trainboard.http.trainboard_api.downloads import PARQUET

__all__ = ["PARQUET", "routes"]


def routes() -> list[BaseRoute]:
    return [*downloads.routes(), *frames.routes(), *events.routes(), *capabilities.routes()]
