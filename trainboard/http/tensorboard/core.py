"""TensorBoard's core routes: logdir, environment, runs, plugins listing; plus ingest progress."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from trainboard.access.accounts import Accounts
from trainboard.access.roles import Role
from trainboard.http.context import ServedExperiment, experiment
from trainboard.http.guard import principal_of
from trainboard.http.openapi import declare
from trainboard.http.responses import JSONResponse, kept_json
from trainboard.plugins import core


def _location(request: Request, found: ServedExperiment) -> str:
    """Where the experiment's data comes from, a path on the server: on a server with accounts, told to the
    experiment's admins only (others see its name); without, as TensorBoard tells it."""
    metadata = found.provider.experiment_metadata(experiment_id=found.id)
    accounts: Accounts | None = request.app.state.accounts
    if accounts is None or accounts.role(principal_of(request), found.id) == Role.ADMIN:
        return metadata.data_location
    return metadata.experiment_name


@declare("Where the experiment data comes from")
def logdir(request: Request) -> JSONResponse:
    return JSONResponse({"logdir": _location(request, experiment(request))})


@declare("The window title, the data location and the experiment metadata")
def environment(request: Request) -> JSONResponse:
    window_title = request.app.state.settings.window_title
    found = experiment(request)
    answer = core.environment(found.provider, found.id, window_title=window_title)
    return JSONResponse({**answer, "data_location": _location(request, found)})


@declare("The runs, in order of their start")
def runs(request: Request) -> Response:
    found = experiment(request)
    return kept_json(request, found.provider, found.id, "runs", lambda: core.runs(found.provider, found.id))


@declare("The tags of each run by kind, as TensorBoard 1 listed them")
def runs_by_type(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(core.runs_by_type(found.provider, found.id))


@declare("The dashboards and whether each has data")
def plugins_listing(request: Request) -> JSONResponse:
    # The projector's module is imported on its first request (trainboard.http.tensorboard): a dashboard's is this.
    from trainboard.http.tensorboard import projector

    url_prefix = request.scope.get("root_path", "")
    found = experiment(request)
    active = ["projector"] if projector.is_active(found) else []
    return JSONResponse(core.plugins_listing(found.provider, found.id, url_prefix=url_prefix, active=active))


@declare("How far ingest has come, and the generation of the data")
def ingest_progress(request: Request) -> JSONResponse:
    """This process's ingest counters, and the experiment's `generation`, which changes whenever its data does,
    whoever wrote it (another process's ingest, an upload): the web UI fetches again when either moves."""
    found = experiment(request)
    return JSONResponse({**found.progress.as_json(), "generation": found.provider.generation(experiment_id=found.id)})
