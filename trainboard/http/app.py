"""`create_app(experiments, settings)`: the ASGI app serving the experiments it is given; it builds nothing else."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route

from trainboard.access.accounts import Accounts
from trainboard.errors import PublicError
from trainboard.http import admin, tensorboard, tsvis, upload
from trainboard.http.context import Experiments
from trainboard.http.guard import AUTHENTICATE, guard, principal_of
from trainboard.http.hosts import AllowedHosts, CheckHost
from trainboard.http.limits import LimitBodySize
from trainboard.http.responses import JSONResponse, TextResponse
from trainboard.http.ui import index_page, tensorboard_ui, tsvis_ui
from trainboard.ingest.upload import Uploads
from trainboard.settings import Settings

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[None]]


def create_app(
    experiments: Experiments,
    settings: Settings,
    *,
    lifespan: Lifespan | None = None,
    accounts: Accounts | None = None,
    uploads: Uploads | None = None,
) -> Starlette:
    """Every TensorBoard and TS-VIS route at / for the default experiment and under /experiment/<id>/ for each one;
    `lifespan` starts and stops what the caller built (ingest, the store). With `accounts`, every route answers only
    the requests its policy allows (`trainboard.http.guard`), and each experiment has its admin routes. With
    `uploads`, each experiment takes uploads (`trainboard.http.upload`)."""
    pages = {
        "tensorboard": lambda: tensorboard_ui.routes(settings.path_prefix),
        "tsvis": tsvis_ui.routes,
        "trainboard": index_page.routes,
    }[settings.ui]()
    api: list[BaseRoute] = [Route("/data/experiments", list_experiments), *tensorboard.routes(), *tsvis.routes()]
    # TensorBoard's UI served at /experiment/<id>/ asks for experiment/defaultExperimentId/... below it: that id.
    per_experiment: list[BaseRoute] = [*api, Mount("/experiment/defaultExperimentId", routes=api), *pages]
    scoped = [
        *per_experiment,
        *(admin.routes() if accounts is not None else []),
        *(upload.routes() if uploads is not None else []),
    ]
    routes: list[BaseRoute] = [Mount("/experiment/{experiment_id}", routes=scoped), *api, *pages]
    if accounts is not None:
        guard(routes)
    if settings.path_prefix.strip("/"):
        routes = [Mount("/" + settings.path_prefix.strip("/"), routes=routes)]
    app = Starlette(
        routes=routes,
        # Level 1: on the JSON of numbers most routes serve, as small as TensorBoard's level 3 (a 1,000-point scalar
        # series: 17.9 KB against 18.1 KB) at 60% of its cost per response.
        middleware=[
            Middleware(CheckHost, allowed=AllowedHosts(settings)),
            Middleware(LimitBodySize),
            Middleware(GZipMiddleware, minimum_size=1024, compresslevel=1),
        ],
        exception_handlers={PublicError: _public_error, 404: _not_found},
        lifespan=lifespan,
    )
    app.state.experiments = experiments
    app.state.settings = settings
    app.state.accounts = accounts
    app.state.uploads = uploads
    return app


def list_experiments(request: Request) -> JSONResponse:
    """The store's experiments that the request may read, newest update first (TensorBoard's fields `id`, `name`,
    `startTime`, and more)."""
    experiments: Experiments = request.app.state.experiments
    listed = sorted(experiments.provider.list_experiments(), key=lambda e: e.last_update, reverse=True)
    accounts: Accounts | None = request.app.state.accounts
    if accounts is not None:
        readable = accounts.readable(principal_of(request))
        listed = [e for e in listed if e.experiment_id in readable]
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
            }
            for e in listed
        ]
    )


async def _not_found(request: Request, exc: Exception) -> Response:
    """An unknown path, worded as TensorBoard words it."""
    return TextResponse("Not found", status_code=404)


async def _public_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, PublicError)
    response = TextResponse(str(exc), status_code=exc.http_code)
    if exc.http_code == 401:
        response.headers["WWW-Authenticate"] = AUTHENTICATE
    return response
