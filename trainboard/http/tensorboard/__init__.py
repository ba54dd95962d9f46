"""TensorBoard's HTTP API: each module here serves one plugin's routes through a `routes()` function.

The runs and the scalars are imported at start: a dashboard's first answers. Every other module is imported when the
first request for one of its paths comes (`trainboard.http.lazy`), listed here with the paths its routes start with.
"""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.lazy import RoutesOnFirstRequest
from trainboard.http.tensorboard import core, scalars

ON_FIRST_REQUEST = {
    "classic": (
        "/data/scalars",
        "/data/histograms",
        "/data/compressedHistograms",
        "/data/images",
        "/data/individualImage",
        "/data/audio",
        "/data/individualAudio",
        "/data/graph",
        "/data/run_metadata",
    ),
    "custom_scalars": ("/data/plugin/custom_scalars/",),
    "graphs": ("/data/plugin/graphs/",),
    "histograms": ("/data/plugin/histograms/", "/data/plugin/distributions/"),
    "hparams": ("/data/plugin/hparams/",),
    "media": ("/data/plugin/images/", "/data/plugin/audio/", "/data/blob/"),
    "mesh": ("/data/plugin/mesh/",),
    "pr_curves": ("/data/plugin/pr_curves/",),
    "projector": ("/data/plugin/projector/",),
    "text": ("/data/plugin/text/",),
    "timeseries": ("/data/plugin/timeseries/",),
}


def routes() -> list[BaseRoute]:
    return [
        *core.routes(),
        *scalars.routes(),
        *(RoutesOnFirstRequest(f"{__name__}.{name}", prefixes) for name, prefixes in ON_FIRST_REQUEST.items()),
    ]
