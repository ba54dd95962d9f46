"""trainboard's own routes, beyond TensorBoard's and TS-VIS's APIs, under /data/trainboard/: every point as CSV, JSON
or Parquet (`downloads`), lossless frames for `trainboard.open("http://...")` (`frames`), server-sent events when the
data changes (`events`), what this server can do (`capabilities`), runs matching a filter (`runs`) and groups of runs
with bands (`groups`). Each module is imported when the first request for one of its paths comes
(`trainboard.http.lazy`)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.lazy import RoutesOnFirstRequest

ON_FIRST_REQUEST = {
    "downloads": ("/data/trainboard/scalars",),
    "frames": ("/data/trainboard/frames/",),
    "events": ("/data/trainboard/events",),
    "capabilities": ("/data/trainboard/capabilities",),
    "runs": ("/data/trainboard/runs",),
    "groups": ("/data/trainboard/groups/",),
}


def routes() -> list[BaseRoute]:
    return [RoutesOnFirstRequest(f"{__name__}.{name}", prefixes) for name, prefixes in ON_FIRST_REQUEST.items()]
