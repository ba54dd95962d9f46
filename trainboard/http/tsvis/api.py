"""The handlers of TS-VIS's API (routed by `trainboard.http.tsvis`); each reads its parameters and calls the
component in trainboard/plugins/tsvis."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.requests import Request

from trainboard.analysis.projections import METHODS
from trainboard.http import openapi
from trainboard.http.context import experiment
from trainboard.http.openapi import RUN, TAG, declare
from trainboard.http.responses import JSONResponse
from trainboard.http.tensorboard.projector import run_configs
from trainboard.http.tsvis.envelope import answer, integer, number, optional_integer, text
from trainboard.plugins.tsvis import category, exception, graph, hyperparams, media, projector, statistics

# TS-VIS projects into 2 dimensions when a request names none.
DEFAULT_DIMENSIONS = 2
# /api/init waits for the first ingest pass at most this long, as TS-VIS waits for its parser.
INIT_WAIT_SECONDS = 30.0
STEP = openapi.integer("step", required=True)
SAMPLES = openapi.integer("samples", minimum=1)


@declare("Waits for the first ingest pass (at most 30 s), as TS-VIS waits for its parser")
async def init(request: Request) -> JSONResponse:
    progress = experiment(request).progress
    deadline = time.monotonic() + INIT_WAIT_SECONDS
    while not progress.as_json()["done"] and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return JSONResponse({"code": 200, "msg": "ok", "data": {"msg": "success"}})


@declare("The runs and what each holds, by TS-VIS category")
@answer
def get_category(request: Request) -> Any:
    found = experiment(request)
    return category.category(found.provider, found.id, run_configs(found))


@declare("A scalar series", RUN, TAG)
@answer
def scalar(request: Request) -> Any:
    tag = text(request, "tag")
    found = experiment(request)
    return {tag: media.scalar(found.provider, found.id, text(request, "run"), tag)}


@declare("The images of a series, as metadata", RUN, TAG)
@answer
def image(request: Request) -> Any:
    tag = text(request, "tag")
    found = experiment(request)
    return {tag: media.image_meta(found.provider, found.id, text(request, "run"), tag)}


@declare("An image as a data URI", RUN, TAG, STEP)
@answer
def image_raw(request: Request) -> Any:
    found = experiment(request)
    return media.image_data_uri(
        found.provider, found.id, text(request, "run"), text(request, "tag"), integer(request, "step")
    )


@declare("The audio clips of a series, as metadata", RUN, TAG)
@answer
def audio(request: Request) -> Any:
    tag = text(request, "tag")
    found = experiment(request)
    return {tag: media.audio_meta(found.provider, found.id, text(request, "run"), tag)}


@declare("An audio clip as a data URI", RUN, TAG, STEP)
@answer
def audio_raw(request: Request) -> Any:
    found = experiment(request)
    return media.audio_data_uri(
        found.provider, found.id, text(request, "run"), text(request, "tag"), integer(request, "step")
    )


@declare("A text series", RUN, TAG)
@answer
def text_series(request: Request) -> Any:
    tag = text(request, "tag")
    found = experiment(request)
    return {tag: media.texts(found.provider, found.id, text(request, "run"), tag)}


@declare("A histogram series", RUN, TAG, SAMPLES)
@answer
def histogram(request: Request) -> Any:
    tag, samples = text(request, "tag"), optional_integer(request, "samples")
    found = experiment(request)
    return {tag: statistics.histogram(found.provider, found.id, text(request, "run"), tag, samples)}


@declare("A distribution series", RUN, TAG, SAMPLES)
@answer
def distribution(request: Request) -> Any:
    tag, samples = text(request, "tag"), optional_integer(request, "samples")
    found = experiment(request)
    return {tag: statistics.distribution(found.provider, found.id, text(request, "run"), tag, samples)}


@declare("The hyperparameters of a run", RUN)
@answer
def hyperparm(request: Request) -> Any:
    found = experiment(request)
    return hyperparams.hyperparameters(found.provider, found.id, text(request, "run"))


@declare("A graph (c_graph or s_graph)", RUN, TAG)
@answer
def model_graph(request: Request) -> Any:
    found = experiment(request)
    return graph.graph(found.provider, found.id, text(request, "run"), text(request, "tag"))


@declare("The embeddings of a tag, as metadata", RUN, TAG)
@answer
def projector_meta(request: Request) -> Any:
    found = experiment(request)
    return projector.meta(found.provider, found.id, run_configs(found), text(request, "run"), text(request, "tag"))


@declare("An embedding at a step", RUN, TAG, STEP)
@answer
def projector_raw(request: Request) -> Any:
    step, found = integer(request, "step"), experiment(request)
    return {
        str(step): projector.raw(
            found.provider, found.id, run_configs(found), text(request, "run"), text(request, "tag"), step
        )
    }


@declare("One sample of an embedding", RUN, TAG, openapi.integer("index", required=True))
@answer
def projector_sample(request: Request) -> Any:
    found, index = experiment(request), integer(request, "index")
    return projector.sample(
        found.provider, found.id, run_configs(found), text(request, "run"), text(request, "tag"), index
    )


@declare(
    "An embedding projected by the server",
    RUN,
    TAG,
    STEP,
    openapi.text("method", required=True, enum=METHODS),
    openapi.integer("dims", minimum=2, maximum=3),
)
@answer
def projector_data(request: Request) -> Any:
    found, step = experiment(request), integer(request, "step")
    dims = optional_integer(request, "dims") or DEFAULT_DIMENSIONS
    where = (text(request, "run"), text(request, "tag"), step)
    method = text(request, "method")
    configs = run_configs(found)
    projected = projector.projection(
        found.provider, found.id, configs, where, method, dims, found.projections, found.max_projection_points
    )
    return {str(step): projected}


@declare("The exception boxes of a tensor series", RUN, TAG)
@answer
def exception_meta(request: Request) -> Any:
    tag = text(request, "tag")
    found = experiment(request)
    return {tag: exception.boxes(found.provider, found.id, text(request, "run"), tag)}


@declare("A tensor at a step as a heat map", RUN, TAG, STEP)
@answer
def exception_data(request: Request) -> Any:
    found = experiment(request)
    step = integer(request, "step")
    return {str(step): exception.heat_map(found.provider, found.id, text(request, "run"), text(request, "tag"), step)}


@declare("A tensor at a step as a histogram", RUN, TAG, STEP)
@answer
def exception_hist(request: Request) -> Any:
    found = experiment(request)
    step = integer(request, "step")
    return {str(step): exception.histogram(found.provider, found.id, text(request, "run"), text(request, "tag"), step)}


@declare(
    "The outliers of a tensor at a step",
    RUN,
    TAG,
    STEP,
    openapi.number("up", required=True),
    openapi.number("down", required=True),
)
@answer
def exception_box(request: Request) -> Any:
    found = experiment(request)
    step = integer(request, "step")
    up, down = number(request, "up"), number(request, "down")
    return {
        str(step): exception.outliers(
            found.provider, found.id, text(request, "run"), text(request, "tag"), step, up, down
        )
    }
