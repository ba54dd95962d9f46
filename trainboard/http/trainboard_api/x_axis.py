"""`/data/trainboard/scalars/against`: a scalar tag's points with another tag (or a derived metric) as their x
(`trainboard.plugins.x_axis`), sampled as the scalars plugin's charts are."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import declare, repeated, text
from trainboard.http.responses import JSONResponse
from trainboard.plugins import scalars, x_axis


@declare(
    "A scalar tag's points by run, each with x: the x tag's last value at or before its step",
    text("tag", required=True),
    text("x", required=True),
    repeated("run"),
)
async def against(request: Request) -> JSONResponse:
    """`{"tag": T, "x": X, "runs": {run: {"step": [...], "wall_time": [...], "value": [...], "x": [...],
    "monotonic": bool}}}`; runs without both tags are left out."""
    query = request.query_params
    found = experiment(request)
    body = await run_in_threadpool(
        x_axis.against,
        found.provider,
        found.id,
        tag=params.required(query, "tag"),
        x=params.required(query, "x"),
        runs=params.repeated(query, "run") if "run" in query else None,
        samples=found.samples(scalars.PLUGIN_NAME, scalars.DEFAULT_SAMPLES),
    )
    return JSONResponse(body)
