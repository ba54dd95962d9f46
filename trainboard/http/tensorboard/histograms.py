"""Routes of TensorBoard's histograms and distributions plugins."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.responses import JSONResponse
from trainboard.plugins import distributions, histograms


def tags(request: Request) -> JSONResponse:
    return JSONResponse(histograms.tags(experiment(request).provider))


def histogram_series(request: Request) -> JSONResponse:
    run, tag = params.required(request.query_params, "run"), params.required(request.query_params, "tag")
    found = experiment(request)
    samples = found.samples(histograms.PLUGIN_NAME, histograms.DEFAULT_SAMPLES)
    return JSONResponse(histograms.histograms(found.provider, run=run, tag=tag, samples=samples))


def distribution_series(request: Request) -> JSONResponse:
    run, tag = params.required(request.query_params, "run"), params.required(request.query_params, "tag")
    found = experiment(request)
    samples = found.samples("distributions", distributions.DEFAULT_SAMPLES)
    return JSONResponse(distributions.distributions(found.provider, run=run, tag=tag, samples=samples))


def routes() -> list[BaseRoute]:
    return [
        Route("/data/plugin/histograms/tags", tags),
        Route("/data/plugin/histograms/histograms", histogram_series),
        Route("/data/plugin/distributions/tags", tags),
        Route("/data/plugin/distributions/distributions", distribution_series),
    ]
