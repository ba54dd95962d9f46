"""`/data/trainboard/definitions`: the experiment's derived metrics (`trainboard.provider.derived`). GET lists them
(the read role), POST defines one and DELETE removes one (the write role; both recorded in the audit log). Once
defined, a derived metric is a scalar tag of the scalars plugin in every scalar route."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.access.audit import Event
from trainboard.errors import ExpressionError, InvalidArgumentError
from trainboard.expressions.syntax import MAX_LENGTH
from trainboard.http import params
from trainboard.http.audit import record
from trainboard.http.context import experiment
from trainboard.http.openapi import declare, json_body, text
from trainboard.http.responses import JSONResponse
from trainboard.provider.derived import ALIGNMENTS, MAX_NAME_LENGTH
from trainboard.store.values import Definition

# A definition's body: room for an expression well over its bound, so that most refusals say where the text went on
# too long.
MAX_BODY_BYTES = 256 * 1024
_DEFINITION = {
    "type": "object",
    "required": ["name", "expression"],
    "properties": {
        "name": {"type": "string", "maxLength": MAX_NAME_LENGTH},
        "expression": {"type": "string", "maxLength": MAX_LENGTH},
        "align": {"type": "string", "enum": list(ALIGNMENTS)},
    },
}


@declare("The experiment's derived metrics")
async def listing(request: Request) -> JSONResponse:
    """`{"definitions": [{"name": NAME, "expression": TEXT, "align": "exact" | "asof"}, ...]}`, by name."""
    found = experiment(request)
    definitions = await run_in_threadpool(found.provider.definitions, experiment_id=found.id)
    return JSONResponse({"definitions": [_json(definition) for definition in definitions]})


@declare("Define a derived metric (or replace the one of that name)", body=json_body(_DEFINITION))
async def define(request: Request) -> JSONResponse:
    """The definition as stored; a 400 for an expression that cannot be computed, with `position`: the character
    (from 0) at fault."""
    body = await _body(request)
    found = experiment(request)
    try:
        definition = await run_in_threadpool(
            found.provider.define,
            experiment_id=found.id,
            name=_text(body, "name"),
            expression=_text(body, "expression"),
            align=_text(body, "align", "exact"),
        )
    except ExpressionError as error:
        content = {"ok": False, "error": str(error), "position": error.position, "status": error.http_code}
        return JSONResponse(content, status_code=error.http_code)
    await record(request, Event.DEFINE, experiment_id=found.id, **_json(definition))
    return JSONResponse(_json(definition))


@declare("Remove a derived metric", text("name", required=True, max_length=MAX_NAME_LENGTH))
async def undefine(request: Request) -> JSONResponse:
    """`{"ok": true}`; 404 when the experiment has no derived metric of that name."""
    found = experiment(request)
    name = params.required(request.query_params, "name")
    await run_in_threadpool(found.provider.undefine, experiment_id=found.id, name=name)
    await record(request, Event.UNDEFINE, experiment_id=found.id, name=name)
    return JSONResponse({"ok": True})


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise InvalidArgumentError(f"a definition's body is at most {MAX_BODY_BYTES:,} bytes")
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        body = None
    if not isinstance(body, dict):
        raise InvalidArgumentError('the body must be a JSON object: {"name": ..., "expression": ..., "align": ...}')
    return body


def _text(body: dict[str, Any], key: str, default: str | None = None) -> str:
    value = body.get(key, default)
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{key} must be a string")
    return value


def _json(definition: Definition) -> dict[str, str]:
    return {"name": definition.name, "expression": definition.expression, "align": definition.align}
