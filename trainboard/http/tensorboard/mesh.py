"""Handlers of TensorBoard's mesh plugin."""

from __future__ import annotations

from starlette.requests import Request

from trainboard.errors import BadRequestError
from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import SAMPLE, declare, number, text
from trainboard.http.responses import BytesResponse, JSONResponse
from trainboard.plugins import mesh


@declare("The runs and tags of meshes")
def tags(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(mesh.tags(found.provider, found.id))


@declare("The meshes of a series: every part of every step", text("run"), text("tag"))
def meshes(request: Request) -> JSONResponse:
    query = request.query_params
    found = experiment(request)
    samples = found.samples(mesh.PLUGIN_NAME, mesh.DEFAULT_SAMPLES)
    return JSONResponse(
        mesh.meshes(
            found.provider,
            found.id,
            run=params.optional(query, "run", "") or "",
            tag=params.optional(query, "tag", "") or "",
            samples=samples,
        )
    )


@declare(
    "One part of one mesh as typed bytes",
    text("run"),
    text("tag"),
    text("content_type", enum=("VERTEX", "FACE", "COLOR")),
    number("step"),
    SAMPLE,
    returns="arraybuffer",
)
def data(request: Request) -> BytesResponse:
    query = request.query_params
    try:
        step = float(params.optional(query, "step", "0") or 0)
    except ValueError:
        raise BadRequestError("step must be a number") from None
    found = experiment(request)
    body = mesh.mesh_data(
        found.provider,
        found.id,
        run=params.optional(query, "run", "") or "",
        tag=params.optional(query, "tag", "") or "",
        part=params.optional(query, "content_type", "") or "",
        step=step,
        sample=params.integer(query, "sample", 0, minimum=0) or 0,
        samples=found.samples(mesh.PLUGIN_NAME, mesh.DEFAULT_SAMPLES),
    )
    return BytesResponse(body, "arraybuffer")
