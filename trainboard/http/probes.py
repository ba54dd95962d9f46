"""What a load balancer or an orchestrator asks, without a token: `/healthz`, whether the process answers (always
200 while it does), and `/readyz`, whether it can serve: its database answers with this trainboard's migrations and
its blob store answers (200), or not (503). Anyone may ask, so the answers name nothing of the store; why it is not
ready goes to the server's log."""

from __future__ import annotations

import logging

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from trainboard.http.context import Experiments
from trainboard.http.openapi import TEXT, declare
from trainboard.http.policies import Policy, PolicyRoute
from trainboard.http.responses import TextResponse
from trainboard.store.errors import StoreUnavailable

logger = logging.getLogger("trainboard.http")


def _answer(text: str, status_code: int = 200) -> Response:
    response = TextResponse(text, status_code)
    # Asked every few seconds: never from a cache.
    response.headers["Cache-Control"] = "no-store"
    return response


@declare("Whether the process answers: always 200 while it does", returns=TEXT)
async def healthz(request: Request) -> Response:
    return _answer("ok")


@declare("Whether the server can serve: its database and blob store answer (200), or not (503)", returns=TEXT)
async def readyz(request: Request) -> Response:
    experiments: Experiments = request.app.state.experiments
    try:
        await run_in_threadpool(experiments.check)
    except StoreUnavailable as error:
        logger.warning("not ready: %s", error)
        return _answer("not ready: the store does not answer (the server's log says why)", 503)
    return _answer("ready")


def routes() -> list[BaseRoute]:
    """Anyone may ask: the answers hold no data, and a probe has no token."""
    return [PolicyRoute("/healthz", healthz, Policy.ANYONE), PolicyRoute("/readyz", readyz, Policy.ANYONE)]
