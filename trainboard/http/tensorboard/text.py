"""Handlers of TensorBoard's text plugin."""

from __future__ import annotations

from starlette.requests import Request

from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import RUN, TAG, boolean, declare
from trainboard.http.responses import JSONResponse
from trainboard.plugins import text


@declare("The runs and tags of text")
def tags(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(text.tags(found.provider, found.id))


@declare("A text series, rendered from markdown unless markdown=false", RUN, TAG, boolean("markdown"))
def series(request: Request) -> JSONResponse:
    query = request.query_params
    run, tag = params.required(query, "run"), params.required(query, "tag")
    found = experiment(request)
    markdown = query.get("markdown") != "false"
    samples = found.samples(text.PLUGIN_NAME, text.DEFAULT_SAMPLES)
    return JSONResponse(text.text(found.provider, found.id, run=run, tag=tag, markdown=markdown, samples=samples))
