"""trainboard's own routes, beyond TensorBoard's and TS-VIS's APIs, under /data/trainboard/: every point as CSV, JSON
or Parquet (`downloads`), lossless frames for `trainboard.open("http://...")` (`frames`), server-sent events when the
data changes (`events`), what this server can do (`capabilities`), runs matching a filter (`runs`), the runs table
(`runs_table`), the scalars' tags in short (`scalar_tags`), groups of runs with bands (`groups`), two sets of runs
compared (`compare`), derived metrics (`definitions`), a tag against another as its x axis (`x_axis`), runs' metadata
(`run_metadata`) and saved views (`views`). Each module is imported when the first request for one of its routes
comes (`trainboard.http.lazy`): its handlers are named here, not imported."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.lazy import LazyEndpoint
from trainboard.http.policies import Policy, PolicyRoute

READ = Policy.READ
WRITE = Policy.WRITE


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
        PolicyRoute("/data/trainboard/scalar_tags", _later("scalar_tags", "scalar_tags"), READ),
        PolicyRoute(
            "/data/trainboard/groups/scalars", _later("groups", "group_scalars"), READ, methods=["GET", "POST"]
        ),
        PolicyRoute("/data/trainboard/groups/runs", _later("groups", "group_runs"), READ),
        PolicyRoute("/data/trainboard/scalars/against", _later("x_axis", "against"), READ),
        PolicyRoute("/data/trainboard/compare", _later("compare", "compare"), READ, methods=["GET", "POST"]),
        PolicyRoute("/data/trainboard/definitions", _later("definitions", "listing"), READ),
        PolicyRoute("/data/trainboard/run_metadata", _later("run_metadata", "listing"), READ),
        PolicyRoute("/data/trainboard/views", _later("views", "listing"), READ),
        PolicyRoute("/data/trainboard/views/{view}", _later("views", "read"), READ),
    ]


def writing_routes() -> list[BaseRoute]:
    """The routes that change what users keep beside the data (run metadata, saved views, derived metrics): of the live
    experiment only, never below /at/<pin>/, and for whom may write it."""
    return [
        PolicyRoute("/data/trainboard/run_metadata", _later("run_metadata", "change"), WRITE, methods=["POST"]),
        PolicyRoute("/data/trainboard/views", _later("views", "save"), WRITE, methods=["POST"]),
        PolicyRoute("/data/trainboard/views/{view}/rename", _later("views", "rename"), WRITE, methods=["POST"]),
        PolicyRoute("/data/trainboard/views/{view}", _later("views", "delete"), WRITE, methods=["DELETE"]),
        PolicyRoute("/data/trainboard/definitions", _later("definitions", "define"), WRITE, methods=["POST"]),
        PolicyRoute("/data/trainboard/definitions", _later("definitions", "undefine"), WRITE, methods=["DELETE"]),
    ]
