"""Handlers of TensorBoard's PR curves plugin."""

from __future__ import annotations

from starlette.requests import Request

from trainboard.errors import InvalidArgumentError
from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import declare, repeated, text
from trainboard.http.responses import JSONResponse
from trainboard.plugins import pr_curves


@declare("The runs and tags of PR curves")
def tags(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(pr_curves.tags(found.provider, found.id))


@declare("The PR curves of a tag in some runs", repeated("run", required=True), text("tag", required=True))
def curves(request: Request) -> JSONResponse:
    runs = params.repeated(request.query_params, "run")
    if not runs:
        raise InvalidArgumentError("No runs provided when fetching PR curve data")
    tag = params.optional(request.query_params, "tag")
    if not tag:
        raise InvalidArgumentError("No tag provided when fetching PR curve data")
    found = experiment(request)
    samples = found.samples(pr_curves.PLUGIN_NAME, pr_curves.DEFAULT_SAMPLES)
    return JSONResponse(pr_curves.pr_curves(found.provider, found.id, runs=runs, tag=tag, samples=samples))
