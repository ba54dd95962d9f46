"""/data/trainboard/capabilities: what this server can do, for the web UI (Parquet needs pyarrow on the server)."""

from __future__ import annotations

import importlib.util

from starlette.requests import Request

from trainboard.http.context import experiment
from trainboard.http.openapi import declare
from trainboard.http.responses import JSONResponse


def has_pyarrow() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


@declare("What this server can do: the download formats it writes, whether the data can change (live events)")
def capabilities(request: Request) -> JSONResponse:
    experiment(request)
    pinned = "pin" in request.path_params
    formats = ["csv", "json", *(["parquet"] if has_pyarrow() else [])]
    return JSONResponse({"downloads": formats, "frames": has_pyarrow(), "events": not pinned})
