"""Pins: `POST /pins` records an experiment's ingest position now, and under /at/<pin>/ every route of the experiment
answers as of that moment (`trainboard.store.pinned`); the same routes without /at/<pin>/ follow the live data.
`GET /pins/<pin>` says when a pin was made (the web UI's pinned view shows it).

A pin is stored (a row per series of the experiment), so making one needs the write role, each user may have made
`--max_pins_per_user` of them, and the write routes' rate applies (`--upload_rate`). `GET /pins` lists the caller's
pins of the experiment (an admin's: all of them), and `DELETE /pins/<pin>` deletes one, for its creator or an admin;
a pin the caller may not delete is answered as one that does not exist."""

from __future__ import annotations

from collections.abc import Iterable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from trainboard.access.accounts import Accounts
from trainboard.access.audit import Event
from trainboard.access.roles import Role
from trainboard.errors import NoSuchExperiment
from trainboard.http.audit import record
from trainboard.http.context import Experiments
from trainboard.http.guard import principal_of
from trainboard.http.openapi import declare
from trainboard.http.policies import Policy, PolicyRoute, policy_of
from trainboard.http.responses import JSONResponse
from trainboard.store.values import PinRow


@declare("Pin the experiment's data as it is now")
async def create(request: Request) -> JSONResponse:
    """`{"pin": ID, "created": UNIX SECONDS}`: the experiment's position now, to serve under /at/ID/; 409 when the
    caller has made `--max_pins_per_user` pins already."""
    experiments: Experiments = request.app.state.experiments
    principal = principal_of(request)
    creator = None if principal is None else principal.user.id
    if creator is not None:
        most = request.app.state.settings.max_pins_per_user
        if await run_in_threadpool(experiments.pin_count, creator) >= most:
            error = f"you have made {most} pins (--max_pins_per_user): delete some first (DELETE .../pins/<pin>)"
            return JSONResponse({"ok": False, "error": error, "status": 409}, status_code=409)
    pin = await run_in_threadpool(experiments.pin, request.path_params.get("experiment_id", ""), creator)
    await record(request, Event.PIN_CREATE, pin=pin.id)
    return JSONResponse({"pin": pin.id, "created": pin.created})


def _sees_every_pin(request: Request, experiment_id: str) -> bool:
    """An admin of the experiment (or anyone, on a server without accounts) lists and deletes every pin of it."""
    accounts: Accounts | None = request.app.state.accounts
    return accounts is None or accounts.role(principal_of(request), experiment_id) == Role.ADMIN


def _caller_pins(request: Request) -> list[PinRow]:
    experiments: Experiments = request.app.state.experiments
    experiment_id = experiments.get(request.path_params.get("experiment_id", "")).id
    listed = experiments.pins(experiment_id)
    if _sees_every_pin(request, experiment_id):
        return listed
    principal = principal_of(request)
    return [pin for pin in listed if principal is not None and pin.creator == principal.user.id]


@declare("The caller's pins of the experiment (an admin's: all of them)")
async def listing(request: Request) -> JSONResponse:
    """`{"pins": [{"pin": ID, "created": UNIX SECONDS}, ...]}`, oldest first."""
    pins = await run_in_threadpool(_caller_pins, request)
    return JSONResponse({"pins": [{"pin": pin.id, "created": pin.created} for pin in pins]})


@declare("Delete a pin (its creator or an admin)")
async def delete(request: Request) -> JSONResponse:
    """`{"ok": true}`; 404 for a pin the experiment does not have or that the caller may not delete."""
    experiments: Experiments = request.app.state.experiments
    pin_id = request.path_params["pin_id"]

    def delete_if_allowed() -> None:
        if pin_id not in {pin.id for pin in _caller_pins(request)}:
            raise NoSuchExperiment()
        experiments.delete_pin(request.path_params.get("experiment_id", ""), pin_id)

    await run_in_threadpool(delete_if_allowed)
    await record(request, Event.PIN_DELETE, pin=pin_id)
    return JSONResponse({"ok": True})


@declare("When a pin was made")
async def read(request: Request) -> JSONResponse:
    """`{"pin": ID, "created": UNIX SECONDS}` of one of the experiment's pins; 404 for a pin it does not have."""
    experiments: Experiments = request.app.state.experiments
    pin_id = request.path_params["pin_id"]
    created = await run_in_threadpool(experiments.pinned_at, request.path_params.get("experiment_id", ""), pin_id)
    return JSONResponse({"pin": pin_id, "created": created})


def routes() -> list[BaseRoute]:
    # A pin changes nothing of what the experiment shows, but it is stored (one row per series): only who may write
    # the experiment may make one, and list and delete their own.
    return [
        PolicyRoute("/pins", create, Policy.WRITE, methods=["POST"]),
        PolicyRoute("/pins", listing, Policy.WRITE),
        PolicyRoute("/pins/{pin_id}", read, Policy.READ),
        PolicyRoute("/pins/{pin_id}", delete, Policy.WRITE, methods=["DELETE"]),
    ]


def pinned(routes: list[BaseRoute]) -> Mount:
    """An experiment's routes again under /at/{pin}; each answers 404 there for a pin its experiment does not have."""
    _check_pins(routes)
    return Mount("/at/{pin}", routes=routes)


class AtPin:
    """A route's app that, reached under /at/{pin}, first finds the pin (`Experiments.get`) when its policy asks for a
    role on the experiment: such a route must not answer for a pin that does not exist, whether or not its handler
    asks the experiment for anything. A route open to anyone (the UI's pages and files) answers alike for any pin, so
    that it tells nobody which pins exist."""

    def __init__(self, app: ASGIApp, policy: Policy | None) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        params = scope.get("path_params", {})
        needs_role = self.policy is not None and self.policy.role is not None
        if scope["type"] == "http" and "pin" in params and needs_role:
            experiments: Experiments = scope["app"].state.experiments
            await run_in_threadpool(experiments.get, params.get("experiment_id", ""), params["pin"])
        await self.app(scope, receive, send)


def _check_pins(routes: Iterable[BaseRoute]) -> None:
    """Wrap every route's app in an `AtPin`, once however many mounts hold it (the live ones pass straight on)."""
    for route in routes:
        if isinstance(route, Mount) and isinstance(route.app, Router):
            _check_pins(route.routes)
        elif isinstance(route, Route | Mount) and not isinstance(route.app, AtPin):
            route.app = AtPin(route.app, policy_of(route))
