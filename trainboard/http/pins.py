"""Pins: `POST /pins` records an experiment's ingest position now, and under /at/<pin>/ every route of the experiment
answers as of that moment (`trainboard.store.pinned`); the same routes without /at/<pin>/ follow the live data.
`GET /pins/<pin>` says when a pin was made (the web UI's pinned view shows it)."""

from __future__ import annotations

from collections.abc import Iterable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from trainboard.access.audit import Event
from trainboard.http.audit import record
from trainboard.http.context import Experiments
from trainboard.http.openapi import declare
from trainboard.http.policies import Policy, PolicyRoute
from trainboard.http.responses import JSONResponse


@declare("Pin the experiment's data as it is now")
async def create(request: Request) -> JSONResponse:
    """`{"pin": ID, "created": UNIX SECONDS}`: the experiment's position now, to serve under /at/ID/."""
    experiments: Experiments = request.app.state.experiments
    pin = await run_in_threadpool(experiments.pin, request.path_params.get("experiment_id", ""))
    await record(request, Event.PIN_CREATE, pin=pin.id)
    return JSONResponse({"pin": pin.id, "created": pin.created})


@declare("When a pin was made")
async def read(request: Request) -> JSONResponse:
    """`{"pin": ID, "created": UNIX SECONDS}` of one of the experiment's pins; 404 for a pin it does not have."""
    experiments: Experiments = request.app.state.experiments
    pin_id = request.path_params["pin_id"]
    created = await run_in_threadpool(experiments.pinned_at, request.path_params.get("experiment_id", ""), pin_id)
    return JSONResponse({"pin": pin_id, "created": created})


def routes() -> list[BaseRoute]:
    # Anyone who may read an experiment may pin it: a pin changes nothing of what it shows.
    return [
        PolicyRoute("/pins", create, Policy.READ, methods=["POST"]),
        PolicyRoute("/pins/{pin_id}", read, Policy.READ),
    ]


def pinned(routes: list[BaseRoute]) -> Mount:
    """An experiment's routes again under /at/{pin}; each answers 404 there for a pin its experiment does not have."""
    _check_pins(routes)
    return Mount("/at/{pin}", routes=routes)


class AtPin:
    """A route's app that, reached under /at/{pin}, first finds the pin (`Experiments.get`): the UI's pages and files
    do not ask the experiment for anything, and must not answer for a pin that does not exist either."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        params = scope.get("path_params", {})
        if scope["type"] == "http" and "pin" in params:
            experiments: Experiments = scope["app"].state.experiments
            await run_in_threadpool(experiments.get, params.get("experiment_id", ""), params["pin"])
        await self.app(scope, receive, send)


def _check_pins(routes: Iterable[BaseRoute]) -> None:
    """Wrap every route's app in an `AtPin`, once however many mounts hold it (the live ones pass straight on)."""
    for route in routes:
        if isinstance(route, Mount) and isinstance(route.app, Router):
            _check_pins(route.routes)
        elif isinstance(route, Route | Mount) and not isinstance(route.app, AtPin):
            route.app = AtPin(route.app)
