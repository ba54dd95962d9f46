"""TensorBoard's core routes: logdir, environment, experiments, runs, plugins listing; plus ingest progress."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from trainboard.http.context import experiment
from trainboard.http.responses import JSONResponse
from trainboard.http.tensorboard import projector
from trainboard.plugins import core


def logdir(request: Request) -> JSONResponse:
    return JSONResponse({"logdir": experiment(request).provider.experiment_metadata().data_location})


def environment(request: Request) -> JSONResponse:
    window_title = request.app.state.settings.window_title
    return JSONResponse(core.environment(experiment(request).provider, window_title=window_title))


def experiments(request: Request) -> JSONResponse:
    return JSONResponse([])


def runs(request: Request) -> JSONResponse:
    return JSONResponse(core.runs(experiment(request).provider))


def runs_by_type(request: Request) -> JSONResponse:
    return JSONResponse(core.runs_by_type(experiment(request).provider))


def plugins_listing(request: Request) -> JSONResponse:
    url_prefix = request.scope.get("root_path", "")
    found = experiment(request)
    active = ["projector"] if projector.is_active(found) else []
    return JSONResponse(core.plugins_listing(found.provider, url_prefix=url_prefix, active=active))


def ingest_progress(request: Request) -> JSONResponse:
    return JSONResponse(experiment(request).progress.as_json())


def routes() -> list[BaseRoute]:
    return [
        Route("/data/logdir", logdir),
        Route("/data/environment", environment),
        Route("/data/experiments", experiments),
        Route("/data/runs", runs),
        Route("/data/runs_by_type", runs_by_type),
        Route("/data/plugins_listing", plugins_listing),
        Route("/data/ingest_progress", ingest_progress),
    ]
