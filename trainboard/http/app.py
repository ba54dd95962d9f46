"""`create_app(experiments, settings)`: the ASGI app serving the experiments it is given; it builds nothing else."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount

from trainboard.access.accounts import Accounts
from trainboard.access.audit import AuditLog
from trainboard.access.single_sign_on import SingleSignOn
from trainboard.errors import PublicError
from trainboard.http import admin, pins, probes, sessions, tensorboard, token_page, trainboard_api, tsvis
from trainboard.http.compression import PARQUET, IsalGZipMiddleware
from trainboard.http.context import Experiments
from trainboard.http.experiments import create_experiment, list_experiments
from trainboard.http.guard import AUTHENTICATE, guard
from trainboard.http.hosts import AllowedHosts, CheckHost
from trainboard.http.lazy import LazyEndpoint
from trainboard.http.limits import LimitBodySize
from trainboard.http.openapi import openapi_json
from trainboard.http.policies import Policy, PolicyRoute
from trainboard.http.rate_limit import RateLimit
from trainboard.http.responses import TextResponse
from trainboard.http.throttle import FailureThrottle
from trainboard.http.ui import index_page, tensorboard_ui, tsvis_ui
from trainboard.settings import Settings

if TYPE_CHECKING:
    from trainboard.http.metrics import Metrics
    from trainboard.ingest.upload import Uploads

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[None]]


def create_app(
    experiments: Experiments,
    settings: Settings,
    *,
    lifespan: Lifespan | None = None,
    accounts: Accounts | None = None,
    uploads: Uploads | None = None,
    audit: AuditLog | None = None,
    sso: SingleSignOn | None = None,
    metrics: Metrics | None = None,
) -> Starlette:
    """Every TensorBoard and TS-VIS route at / for the default experiment and under /experiment/<id>/ for each one,
    and all of them again below .../at/<pin>/ as of a pin; `lifespan` starts and stops what the caller built (ingest,
    the store). With `accounts`, every route answers only the requests its policy allows (`trainboard.http.guard`),
    browsers sign in (`trainboard.http.sessions`), experiments are created at /data/experiments, and each experiment
    has its admin routes; with `sso` too, browsers sign in with the identity provider (`trainboard.http.oidc`). With
    `uploads`, each experiment takes uploads (`trainboard.http.upload`). With `audit`, what users do is recorded in it
    (`trainboard.http.audit`). With `metrics`, every request is counted (`trainboard.http.metrics`). /openapi.json
    describes every route (`trainboard.http.openapi`); /healthz and /readyz answer probes (`trainboard.http.probes`)."""
    pages = {
        "tensorboard": lambda: tensorboard_ui.routes(settings.path_prefix),
        "tsvis": tsvis_ui.routes,
        "trainboard": index_page.routes,
    }[settings.ui]()
    api: list[BaseRoute] = [
        PolicyRoute("/data/experiments", list_experiments, Policy.SIGNED_IN),
        *tensorboard.routes(),
        *trainboard_api.routes(),
        *tsvis.routes(),
    ]
    # TensorBoard's UI served at /experiment/<id>/ asks for experiment/defaultExperimentId/... below it: that id.
    per_experiment: list[BaseRoute] = [*api, Mount("/experiment/defaultExperimentId", routes=api), *pages]
    # The same routes as of a pin, below .../at/<pin>/.
    pinning = [pins.pinned(per_experiment), *pins.routes()]
    # Run metadata and saved views are written live only: no write below /at/<pin>/.
    writing = trainboard_api.writing_routes()
    scoped = [
        *per_experiment,
        *pinning,
        *writing,
        *(admin.routes() if accounts is not None else []),
        *(_upload_routes() if uploads is not None else []),
    ]
    # Experiments are created by users with accounts, or by anyone where anyone may upload (--no_auth).
    creating = accounts is not None or uploads is not None
    creation = PolicyRoute("/data/experiments", create_experiment, Policy.SIGNED_IN, methods=["POST"])
    root = [*api, creation] if creating else api
    routes: list[BaseRoute] = [
        Mount("/experiment/{experiment_id}", routes=scoped),
        # It describes the routes, and holds no data.
        PolicyRoute("/openapi.json", openapi_json, Policy.ANYONE),
        *probes.routes(),
        *root,
        *sessions.routes(accounts, single_sign_on=sso is not None),
        *(token_page.routes() if accounts is not None else []),
        *pages,
        *pinning,
        *writing,
    ]
    if accounts is not None:
        guard(routes)
    if settings.path_prefix.strip("/"):
        routes = [Mount("/" + settings.path_prefix.strip("/"), routes=routes)]
    counting: list[Middleware] = []
    if metrics is not None:
        # prometheus-client comes with it: imported only where metrics are served. Counted first, so that refusals
        # are counted too.
        from trainboard.http.metrics import CountRequests

        counting.append(Middleware(CountRequests, metrics=metrics))
    app = Starlette(
        routes=routes,
        # Gzip (trainboard.http.compression), but not on Parquet: it is compressed already.
        middleware=[
            *counting,
            Middleware(CheckHost, allowed=AllowedHosts(settings)),
            Middleware(LimitBodySize),
            Middleware(IsalGZipMiddleware, exclude_content_types=(*DEFAULT_EXCLUDED_CONTENT_TYPES, PARQUET)),
        ],
        exception_handlers={PublicError: _public_error, 404: _not_found},
        lifespan=lifespan,
    )
    app.state.experiments = experiments
    app.state.settings = settings
    app.state.accounts = accounts
    app.state.sso = sso
    app.state.uploads = uploads
    app.state.upload_limit = RateLimit(settings.upload_rate, settings.upload_burst)
    app.state.audit = audit
    app.state.auth_throttle = FailureThrottle(settings.auth_failure_rate, settings.auth_failure_burst)
    return app


def _upload_routes() -> list[BaseRoute]:
    """`trainboard upload`'s routes, their module imported on the first upload (`trainboard.http.lazy`)."""

    def handler(name: str) -> LazyEndpoint:
        return LazyEndpoint("trainboard.http.upload", name)

    return [
        PolicyRoute("/upload/files", handler("files"), Policy.WRITE),
        PolicyRoute("/upload/file", handler("file"), Policy.WRITE, methods=["POST"]),
        PolicyRoute("/upload/forget", handler("forget"), Policy.WRITE, methods=["POST"]),
    ]


async def _not_found(request: Request, exc: Exception) -> Response:
    """An unknown path, worded as TensorBoard words it."""
    return TextResponse("Not found", status_code=404)


async def _public_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, PublicError)
    response = TextResponse(str(exc), status_code=exc.http_code)
    if exc.http_code == 401:
        response.headers["WWW-Authenticate"] = AUTHENTICATE
    if exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response
