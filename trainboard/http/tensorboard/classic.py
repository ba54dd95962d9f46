"""Handlers of TensorBoard's original HTTP API (seed 000). Its dictionary form of /data/runs is at /data/runs_by_type,
because seed 001's list form owns /data/runs."""

from __future__ import annotations

from starlette.requests import Request

from trainboard.http import params
from trainboard.http.context import experiment, series_request
from trainboard.http.openapi import JSON_OR_CSV, RUN, TAG, declare, integer, text
from trainboard.http.responses import JSONResponse, RenderedJSONResponse, TextResponse
from trainboard.http.rows import rows_json
from trainboard.plugins import audio, classic, distributions, histograms, images, scalars


@declare(
    "Every scalar series sampled, or one series as JSON or CSV",
    text("run"),
    text("tag"),
    integer("sample_count"),
    text("format", enum=("csv", "json")),
    returns=JSON_OR_CSV,
)
def scalar_series(request: Request) -> JSONResponse | RenderedJSONResponse | TextResponse:
    """One series when run and tag are given (JSON or CSV); else every series, sampled to `sample_count` points."""
    query = request.query_params
    found = experiment(request)
    if "run" not in query and "tag" not in query:
        sample_count = params.integer(query, "sample_count", classic.DEFAULT_SAMPLE_COUNT)
        return JSONResponse(classic.all_scalars(found.provider, found.id, sample_count or classic.DEFAULT_SAMPLE_COUNT))
    run, tag = params.required(query, "run"), params.required(query, "tag")
    samples = found.samples(scalars.PLUGIN_NAME, scalars.DEFAULT_SAMPLES)
    columns = scalars.scalars(found.provider, found.id, run=run, tag=tag, samples=samples)
    if params.optional(query, "format") == "csv":
        return TextResponse(scalars.as_csv(columns), media_type="text/csv")
    return RenderedJSONResponse(rows_json(columns))


@declare("A histogram series as TensorBoard 1 served it", RUN, TAG)
def histogram_series(request: Request) -> JSONResponse:
    series = series_request(request, histograms.PLUGIN_NAME, histograms.DEFAULT_SAMPLES)
    return JSONResponse(
        classic.histogram_protos(series.provider, series.id, run=series.run, tag=series.tag, samples=series.samples)
    )


@declare("A distribution series as TensorBoard 1 served it", RUN, TAG)
def compressed_histogram_series(request: Request) -> JSONResponse:
    series = series_request(request, distributions.PLUGIN_NAME, distributions.DEFAULT_SAMPLES)
    return JSONResponse(
        classic.compressed_histograms(
            series.provider, series.id, run=series.run, tag=series.tag, samples=series.samples
        )
    )


@declare("An image series metadata as TensorBoard 1 served it", RUN, TAG)
def image_series(request: Request) -> JSONResponse:
    series = series_request(request, images.PLUGIN_NAME, images.DEFAULT_SAMPLES)
    return JSONResponse(
        classic.image_metadata(series.provider, series.id, run=series.run, tag=series.tag, samples=series.samples)
    )


@declare("An audio series metadata as TensorBoard 1 served it", RUN, TAG)
def audio_series(request: Request) -> JSONResponse:
    series = series_request(request, audio.PLUGIN_NAME, audio.DEFAULT_SAMPLES)
    return JSONResponse(
        classic.audio_metadata(series.provider, series.id, run=series.run, tag=series.tag, samples=series.samples)
    )
