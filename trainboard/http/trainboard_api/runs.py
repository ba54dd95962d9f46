"""`/data/trainboard/runs?filter=...`: the runs a filter keeps, with their hyperparameters and final metric values."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.errors import InvalidArgumentError
from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import declare, text
from trainboard.http.responses import JSONResponse
from trainboard.plugins import run_filter
from trainboard.store.run_filter import MAX_FILTER_LENGTH


@declare(
    "The runs a filter keeps (all without one), with their hyperparameters and final metric values",
    text("filter", max_length=MAX_FILTER_LENGTH),
    text("fallback", enum=("regex",)),
)
async def runs(request: Request) -> JSONResponse:
    """A filter that does not parse is a 400 saying where and what was expected; with `fallback=regex`, an answer of
    mode "regex" (the web UI's filter box then matches the text as a regular expression on run names)."""
    found = experiment(request)
    query = params.optional(request.query_params, "filter")
    fallback = params.optional(request.query_params, "fallback")
    if fallback not in (None, "regex"):
        raise InvalidArgumentError(f"fallback must be regex, not {fallback[:100]!r}")
    answer = await run_in_threadpool(
        run_filter.runs, found.provider, found.id, query, regex_fallback=fallback == "regex"
    )
    return JSONResponse(answer)
