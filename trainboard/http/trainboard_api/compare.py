"""`/data/trainboard/compare`: two filters' runs compared on a summary metric (`trainboard.plugins.compare`): both
means with 95 % intervals, their difference with its interval, Welch's t-test and Cohen's d. GET takes its
parameters in the query, POST (for long filters) in a form."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import declare, form_of, text
from trainboard.http.responses import JSONResponse
from trainboard.plugins import compare as comparing
from trainboard.store.run_filter import MAX_FILTER_LENGTH

_PARAMETERS = (
    text("a", required=True, max_length=MAX_FILTER_LENGTH),
    text("b", required=True, max_length=MAX_FILTER_LENGTH),
    text("metric", required=True, max_length=comparing.MAX_METRIC_LENGTH),
)


@declare(
    "Two filters' runs compared on a summary metric: means with 95% intervals, Welch's t-test, Cohen's d",
    *_PARAMETERS,
    body=form_of(*_PARAMETERS),
)
async def compare(request: Request) -> JSONResponse:
    query = await params.query_or_form(request)
    found = experiment(request)
    body = await run_in_threadpool(
        comparing.compare,
        found.provider,
        found.id,
        a=params.required(query, "a"),
        b=params.required(query, "b"),
        metric_text=params.required(query, "metric"),
    )
    return JSONResponse(body)
