"""Route handlers imported on their first request (trainboard.http.lazy): a server's start imports neither their
modules nor protobuf, each answers once asked, a request that no route of a module takes imports nothing, and every
handler named in a route's declaration is one of its module."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from starlette.routing import BaseRoute, Mount, Route, Router

from trainboard.access.accounts import Accounts
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.http.lazy import LazyEndpoint
from trainboard.http.openapi import declaration_of
from trainboard.ingest.progress import IngestProgress
from trainboard.ingest.upload import Uploads
from trainboard.provider.provider import DataProvider
from trainboard.settings import Settings
from trainboard.store.opening import open_store

SERVER = """
import json, sys
from starlette.testclient import TestClient
from trainboard.cli import parse_flags
from trainboard.ingest.progress import IngestProgress
from trainboard.wiring import local_app

def imported(*prefixes):
    return sorted(name for name in sys.modules if name.startswith(prefixes))

settings, _ = parse_flags([f"--logdir={sys.argv[1]}", f"--db={sys.argv[2]}"])
app = local_app(settings, IngestProgress())
found = {"at start": imported("google.protobuf", "trainboard.http.tensorboard.")}
with TestClient(app, base_url="http://127.0.0.1") as client:
    found["runs"] = client.get("/data/runs").status_code
    found["scalars"] = client.post("/data/plugin/scalars/scalars_multirun", data={"tag": "x", "runs": []}).status_code
    found["after scalars"] = imported("google.protobuf", "trainboard.reader.protos")
    found["hparams"] = client.get("/data/plugin/hparams/experiment?request={}").status_code
    found["hparams imported"] = "trainboard.http.tensorboard.hparams" in sys.modules
    found["unknown beside lazy routes"] = client.get("/data/plugin/mesh/nothing").status_code
    found["wrong method"] = client.post("/data/plugin/text/tags").status_code
    found["imported by them"] = imported("trainboard.http.tensorboard.mesh", "trainboard.http.tensorboard.text")
print(json.dumps(found))
"""


def test_a_servers_start_imports_no_lazy_module_and_each_answers_when_asked(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    command = [sys.executable, "-c", SERVER, str(tmp_path / "logs"), str(tmp_path / "store.sqlite")]
    found = json.loads(subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout)
    assert found == {
        "at start": ["trainboard.http.tensorboard.core", "trainboard.http.tensorboard.scalars"],
        "runs": 200,
        "scalars": 200,
        "after scalars": [],
        "hparams": 200,
        "hparams imported": True,
        "unknown beside lazy routes": 404,
        "wrong method": 405,
        "imported by them": [],
    }


def lazy_endpoints(routes: list[BaseRoute]) -> Iterator[LazyEndpoint]:
    for route in routes:
        if isinstance(route, Route) and isinstance(route.endpoint, LazyEndpoint):
            yield route.endpoint
        elif isinstance(route, Mount) and isinstance(route.app, Router):
            yield from lazy_endpoints(route.routes)


def test_every_handler_a_route_names_is_a_declared_function_of_its_module(tmp_path: Path) -> None:
    store = open_store(f"sqlite:{tmp_path / 'store.sqlite'}")
    try:
        experiments = Experiments(DataProvider(store), store, progress={}, elsewhere=IngestProgress.finished())
        app = create_app(experiments, Settings(), accounts=Accounts(store.accounts), uploads=Uploads(store))
        endpoints = {(e.module, e.name): e for e in lazy_endpoints(app.routes)}
    finally:
        store.close()
    modules = {module for module, _ in endpoints}
    assert {"trainboard.http.tensorboard.hparams", "trainboard.http.tsvis.api", "trainboard.http.upload"} <= modules
    for (module, name), endpoint in endpoints.items():
        handler = endpoint.handler
        assert inspect.isfunction(handler) and handler.__module__ == module, (module, name)
        assert declaration_of(handler) is not None, (module, name)
