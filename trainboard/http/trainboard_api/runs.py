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
    text("errors", enum=("answer",)),
    text("fallback", enum=("regex",)),
)
async def runs(request: Request) -> JSONResponse:
    """A filter that does not parse is a 400 saying where and what was expected; with `errors=answer`, an answer of
    mode "invalid" with the error, its position and what was expected (the web UI's filter box shows it as one types);
    with `fallback=regex` (kept for callers from before `errors`), an answer of mode "regex" and the reason."""
    found = experiment(request)
    query = params.optional(request.query_params, "filter")
    errors = params.optional(request.query_params, "errors")
    fallback = params.optional(request.query_params, "fallback")
    if errors not in (None, "answer"):
        raise InvalidArgumentError(f"errors must be answer, not {errors[:100]!r}")
    if fallback not in (None, "regex"):
        raise InvalidArgumentError(f"fallback must be regex, not {fallback[:100]!r}")
    answer = await run_in_threadpool(
        run_filter.runs,
        found.provider,
        found.id,
        query,
        regex_fallback=fallback == "regex",
        errors_answered=errors == "answer",
    )
    return JSONResponse(answer)
