"""trainboard's own routes, beyond TensorBoard's and TS-VIS's APIs, under /data/trainboard/: every point as CSV, JSON
or Parquet (`downloads`), lossless frames for `trainboard.open("http://...")` (`frames`), server-sent events when the
data changes (`events`), what this server can do (`capabilities`), runs matching a filter (`runs`), the runs table
(`runs_table`) and groups of runs with bands (`groups`). Each module is imported when the first request for one of
its routes comes (`trainboard.http.lazy`): its handlers are named here, not imported."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.lazy import LazyEndpoint
from trainboard.http.policies import Policy, PolicyRoute

READ = Policy.READ


def _later(module: str, name: str) -> LazyEndpoint:
    """The handler `name` of this package's `module`, imported on its first request."""
    return LazyEndpoint(f"{__name__}.{module}", name)


def routes() -> list[BaseRoute]:
    return [
        PolicyRoute("/data/trainboard/scalars", _later("downloads", "scalars"), READ),
        PolicyRoute("/data/trainboard/frames/{kind}", _later("frames", "frames"), READ),
        PolicyRoute("/data/trainboard/events", _later("events", "events"), READ),
        PolicyRoute("/data/trainboard/capabilities", _later("capabilities", "capabilities"), READ),
        PolicyRoute("/data/trainboard/runs", _later("runs", "runs"), READ),
        PolicyRoute("/data/trainboard/runs_table", _later("runs_table", "runs_table"), READ),
        PolicyRoute(
            "/data/trainboard/groups/scalars", _later("groups", "group_scalars"), READ, methods=["GET", "POST"]
        ),
    ]
