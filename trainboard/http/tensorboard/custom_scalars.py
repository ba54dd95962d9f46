"""Handlers of TensorBoard's custom scalars plugin."""

from __future__ import annotations

from starlette.requests import Request

from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import JSON_OR_CSV, RUN, TAG, declare, text
from trainboard.http.responses import JSONResponse, RenderedJSONResponse, TextResponse
from trainboard.http.tensorboard.scalars import series
from trainboard.plugins import custom_scalars, scalars


@declare("The custom scalars layout, merged across runs")
def layout(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(custom_scalars.layout(found.provider, found.id))


@declare("The scalar series of a run whose tags match a regular expression", text("run"), text("tag"))
def scalars_by_regex(request: Request) -> JSONResponse:
    query = request.query_params
    run, tag_regex = params.optional(query, "run", ""), params.optional(query, "tag", "")
    found = experiment(request)
    samples = found.samples(scalars.PLUGIN_NAME, scalars.DEFAULT_SAMPLES)
    return JSONResponse(
        custom_scalars.scalars_by_regex(
            found.provider, found.id, run=run or "", tag_regex=tag_regex or "", samples=samples
        )
    )


@declare("One scalar series as JSON or CSV", RUN, TAG, text("format", enum=("csv", "json")), returns=JSON_OR_CSV)
def download_data(request: Request) -> RenderedJSONResponse | TextResponse:
    """One scalar series as JSON or CSV, exactly as the scalars plugin serves it."""
    return series(request)
