"""Route modules imported on their first request (trainboard.http.lazy): a server's start imports neither them nor
protobuf, each answers once asked, and every route of theirs lies below the paths declared for it."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.routing import Route

from trainboard.http import tensorboard, trainboard_api, tsvis

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
    found["unknown below a lazy prefix"] = client.get("/data/plugin/hparams/nothing").status_code
    found["wrong method"] = client.post("/data/plugin/text/tags").status_code
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
        "unknown below a lazy prefix": 404,
        "wrong method": 405,
    }


@pytest.mark.parametrize(
    ("package", "module", "prefixes"),
    [
        (package.__name__, module, prefixes)
        for package in (tensorboard, trainboard_api, tsvis)
        for module, prefixes in package.ON_FIRST_REQUEST.items()
    ],
)
def test_every_route_of_a_lazy_module_lies_below_its_declared_paths(
    package: str, module: str, prefixes: tuple[str, ...]
) -> None:
    routes = importlib.import_module(f"{package}.{module}").routes()
    assert routes
    for route in routes:
        assert isinstance(route, Route) and route.path.startswith(prefixes), route
