"""`/data/trainboard/runs?filter=...`: the runs a filter keeps, with their hyperparameters and final metric values."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import declare, text
from trainboard.http.responses import JSONResponse
from trainboard.plugins import run_filter
from trainboard.store.run_filter import MAX_FILTER_LENGTH

PREFIX = "/data/trainboard"


@declare(
    "The runs a filter keeps (all without one), with their hyperparameters and final metric values",
    text("filter", max_length=MAX_FILTER_LENGTH),
)
async def runs(request: Request) -> JSONResponse:
    found = experiment(request)
    query = params.optional(request.query_params, "filter")
    return JSONResponse(await run_in_threadpool(run_filter.runs, found.provider, found.id, query))


def routes() -> list[BaseRoute]:
    return [Route(f"{PREFIX}/runs", runs)]
