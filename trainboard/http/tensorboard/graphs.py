"""Handlers of TensorBoard's graphs plugin."""

from __future__ import annotations

from starlette.requests import Request

from trainboard.errors import BadRequestError, InvalidArgumentError
from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import RUN, TAG, boolean, declare, integer, text
from trainboard.http.responses import JSONResponse, TextResponse
from trainboard.plugins import graphs

PBTXT = "text/x-protobuf"


@declare("The runs and tags that hold graphs")
def info(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(graphs.info(found.provider, found.id))


@declare("The runs that hold graphs")
def runs(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(graphs.runs_with_graphs(found.provider, found.id))


@declare(
    "A graph as pbtxt",
    RUN,
    text("tag"),
    integer("limit_attr_size"),
    text("large_attrs_key"),
    boolean("conceptual"),
    returns=PBTXT,
)
def graph(request: Request) -> TextResponse:
    query = request.query_params
    if query.get("conceptual") == "true":
        raise InvalidArgumentError("conceptual (Keras model) graphs are not supported yet")
    if "run" not in query:
        raise BadRequestError('query parameter "run" is required')
    try:
        limit = params.integer(query, "limit_attr_size")
    except InvalidArgumentError:
        raise BadRequestError("query parameter `limit_attr_size` must be an integer") from None
    found = experiment(request)
    body = graphs.graph(
        found.provider,
        found.id,
        run=params.required(query, "run"),
        tag=params.optional(query, "tag"),
        limit_attr_size=limit,
        large_attrs_key=params.optional(query, "large_attrs_key"),
    )
    return TextResponse(body, media_type=PBTXT)


@declare("A run metadata record as pbtxt", RUN, TAG, returns=PBTXT)
def run_metadata(request: Request) -> TextResponse:
    query = request.query_params
    run, tag = params.required(query, "run"), params.required(query, "tag")
    found = experiment(request)
    return TextResponse(graphs.run_metadata(found.provider, found.id, run=run, tag=tag), media_type=PBTXT)
