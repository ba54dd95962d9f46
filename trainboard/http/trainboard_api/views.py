"""/data/trainboard/views: the experiment's saved views, each a name and the web UI's state as a JSON object
(`trainboard.store.run_metadata`). Listed and opened (by id, or by name) with the read role; saved, renamed and
deleted with the write role, each recorded in the audit log."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.access.audit import Event
from trainboard.errors import NotFoundError
from trainboard.http.audit import record
from trainboard.http.context import experiment
from trainboard.http.guard import principal_of
from trainboard.http.openapi import declare, json_body
from trainboard.http.responses import JSONResponse
from trainboard.http.trainboard_api.bodies import answers_json_errors, json_object
from trainboard.store.run_metadata import MAX_VIEW_NAME, MAX_VIEW_STATE_BYTES, View, checked_view_name
from trainboard.store.writer import StoreKeeper

NAME = {"type": "string", "minLength": 1, "maxLength": MAX_VIEW_NAME}
SAVE_PROPERTIES: dict[str, object] = {
    "name": NAME,
    "state": {"type": "object", "description": f"The web UI's state; at most {MAX_VIEW_STATE_BYTES} bytes of JSON"},
}
SAVE = {"type": "object", "properties": SAVE_PROPERTIES, "required": ["name", "state"], "additionalProperties": False}
RENAME = {"type": "object", "properties": {"name": NAME}, "required": ["name"], "additionalProperties": False}


def _keeper(request: Request) -> StoreKeeper:
    keeper: StoreKeeper = request.app.state.experiments.keeper
    return keeper


def _no_view(key: str) -> NotFoundError:
    return NotFoundError(f"the experiment has no view {key[:MAX_VIEW_NAME]!r}")


@declare("The experiment's saved views, by name")
async def listing(request: Request) -> JSONResponse:
    """`{"views": [{"id", "name", "created", "updated"}, ...]}`."""
    found = experiment(request)
    views = await run_in_threadpool(_keeper(request).views, found.id)
    return JSONResponse({"views": [view.as_json() for view in views]})


@declare("One saved view with its state, by id or by name")
@answers_json_errors
async def read(request: Request) -> JSONResponse:
    """`{"id", "name", "created", "updated", "state": {...}}`; 404 for a view the experiment does not have."""
    found = experiment(request)
    key = request.path_params["view"]
    view: View | None = await run_in_threadpool(_keeper(request).view, found.id, key)
    if view is None:
        raise _no_view(key)
    return JSONResponse(view.as_json())


@declare("Save the web UI's state as a view (replacing the state of the view of that name)", body=json_body(SAVE))
@answers_json_errors
async def save(request: Request) -> JSONResponse:
    """`{"name": NAME, "state": {...}}`: the answer is the view's `{"ok": true, "id", "name", "created",
    "updated"}`; 400 for a name or a state past its bounds, 409 when the experiment has as many views as it may."""
    body = await json_object(request, frozenset(SAVE_PROPERTIES))
    found = experiment(request)
    principal = principal_of(request)
    creator = None if principal is None else principal.user.id
    name = checked_view_name(body.get("name"))
    saved = await run_in_threadpool(_keeper(request).save_view, found.id, name, body.get("state"), creator)
    await record(request, Event.VIEW_SAVE, view=saved.id, name=saved.name)
    return JSONResponse({"ok": True, **saved.as_json()})


@declare("Rename a saved view", body=json_body(RENAME))
@answers_json_errors
async def rename(request: Request) -> JSONResponse:
    """`{"name": NAME}`; 404 for a view the experiment does not have, 409 when another view has that name."""
    body = await json_object(request, frozenset({"name"}))
    found = experiment(request)
    key = request.path_params["view"]
    name = checked_view_name(body.get("name"))
    renamed = await run_in_threadpool(_keeper(request).rename_view, found.id, key, name)
    if renamed is None:
        raise _no_view(key)
    await record(request, Event.VIEW_RENAME, view=renamed.id, name=renamed.name)
    return JSONResponse({"ok": True, **renamed.as_json()})


@declare("Delete a saved view")
@answers_json_errors
async def delete(request: Request) -> JSONResponse:
    """`{"ok": true}`; 404 for a view the experiment does not have."""
    found = experiment(request)
    key = request.path_params["view"]
    view = await run_in_threadpool(_keeper(request).view, found.id, key)
    if view is None or not await run_in_threadpool(_keeper(request).delete_view, found.id, view.row.id):
        raise _no_view(key)
    await record(request, Event.VIEW_DELETE, view=view.row.id, name=view.row.name)
    return JSONResponse({"ok": True})
