"""/openapi.json describes every route the app serves, at each of its paths, with the bounds the code enforces."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.routing import Route

from tests.http.test_route_policies import PINNED, SCOPE, Listed, walk
from trainboard.access.accounts import Accounts
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.http.openapi import document
from trainboard.http.params import MAX_PARAM_LENGTH
from trainboard.ingest.progress import IngestProgress
from trainboard.ingest.upload import Uploads
from trainboard.provider.provider import DataProvider
from trainboard.settings import Settings
from trainboard.store.opening import open_store


def served(db: str, ui: str) -> tuple[dict[str, Any], list[Listed]]:
    """The document of the app `trainboard serve` runs (the live servers of test_generated_requests serve it), and its
    routes, found by walking it as the route-policy test does."""
    store = open_store(db)
    try:
        experiments = Experiments(DataProvider(store), store, progress={}, elsewhere=IngestProgress.finished())
        app = create_app(experiments, Settings(ui=ui), accounts=Accounts(store.accounts), uploads=Uploads(store))
        return document(app.routes), sorted(set(walk(app.routes, scoped=False)))
    finally:
        store.close()


def template(path: str) -> re.Pattern[str]:
    """A document path as a pattern of the paths it stands for ({path}: a file's path below a folder)."""
    pattern = re.escape(path).replace(re.escape("{path}"), ".+")
    return re.compile("^" + re.sub(r"\\\{[^/]*?\\\}", "[^/]+", pattern) + "$")


@pytest.mark.parametrize("ui", ["trainboard", "tensorboard", "tsvis"])
def test_every_route_of_the_app_is_in_the_document(ui: str, tmp_path: Path) -> None:
    found, routes = served(f"sqlite:{tmp_path / 'store.sqlite'}", ui)
    assert found["openapi"] == "3.1.0"
    paths = found["paths"]
    patterns = [(template(path), methods) for path, methods in paths.items()]
    assert len(routes) > 100
    missing = []
    for route in routes:
        full = (SCOPE if route.scoped else "") + route.pinned + route.path
        if not any(pattern.match(full) and route.method.lower() in methods for pattern, methods in patterns):
            missing.append(f"{route.method} {full}")
    assert missing == []
    # The document's own route, TS-VIS's lazily mounted ones, and the forms of an experiment's routes.
    for path in (
        "/openapi.json",
        "/api/scalar",
        f"{SCOPE}/data/runs",
        f"{SCOPE}{PINNED}/api/scalar",
        "/at/{pin}/",
        f"{SCOPE}/upload/file",
        f"{SCOPE}/admin/share",
    ):
        assert path in paths, path


def test_parameters_carry_their_types_and_bounds(tmp_path: Path) -> None:
    paths = served(f"sqlite:{tmp_path / 'store.sqlite'}", "trainboard")[0]["paths"]
    scalars = {p["name"]: p for p in paths["/data/plugin/scalars/scalars"]["get"]["parameters"]}
    assert scalars["run"] == {
        "name": "run",
        "in": "query",
        "required": True,
        "schema": {"type": "string", "maxLength": MAX_PARAM_LENGTH},
    }
    assert scalars["format"]["schema"]["enum"] == ["csv", "json"]
    images = {p["name"]: p for p in paths["/data/plugin/images/images"]["get"]["parameters"]}
    assert images["sample"]["schema"]["minimum"] == 0
    session_groups = paths["/data/plugin/hparams/session_groups"]
    assert set(session_groups) == {"get", "post"}
    body = session_groups["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["colParams"]["items"]["properties"]["order"]["enum"] == [
        "ORDER_UNSPECIFIED",
        "ORDER_ASC",
        "ORDER_DESC",
    ]
    pinned = paths["/experiment/{experiment_id}/at/{pin}/data/runs"]["get"]["parameters"]
    assert [(p["name"], p["in"]) for p in pinned] == [("experiment_id", "path"), ("pin", "path")]
    assert paths["/data/plugin/mesh/data"]["get"]["responses"]["200"]["content"] == {"arraybuffer": {}}


def test_a_route_without_a_declaration_is_an_error() -> None:
    def undeclared(request: Request) -> None:
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="/data/new has no OpenAPI declaration"):
        document([Route("/data/new", undeclared)])
