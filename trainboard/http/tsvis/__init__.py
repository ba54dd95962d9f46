"""TS-VIS's HTTP API (seed 004): GET only, every answer `{"code", "msg", "data"}` with HTTP 200. Its handlers (`api`)
are imported when the first request for one of them comes (`trainboard.http.lazy`): most servers never get one."""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.lazy import LazyEndpoint
from trainboard.http.policies import Policy, PolicyRoute

# Each route's path below /api/, and its handler in `api`.
HANDLERS = {
    "init": "init",
    "getCategory": "get_category",
    "scalar": "scalar",
    "image": "image",
    "image_raw": "image_raw",
    "audio": "audio",
    "audio_raw": "audio_raw",
    "text": "text_series",
    "histogram": "histogram",
    "distribution": "distribution",
    "hyperparm": "hyperparm",
    "graph": "model_graph",
    "projector": "projector_meta",
    "projector_raw": "projector_raw",
    "projector_sample": "projector_sample",
    "projector_data": "projector_data",
    "exception": "exception_meta",
    "exception_data": "exception_data",
    "exception_hist": "exception_hist",
    "exception_box": "exception_box",
}


def routes() -> list[BaseRoute]:
    return [
        PolicyRoute(f"/api/{path}", LazyEndpoint(f"{__name__}.api", handler), Policy.READ)
        for path, handler in HANDLERS.items()
    ]
