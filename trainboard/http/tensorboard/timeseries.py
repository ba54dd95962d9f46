"""Handlers of TensorBoard's Time Series dashboard (its "metrics" plugin, served as "timeseries")."""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.errors import InvalidArgumentError
from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import declare, form_body, json_text, text
from trainboard.http.responses import BytesResponse, JSONResponse
from trainboard.plugins import images, timeseries
from trainboard.plugins.json_depth import check_depth

# At most this many series in one timeSeries request.
MAX_REQUESTS = 1000
# orjson writes integers of at most 64 bits, and TensorBoard echoes each request's sample.
SAMPLE_RANGE = range(-(2**63), 2**63)
SERIES_REQUESTS = {
    "type": "array",
    "maxItems": MAX_REQUESTS,
    "items": {
        "type": "object",
        "properties": {
            "plugin": {"type": "string", "enum": sorted(timeseries.DEFAULT_SAMPLES)},
            "tag": {"type": "string"},
            "run": {"type": "string"},
            "sample": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
        },
        "required": ["plugin", "tag"],
    },
}


@declare("The tags of every kind of series, by run")
def tags(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(timeseries.tags(found.provider, found.id))


@declare(
    "Series by their requests: a JSON list, in ?requests= or the form field requests",
    json_text("requests", SERIES_REQUESTS),
    body=form_body(requests={"type": "string"}),
)
async def time_series(request: Request) -> JSONResponse:
    if request.method == "POST":
        raw = (await request.form()).get("requests")
    else:
        raw = params.optional(request.query_params, "requests")
    if not raw or not isinstance(raw, str):
        raise InvalidArgumentError("Missing 'requests' field")
    check_depth(raw, name="'requests'")
    try:
        series_requests = json.loads(raw)
    except ValueError:
        raise InvalidArgumentError("Unable to parse 'requests' as JSON") from None
    if not isinstance(series_requests, list):
        raise InvalidArgumentError("'requests' must be a JSON list")
    if len(series_requests) > MAX_REQUESTS:
        raise InvalidArgumentError(f"'requests' holds more than {MAX_REQUESTS} requests")
    for one in series_requests:
        _check_sample(one)
    found = experiment(request)
    samples = {plugin: found.samples(plugin, default) for plugin, default in timeseries.DEFAULT_SAMPLES.items()}
    body = await run_in_threadpool(
        lambda: [timeseries.time_series(found.provider, found.id, one, samples) for one in series_requests]
    )
    return JSONResponse(body)


def _check_sample(series_request: object) -> None:
    """A sample must fit in 64 bits, and an image's counts from 0. TensorBoard answers a negative one with the width
    (-2), height (-1) or images counted from the end, and fails with a 500 below that."""
    if not isinstance(series_request, dict):
        return
    sample = series_request.get("sample")
    if not isinstance(sample, int) or isinstance(sample, bool):
        return
    if sample not in SAMPLE_RANGE:
        raise InvalidArgumentError("'requests' holds a sample outside the 64-bit range")
    if series_request.get("plugin") == images.PLUGIN_NAME and sample < 0:
        raise InvalidArgumentError(f"'requests' holds an image sample of {sample}: samples count from 0")


@declare("An image by its id", text("imageId", required=True), returns=images.MEDIA_TYPES)
def image_data(request: Request) -> BytesResponse:
    blob_key = params.required(request.query_params, "imageId")
    if not blob_key:
        raise InvalidArgumentError("Missing 'imageId' field")
    found = experiment(request)
    data = found.provider.read_blob(experiment_id=found.id, blob_key=blob_key)
    return BytesResponse(data, images.media_type(data))
