"""Recording a request's events in the audit log (`trainboard.access.audit`), and an experiment's audit log for its
admins: `GET /experiment/<id>/admin/audit?since=&user=&before=&limit=`, newest first, in pages.

`record(request, event, ...)` is what a route calls: the actor is the request's (its user and token, client address
and user agent) unless given; the experiment the one its URL names unless given. Nothing is recorded where the app
keeps no audit log (`trainboard --logdir`).
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request

from trainboard.access.audit import Actor, AuditLog, Event, detail_of
from trainboard.http import params
from trainboard.http.openapi import declare, integer, text
from trainboard.http.principal import principal_of
from trainboard.http.responses import JSONResponse
from trainboard.store.audit import AuditQuery, AuditRow

# A page of the admin route: `limit` events at most.
DEFAULT_PAGE = 100
MAX_PAGE = 1000


def client_of(connection: HTTPConnection) -> str | None:
    """The client's address: the proxy's forwarded one where uvicorn trusts the proxy (FORWARDED_ALLOW_IPS)."""
    return None if connection.client is None else connection.client.host


def actor_of(connection: HTTPConnection, *, user: str | None = None, token_id: str | None = None) -> Actor:
    """The request's actor: `user` and `token_id` when given, else the request's principal's."""
    principal = principal_of(connection)
    if user is None and token_id is None and principal is not None:
        user, token_id = principal.user.name, principal.token.id
    return Actor(user, token_id, client_of(connection), connection.headers.get("user-agent"))


async def record(
    connection: HTTPConnection,
    event: Event,
    *,
    user: str | None = None,
    token_id: str | None = None,
    experiment_id: str | None = None,
    target_user: str | None = None,
    **detail: object,
) -> None:
    """Record `event` of this request (see the module's docstring); `detail` holds JSON values, never a secret."""
    audit: AuditLog | None = connection.app.state.audit
    if audit is None:
        return
    actor = actor_of(connection, user=user, token_id=token_id)
    experiment_id = experiment_id or connection.path_params.get("experiment_id") or None
    await run_in_threadpool(audit.record, event, actor, experiment_id=experiment_id, target_user=target_user, **detail)


def as_json(row: AuditRow) -> dict[str, object]:
    return {
        "id": row.id,
        "time": row.at,
        "event": row.event,
        "user": row.user,
        "token": row.token_id,
        "experiment": row.experiment_id,
        "target_user": row.target_user,
        "client": row.client,
        "user_agent": row.user_agent,
        "detail": detail_of(row),
    }


@declare(
    "The experiment's audit log, newest first, in pages",
    integer("since", minimum=0),
    text("user"),
    integer("before", minimum=1),
    integer("limit", minimum=1, maximum=MAX_PAGE),
)
async def experiment_audit(request: Request) -> JSONResponse:
    """`{"events": [...], "next": ID | null}`: the experiment's events since `since` (Unix seconds), of `user` (who
    did it, or whom it is about), below the id `before` (the `next` of the page before), `limit` at most (100 by
    default, 1000 at most)."""
    query = request.query_params
    limit = min(params.integer(query, "limit", DEFAULT_PAGE, minimum=1) or DEFAULT_PAGE, MAX_PAGE)
    wanted = AuditQuery(
        since=params.integer(query, "since", minimum=0),
        user=params.optional(query, "user"),
        experiment_id=request.path_params["experiment_id"],
        before=params.integer(query, "before", minimum=1),
        limit=limit,
    )
    audit: AuditLog = request.app.state.audit
    rows = await run_in_threadpool(audit.events, wanted)
    following = rows[-1].id if len(rows) == limit else None
    return JSONResponse({"events": [as_json(row) for row in rows], "next": following})
