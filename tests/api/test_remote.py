"""`trainboard.open(server URL)` and the downloads of /data/trainboard/scalars against real `trainboard` servers
(served in the test process, over HTTP on loopback): every frame equals the store's (on `trainboard --logdir` and on
`trainboard serve` with a token), every downloaded point equals what TensorBoard's EventAccumulator reads from the
same torch and tensorboardX files."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import trainboard
from tests import loopback
from tests.api.test_experiment import _same, accumulated
from tests.http.teams import Team, team_server
from tests.servers import Server, trainboard_in_process
from trainboard.api.experiment import Experiment
from trainboard.api.remote import RemoteExperiment

KINDS = ("runs", "hparams", "scalars", "histograms", "tensors", "images", "text")


@pytest.fixture(scope="module")
def served(full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with trainboard_in_process(full_logdir, tmp_path_factory.mktemp("remote")) as server:
        yield server


def _store(server: Server) -> str:
    return f"sqlite:{server.log.parent / 'store.sqlite'}"


def assert_same_frames(local: Experiment, remote: RemoteExperiment) -> None:
    for kind in KINDS:
        expected, found = getattr(local, kind)(), getattr(remote, kind)()
        if kind == "tensors":
            # Arrays compare element by element: compare their bytes and shapes.
            for frame in (expected, found):
                frame["value"] = [
                    (v.dtype.str, v.shape, v.tolist() if v.dtype.kind == "O" else v.tobytes()) for v in frame["value"]
                ]
        pd.testing.assert_frame_equal(found, expected, obj=kind)
    assert remote.scalars(backend="polars").equals(local.scalars(backend="polars"))


@pytest.mark.differential
def test_open_a_server_gives_the_frames_of_its_store(served: Server) -> None:
    with trainboard.open(_store(served)) as local, trainboard.open(served.url) as remote:
        assert isinstance(local, Experiment) and isinstance(remote, RemoteExperiment)
        assert len(local.scalars()) >= 100
        assert_same_frames(local, remote)
        chosen = {"runs": "^train", "tags": "s", "steps": (2, 6)}
        pd.testing.assert_frame_equal(remote.scalars(**chosen), local.scalars(**chosen))
        run = local.scalars()["run"].iloc[0]
        pd.testing.assert_frame_equal(remote.scalars(runs=[run]), local.scalars(runs=[run]))


@pytest.mark.differential
@pytest.mark.parametrize("form", ["csv", "json", "parquet"])
def test_a_download_holds_every_point_tensorboard_reads(served: Server, full_logdir: Path, form: str) -> None:
    expected = accumulated(full_logdir)
    response = loopback.get(f"{served.url}/data/trainboard/scalars", params={"format": form}, timeout=120)
    assert response.status_code == 200, response.text
    found: dict[tuple[str, str], list[tuple[int, float, float]]] = {}
    if form == "csv":
        for row in csv.DictReader(io.StringIO(response.text)):
            point = (int(row["step"]), float(row["wall_time"]), float(row["value"]))
            found.setdefault((row["run"], row["tag"]), []).append(point)
    elif form == "json":
        for series in response.json():
            values = [float(v) if isinstance(v, str) else v for v in series["value"]]
            points = zip(series["step"], series["wall_time"], values, strict=True)
            found[series["run"], series["tag"]] = list(points)
    else:
        frame = pq.read_table(io.BytesIO(response.content)).to_pandas()
        for (run, tag), group in frame.groupby(["run", "tag"], observed=True, sort=False):
            found[run, tag] = list(zip(group["step"], group["wall_time"], group["value"], strict=True))
    for key, points in expected.items():
        assert _same(found[key], points), key
    # And every series of the store (TensorBoard reads no tensor-form scalars from the root run's files).
    with trainboard.open(_store(served)) as local:
        assert sum(map(len, found.values())) == len(local.scalars())


def test_hostile_parameters_are_400s(served: Server) -> None:
    url = f"{served.url}/data/trainboard"
    for path, query in [
        ("scalars", {"format": "xml"}),
        ("scalars", {"run_regex": "(a"}),
        ("scalars", {"run_regex": "a" * 5000}),
        ("scalars", {"latest": "-1"}),
        ("scalars", {"first_step": "x"}),
        ("scalars", {"first_step": str(2**70)}),
        ("scalars", {"latest": "3", "first_step": "1"}),
        ("scalars", {"run": "a", "run_regex": "a"}),
        ("frames/scalars", {"tag": "a\x00"}),
    ]:
        response = loopback.get(f"{url}/{path}", params=query)
        assert response.status_code == 400, (path, query, response.text)
    assert loopback.get(f"{url}/frames/secrets").status_code == 404


def test_open_a_team_server_with_a_token(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    with team_server(request, "sqlite", "trainboard", tmp_path) as team:
        url = f"{team.url}/experiment/{team.private}/"
        with trainboard.open(team.db, experiment="private") as local, trainboard.open(url, token=team.reader) as remote:
            assert isinstance(local, Experiment)
            assert len(local.scalars()) == 3
            assert_same_frames(local, remote)
            # A pinned view reads as of its pin.
            with trainboard.open(f"{url}at/{team.pin}/", token=team.reader) as pinned:
                pd.testing.assert_frame_equal(pinned.scalars(), local.scalars())
        _refused(team, url)


def _refused(team: Team, url: str) -> None:
    for token in (None, "tbk_0000000000_" + "x" * 43, team.stranger):
        with trainboard.open(url, token=token) as remote, pytest.raises(Exception, match="token|no such experiment"):
            remote.scalars()
