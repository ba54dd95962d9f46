"""Handlers of TensorBoard's hparams plugin: the request is JSON, in a POST body or in `?request=` on GET."""

from __future__ import annotations

import json
import threading
import weakref
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.errors import BadRequestError
from trainboard.http import params
from trainboard.http.context import ServedExperiment, experiment
from trainboard.http.message_schemas import message_schema
from trainboard.http.openapi import declare, json_body, json_text, text
from trainboard.http.responses import BytesResponse, JSONResponse, TextResponse
from trainboard.plugins import scalars
from trainboard.plugins.hparams.download import MEDIA_TYPES, download_data
from trainboard.plugins.hparams.experiment import get_experiment
from trainboard.plugins.hparams.memo import Memo, Remember
from trainboard.plugins.hparams.metric_evals import list_metric_evals
from trainboard.plugins.hparams.requests import parse_request
from trainboard.plugins.hparams.session_groups import list_session_groups
from trainboard.plugins.json_depth import check_depth
from trainboard.reader.protos.hparams_pb2 import GetExperimentRequest, ListMetricEvalsRequest, ListSessionGroupsRequest

# Each route's request: JSON in a POST body, or in ?request= on GET.
EXPERIMENT_REQUEST = message_schema(GetExperimentRequest.DESCRIPTOR)
SESSION_GROUPS_REQUEST = message_schema(ListSessionGroupsRequest.DESCRIPTOR)
METRIC_EVALS_REQUEST = message_schema(ListMetricEvalsRequest.DESCRIPTOR)
# Per experiment, what the plugin computed from its data.
_MEMOS: weakref.WeakKeyDictionary[ServedExperiment, Memo] = weakref.WeakKeyDictionary()
_MEMOS_LOCK = threading.Lock()


async def _message(request: Request, message_class: Any) -> Any:
    text = await request.body() if request.method == "POST" else params.optional(request.query_params, "request")
    return parse_request(text, message_class)


def _remember(found: ServedExperiment) -> Remember:
    """Remembering for the experiment's data as it is now, until the store's generation moves on."""
    with _MEMOS_LOCK:
        memo = _MEMOS.setdefault(found, Memo())
    return memo.at(found.provider.generation(experiment_id=found.id))


@declare(
    "The experiment: its hyperparameters and metrics (JSON request in the body, or in ?request= on GET)",
    json_text("request", EXPERIMENT_REQUEST),
    body=json_body(EXPERIMENT_REQUEST),
)
async def experiment_route(request: Request) -> JSONResponse:
    message = await _message(request, GetExperimentRequest)
    found = experiment(request)
    return JSONResponse(await run_in_threadpool(get_experiment, found.provider, found.id, message, _remember(found)))


@declare(
    "The session groups, filtered, sorted and sliced",
    json_text("request", SESSION_GROUPS_REQUEST),
    body=json_body(SESSION_GROUPS_REQUEST),
)
async def session_groups(request: Request) -> JSONResponse:
    message = await _message(request, ListSessionGroupsRequest)
    found = experiment(request)
    return JSONResponse(
        await run_in_threadpool(list_session_groups, found.provider, found.id, message, _remember(found))
    )


@declare(
    "One metric of one session",
    json_text("request", METRIC_EVALS_REQUEST),
    body=json_body(METRIC_EVALS_REQUEST),
)
async def metric_evals(request: Request) -> JSONResponse:
    message = await _message(request, ListMetricEvalsRequest)
    found = experiment(request)
    samples = found.samples(scalars.PLUGIN_NAME, scalars.DEFAULT_SAMPLES)
    return JSONResponse(await run_in_threadpool(list_metric_evals, found.provider, found.id, message, samples=samples))


@declare(
    "The session groups as a table",
    text("format", enum=tuple(MEDIA_TYPES)),
    json_text("columnsVisibility", {"type": "array", "items": {"type": "boolean"}}, required=True),
    json_text("request", SESSION_GROUPS_REQUEST),
    body=json_body(SESSION_GROUPS_REQUEST),
    returns=tuple(MEDIA_TYPES.values()),
)
async def download(request: Request) -> JSONResponse | TextResponse | BytesResponse:
    response_format = params.optional(request.query_params, "format") or ""
    visible = _columns_visibility(params.optional(request.query_params, "columnsVisibility"))
    message = await _message(request, ListSessionGroupsRequest)
    found = experiment(request)
    remember = _remember(found)
    body = await run_in_threadpool(
        lambda: download_data(
            found.provider, found.id, message, response_format=response_format, visible=visible, remember=remember
        )
    )
    if isinstance(body, dict):
        return JSONResponse(body)
    if response_format == "csv":
        return TextResponse(body, media_type=MEDIA_TYPES["csv"])
    return BytesResponse(body.encode(), MEDIA_TYPES[response_format])


def _columns_visibility(raw: str | None) -> list[Any]:
    if raw is None:
        raise BadRequestError("Missing columnsVisibility: a JSON list saying which columns to include")
    check_depth(raw, name="columnsVisibility")
    try:
        visible = json.loads(raw)
    except ValueError:
        raise BadRequestError(f"columnsVisibility is no JSON: {raw[:200]!r}") from None
    if not isinstance(visible, list):
        raise BadRequestError(f"columnsVisibility must be a JSON list, not {raw[:200]!r}")
    return visible
