"""Handlers of TensorBoard's histograms and distributions plugins."""

from __future__ import annotations

from starlette.requests import Request

from trainboard.http.context import experiment, series_request
from trainboard.http.openapi import RUN, TAG, declare
from trainboard.http.responses import JSONResponse
from trainboard.plugins import distributions, histograms


@declare("The runs and tags of histograms")
def tags(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(histograms.tags(found.provider, found.id))


@declare("A histogram series", RUN, TAG)
def histogram_series(request: Request) -> JSONResponse:
    series = series_request(request, histograms.PLUGIN_NAME, histograms.DEFAULT_SAMPLES)
    return JSONResponse(
        histograms.histograms(series.provider, series.id, run=series.run, tag=series.tag, samples=series.samples)
    )


@declare("A distribution series", RUN, TAG)
def distribution_series(request: Request) -> JSONResponse:
    series = series_request(request, distributions.PLUGIN_NAME, distributions.DEFAULT_SAMPLES)
    return JSONResponse(
        distributions.distributions(series.provider, series.id, run=series.run, tag=series.tag, samples=series.samples)
    )
