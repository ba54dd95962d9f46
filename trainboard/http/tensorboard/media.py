"""Handlers of TensorBoard's images and audio plugins, and the data provider's blob route."""

from __future__ import annotations

from urllib.parse import unquote

from starlette.requests import Request

from trainboard.errors import BadRequestError
from trainboard.http import params
from trainboard.http.context import experiment, series_request
from trainboard.http.openapi import BYTES, RUN, SAMPLE, TAG, declare, text
from trainboard.http.responses import BytesResponse, JSONResponse
from trainboard.plugins import audio, images


@declare("The runs and tags of images")
def image_tags(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(images.tags(found.provider, found.id))


@declare("The images of a series, one sample per step", RUN, TAG, SAMPLE)
def image_series(request: Request) -> JSONResponse:
    series = series_request(request, images.PLUGIN_NAME, images.DEFAULT_SAMPLES)
    sample = params.integer(request.query_params, "sample", 0, minimum=0) or 0
    return JSONResponse(
        images.images(series.provider, series.id, run=series.run, tag=series.tag, sample=sample, samples=series.samples)
    )


@declare("An image by its blob key", text("blob_key", required=True), returns=images.MEDIA_TYPES)
def individual_image(request: Request) -> BytesResponse:
    blob_key = request.query_params.get("blob_key")
    if blob_key is None:
        raise BadRequestError("Invalid run, tag, index, or sample")
    found = experiment(request)
    data = found.provider.read_blob(experiment_id=found.id, blob_key=blob_key)
    return BytesResponse(data, images.media_type(data))


@declare("The runs and tags of audio")
def audio_tags(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(audio.tags(found.provider, found.id))


@declare("The audio clips of a series, one sample per step", RUN, TAG, SAMPLE)
def audio_series(request: Request) -> JSONResponse:
    series = series_request(request, audio.PLUGIN_NAME, audio.DEFAULT_SAMPLES)
    sample = params.integer(request.query_params, "sample", 0, minimum=0) or 0
    return JSONResponse(
        audio.audio(series.provider, series.id, run=series.run, tag=series.tag, sample=sample, samples=series.samples)
    )


@declare(
    "An audio clip by its blob key",
    text("blob_key", required=True),
    text("content_type", required=True, enum=tuple(sorted(audio.ALLOWED_MEDIA_TYPES))),
    returns=tuple(sorted(audio.ALLOWED_MEDIA_TYPES)),
)
def individual_audio(request: Request) -> BytesResponse:
    media_type = audio.checked_media_type(params.required(request.query_params, "content_type"))
    found = experiment(request)
    data = found.provider.read_blob(experiment_id=found.id, blob_key=params.required(request.query_params, "blob_key"))
    return BytesResponse(data, media_type)


@declare("A blob by its key", returns=BYTES)
def blob(request: Request) -> BytesResponse:
    found = experiment(request)
    data = found.provider.read_blob(experiment_id=found.id, blob_key=unquote(request.path_params["blob_key"]))
    return BytesResponse(data, "application/octet-stream")
