"""An experiment's admin routes under /experiment/<id>/admin/ (`trainboard serve` only): who has access to it; share
it with a user, make it public or private, rename it, delete it (each change recorded in the audit log); read its
audit log. Each answers trainboard's JSON (`ok`, or `error`); those that change something take a JSON object."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import BaseRoute

from trainboard.access.accounts import AccountError, Accounts, NoSuchUser
from trainboard.access.audit import Event
from trainboard.access.roles import ROLE_NAMES, Role
from trainboard.errors import NoSuchExperiment
from trainboard.http.audit import experiment_audit, record
from trainboard.http.context import Experiments
from trainboard.http.openapi import declare, json_body
from trainboard.http.policies import Policy, PolicyRoute
from trainboard.http.responses import JSONResponse


async def json_object(request: Request) -> dict[str, Any]:
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        raise AccountError("the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise AccountError("the request body must be a JSON object")
    return body


def _accounts(request: Request) -> tuple[Accounts, str]:
    return request.app.state.accounts, request.path_params["experiment_id"]


def error_response(error: AccountError) -> JSONResponse:
    return JSONResponse({"ok": False, "error": str(error), "status": error.http_code}, status_code=error.http_code)


@declare("Who has access to the experiment")
async def access(request: Request) -> JSONResponse:
    """`{"owner": NAME | null, "public": bool, "shares": [{"user": NAME, "role": ROLE}]}`."""
    accounts, experiment_id = _accounts(request)
    sharing = await run_in_threadpool(accounts.sharing, experiment_id)
    if sharing is None:
        raise NoSuchExperiment()
    return JSONResponse(
        {
            "owner": sharing.owner,
            "public": sharing.public,
            "shares": [{"user": user, "role": str(role)} for user, role in sharing.shares.items()],
        }
    )


@declare(
    "Give a user a role on the experiment, or take it away",
    body=json_body(
        {
            "type": "object",
            "properties": {"user": {"type": "string"}, "role": {"enum": [*ROLE_NAMES, None]}},
            "required": ["user", "role"],
        }
    ),
)
async def share(request: Request) -> JSONResponse:
    """`{"user": NAME, "role": ROLE | null}`: give the user that role (one of `ROLE_NAMES`), or take it away. The answer
    is the same whether or not a user has that name (nothing changes when none has): it tells nobody who has an
    account."""
    accounts, experiment_id = _accounts(request)
    try:
        body = await json_object(request)
        user, role = body.get("user"), body.get("role")
        if not isinstance(user, str) or not (role is None or isinstance(role, str)):
            raise AccountError(f'expected {{"user": NAME, "role": null or one of {", ".join(ROLE_NAMES)}}}')
        await run_in_threadpool(accounts.share, experiment_id, user, None if role is None else Role.named(role))
    except NoSuchUser:
        pass
    except (AccountError, ValueError) as error:
        return error_response(AccountError(str(error)))
    await record(request, Event.ROLE_CHANGE, target_user=user, role=role)
    return JSONResponse({"ok": True, "user": user, "role": role})


@declare(
    "Whether anyone may read the experiment",
    body=json_body({"type": "object", "properties": {"public": {"type": "boolean"}}, "required": ["public"]}),
)
async def public(request: Request) -> JSONResponse:
    """`{"public": true | false}`: whether anyone may read the experiment, without a token."""
    accounts, experiment_id = _accounts(request)
    try:
        flag = (await json_object(request)).get("public")
        if not isinstance(flag, bool):
            raise AccountError('expected {"public": true | false}')
        await run_in_threadpool(accounts.set_public, experiment_id, flag)
    except AccountError as error:
        return error_response(error)
    await record(request, Event.PUBLISH, public=flag)
    return JSONResponse({"ok": True, "public": flag})


@declare(
    "Rename the experiment",
    body=json_body({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
)
async def rename(request: Request) -> JSONResponse:
    """`{"name": NAME}`: a new name, unless another experiment of its owner has it (409)."""
    accounts, experiment_id = _accounts(request)
    try:
        name = (await json_object(request)).get("name")
        if not isinstance(name, str):
            raise AccountError('expected {"name": NAME}')
        await run_in_threadpool(accounts.rename, experiment_id, name)
    except AccountError as error:
        return error_response(error)
    await record(request, Event.RENAME, name=name)
    return JSONResponse({"ok": True, "name": name})


@declare("Delete the experiment and everything of it")
async def delete(request: Request) -> JSONResponse:
    """Delete the experiment and everything of it (points, blobs, pins, roles); its routes answer 404 after. 409 while
    a process ingests into it."""
    experiments: Experiments = request.app.state.experiments
    if not await run_in_threadpool(experiments.delete, request.path_params["experiment_id"]):
        error = "the experiment is being written by another process (trainboard ingest): stop it first"
        return JSONResponse({"ok": False, "error": error, "status": 409}, status_code=409)
    await record(request, Event.DELETE)
    return JSONResponse({"ok": True})


def routes() -> list[BaseRoute]:
    return [
        PolicyRoute("/admin/access", access, Policy.ADMIN),
        PolicyRoute("/admin/share", share, Policy.ADMIN, methods=["POST"]),
        PolicyRoute("/admin/public", public, Policy.ADMIN, methods=["POST"]),
        PolicyRoute("/admin/rename", rename, Policy.ADMIN, methods=["POST"]),
        PolicyRoute("/admin/delete", delete, Policy.ADMIN, methods=["POST"]),
        PolicyRoute("/admin/audit", experiment_audit, Policy.ADMIN),
    ]
