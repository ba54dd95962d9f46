"""`/data/experiments`: `GET` lists the experiments a request may read; `POST` (`trainboard serve` with accounts)
creates one owned by the caller."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.access.accounts import AccountError, Accounts, experiment_name
from trainboard.access.audit import Event
from trainboard.access.roles import Role
from trainboard.http.admin import error_response, json_object
from trainboard.http.audit import record
from trainboard.http.context import Experiments
from trainboard.http.guard import principal_of
from trainboard.http.openapi import declare, json_body
from trainboard.http.responses import JSONResponse

if TYPE_CHECKING:
    from trainboard.ingest.upload import Uploads


@declare("The experiments the request may read, newest update first")
def list_experiments(request: Request) -> JSONResponse:
    """The store's experiments that the request may read, newest update first (TensorBoard's fields `id`, `name`,
    `startTime`, and more); with accounts, the caller's `role` on each, whether it is `public` and whether the caller
    `owned` it (names are unique per owner: `trainboard.store.experiment_names`) and its `owner`'s name (null for
    one ingested without an owner). Without accounts, null, false, false and null: there is no access control at
    all."""
    experiments: Experiments = request.app.state.experiments
    listed = sorted(experiments.provider.list_experiments(), key=lambda e: e.last_update, reverse=True)
    accounts: Accounts | None = request.app.state.accounts
    roles: dict[str, Role] = {}
    public: set[str] = set()
    owned: set[str] = set()
    owners: dict[str, str] = {}
    if accounts is not None:
        principal = principal_of(request)
        roles, public, owned = accounts.roles(principal), accounts.public(), accounts.owned(principal)
        owners = accounts.owners()
        listed = [e for e in listed if e.experiment_id in roles]
    return JSONResponse(
        [
            {
                "id": e.experiment_id,
                "name": e.name,
                "description": e.description,
                "startTime": e.creation_time,
                "lastUpdate": e.last_update,
                "runCount": e.run_count,
                "default": e.experiment_id == experiments.default,
                "role": str(roles[e.experiment_id]) if e.experiment_id in roles else None,
                "public": e.experiment_id in public,
                "owned": e.experiment_id in owned,
                "owner": owners.get(e.experiment_id),
            }
            for e in listed
        ]
    )


@declare(
    "A new, empty experiment owned by the caller",
    body=json_body(
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "description": {"type": "string"}},
            "required": ["name"],
        }
    ),
)
async def create_experiment(request: Request) -> JSONResponse:
    """`{"name": NAME, "description": TEXT}`: a new, empty experiment owned by the caller: 201 with its id; 409 when
    the caller has an experiment of that name (other users' names are neither refused nor told); 403 for a token
    limited to one experiment. Without accounts (`trainboard serve --no_auth`),
    for anyone, and the experiment of that name when it exists."""
    accounts: Accounts | None = request.app.state.accounts
    try:
        body = await json_object(request)
        name, description = body.get("name"), body.get("description", "")
        if not isinstance(name, str) or not isinstance(description, str):
            raise AccountError('expected {"name": NAME, "description": TEXT}')
        if accounts is None:
            uploads: Uploads = request.app.state.uploads
            experiment_id = (await run_in_threadpool(uploads.create_experiment, experiment_name(name), description)).id
        else:
            principal = principal_of(request)
            assert principal is not None  # the route's policy: signed in
            experiment_id = await run_in_threadpool(accounts.create_experiment, principal, name, description)
    except AccountError as error:
        return error_response(error)
    await record(request, Event.EXPERIMENT_CREATE, experiment_id=experiment_id, name=name)
    return JSONResponse(
        {"ok": True, "id": experiment_id, "name": name, "description": description, "role": "admin", "public": False},
        status_code=201,
    )
