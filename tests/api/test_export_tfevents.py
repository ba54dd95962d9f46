"""`trainboard export --format tfevents`: the real TensorBoard serving the export of the full logdir (torch's,
tensorboardX's and tensorboard's writers) answers the differential suite's routes of scalars, histograms,
distributions, images, audio, text, graphs, PR curves, custom scalars and hparams as it does on the original."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pandas as pd
import pytest

import trainboard
from tests.differential.compare import answer_difference
from tests.differential.routes import ROUTES, Listing, Route
from tests.differential.test_routes import without_ignored_keys
from tests.servers import Server, tensorboard_server
from trainboard.api.tfevents import EVENT_FILE

pytestmark = pytest.mark.differential

COVERED = (
    "scalars/",
    "histograms/",
    "distributions/",
    "images/",
    "audio/",
    "text/",
    "graphs/",
    "pr_curves/",
    "custom_scalars/",
    "hparams/",
)
REPORTED = 10


@pytest.fixture(scope="module")
def exported(full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    scratch = tmp_path_factory.mktemp("tfevents")
    command = [
        sys.executable,
        "-m",
        "trainboard",
        "export",
        f"--logdir={full_logdir}",
        f"--db={scratch / 'store.sqlite'}",
        "--format=tfevents",
        f"--out={scratch / 'export'}",
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    return scratch / "export"


@pytest.fixture(scope="module")
def exported_tensorboard(exported: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with tensorboard_server(exported, tmp_path_factory.mktemp("tensorboard-export")) as server:
        yield server


@pytest.fixture(scope="module")
def clients(full_tensorboard: Server, exported_tensorboard: Server) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    with (
        httpx.Client(base_url=full_tensorboard.url, timeout=30) as original,
        httpx.Client(base_url=exported_tensorboard.url, timeout=30) as export,
    ):
        yield original, export


def test_trainboard_reads_the_export_as_the_original(exported: Path, tmp_path: Path) -> None:
    with (
        trainboard.open(exported.parent / "store.sqlite") as original,
        trainboard.open(exported, db=str(tmp_path / "again.sqlite")) as export,
    ):
        pd.testing.assert_frame_equal(original.scalars(), export.scalars())
        pd.testing.assert_frame_equal(original.histograms(), export.histograms())
        pd.testing.assert_frame_equal(original.hparams(), export.hparams())
        assert original.text()["text"].astype(str).tolist() == export.text()["text"].astype(str).tolist()


def test_one_event_file_per_run(exported: Path, clients: tuple[httpx.Client, httpx.Client]) -> None:
    runs = clients[0].get("/data/runs").json()
    assert clients[1].get("/data/runs").json() == runs
    for run in runs:
        files = [path.name for path in (exported / run).iterdir() if "tfevents" in path.name]
        assert len(files) == 1 and files[0].endswith(EVENT_FILE.rsplit(".", 1)[1]), (run, files)


@pytest.mark.parametrize("route", [route for route in ROUTES if route.name.startswith(COVERED)], ids=str)
def test_tensorboard_answers_the_export_as_the_original(
    route: Route, clients: tuple[httpx.Client, httpx.Client]
) -> None:
    original, export = clients
    calls = route.calls(Listing(original))
    assert calls, f"TensorBoard lists nothing for {route}"
    problems = []
    for call in calls:
        expected = call.exchange(original, "", route.resolve)
        assert expected.status == 200, f"TensorBoard answers {call} with {expected.status}: {expected.body!r:.300}"
        actual = call.exchange(export, "", route.resolve)
        found = answer_difference(*(without_ignored_keys(call, side) for side in (expected, actual)))
        if found:
            problems.append(f"{call}: {found}")
    shown = "\n".join(problems[:REPORTED])
    assert not problems, f"{len(problems)} of {len(calls)} calls differ:\n{shown}"
