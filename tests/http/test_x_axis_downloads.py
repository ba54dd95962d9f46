"""A tag (or a derived metric) as the x axis in the downloads (`/data/trainboard/scalars?x=...` as CSV, JSON and
Parquet), the frames route and Python (`exp.scalars(..., x=...)`), in process on each backend: every point's x
equals pandas' `merge_asof` of the x tag's points (a step logged twice counting its last) onto the points as logged;
NaN before the x tag's first point and in a run without it; an x no run has is a 400."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import tensorboardX
from starlette.testclient import TestClient

from trainboard.api.experiment import Experiment
from trainboard.errors import InvalidArgumentError
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.loader import Loader
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import LogDir
from trainboard.settings import Settings
from trainboard.store.opening import open_store

DOWNLOADS = "/data/trainboard/scalars"
STEPS = 60
# `tokens` is logged every 5 steps from step 3 (so the first points of `acc` have no x); run "b" has no `tokens`.
TOKENS_FROM, TOKENS_EVERY = 3, 5
TWICE = 10  # a step at which run "a" logged acc and tokens twice: the last counts


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("x-axis")
    rng = np.random.default_rng(3)
    for run in ("a", "b"):
        with tensorboardX.SummaryWriter(str(root / run)) as writer:
            for step in range(STEPS):
                writer.add_scalar("acc", float(rng.random()), step, walltime=1_700_000_000 + step)
                writer.add_scalar("loss", float(rng.normal()), step, walltime=1_700_000_000 + step)
                if run == "a" and step >= TOKENS_FROM and (step - TOKENS_FROM) % TOKENS_EVERY == 0:
                    writer.add_scalar("tokens", 1000.0 * step + rng.random(), step, walltime=1_700_000_000 + step)
            writer.add_scalar("acc", 0.5, TWICE, walltime=1_700_000_100)
            if run == "a":
                writer.add_scalar("tokens", -1.0, TWICE + TOKENS_EVERY, walltime=1_700_000_100)
    return root


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, logdir: Path, tmp_path: Path) -> Iterator[tuple[TestClient, Experiment]]:
    url = str(tmp_path / "store.sqlite") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    store = open_store(url)
    experiment_id = store.create_experiment("x-axis").id
    Loader(LogDir(str(Path(shutil.copytree(logdir, tmp_path / "logdir")))), store, experiment_id, workers=0).poll()
    provider = DataProvider(store, stalled_after=1e12, writer=store)
    experiments = Experiments(provider, store, progress={}, elsewhere=IngestProgress.finished(), default=experiment_id)
    api = Experiment(provider, experiment_id, name="x-axis", location=url)
    try:
        with TestClient(create_app(experiments, Settings()), base_url="http://127.0.0.1") as client:
            yield client, api
    finally:
        store.close()


def expected(api: Experiment, tag: str, x: str) -> pd.DataFrame:
    """The points of `tag` as logged, each with the x tag's last value at or before its step in its run (pandas)."""
    points = api.scalars(tags=[tag]).astype({"run": str})
    axis = api.scalars(tags=[x]).astype({"run": str})
    axis = axis.drop_duplicates(["run", "step"], keep="last").sort_values("step")
    points = points.assign(order=np.arange(len(points))).sort_values("step", kind="stable")
    merged = pd.merge_asof(points, axis[["run", "step", "value"]].rename(columns={"value": "x"}), on="step", by="run")
    return merged.sort_values("order").drop(columns="order").reset_index(drop=True)


def check(found: pd.DataFrame, want: pd.DataFrame) -> None:
    assert found["run"].astype(str).tolist() == want["run"].astype(str).tolist()
    assert found["step"].tolist() == want["step"].tolist()
    np.testing.assert_array_equal(found["value"].to_numpy(), want["value"].to_numpy())
    np.testing.assert_array_equal(found["x"].to_numpy(dtype=np.float64), want["x"].to_numpy(dtype=np.float64))


def test_every_point_has_the_x_tags_value_asof_its_step(served: tuple[TestClient, Experiment]) -> None:
    client, api = served
    want = expected(api, "acc", "tokens")
    # What the fixture means to test is in the data: x missing before tokens' first point and in run b, a restated
    # step whose last point counts.
    a = want[want["run"] == "a"]
    assert a[a["step"] < TOKENS_FROM]["x"].isna().all() and a[a["step"] >= TOKENS_FROM]["x"].notna().all()
    assert want[want["run"] == "b"]["x"].isna().all()
    assert (a[a["step"] == TWICE + TOKENS_EVERY]["x"] == -1.0).all()
    check(api.scalars(tags=["acc"], x="tokens"), want)
    csv = client.get(DOWNLOADS, params={"tag": "acc", "x": "tokens", "format": "csv"}).raise_for_status()
    assert csv.text.startswith("run,tag,step,wall_time,value,x\n")
    check(pd.read_csv(io.StringIO(csv.text)), want)
    parquet = client.get(DOWNLOADS, params={"tag": "acc", "x": "tokens", "format": "parquet"}).raise_for_status()
    check(pq.read_table(io.BytesIO(parquet.content)).to_pandas(), want)
    body = client.get(DOWNLOADS, params={"tag": "acc", "x": "tokens", "format": "json"}).raise_for_status().json()
    rows = [
        {"run": series["run"], "step": step, "value": value, "x": float(x)}
        for series in body
        for step, value, x in zip(series["step"], series["value"], series["x"], strict=True)
    ]
    check(pd.DataFrame(rows), want)
    frames = client.get("/data/trainboard/frames/scalars", params={"tag": "acc", "x": "tokens"}).raise_for_status()
    with pa.ipc.open_stream(frames.content) as reader:
        check(reader.read_all().to_pandas(), want)
    # Without x, the downloads are as they were.
    plain = client.get(DOWNLOADS, params={"tag": "acc", "format": "csv"}).raise_for_status().text
    assert plain.startswith("run,tag,step,wall_time,value\n") and ",x" not in plain.splitlines()[0]


def test_a_derived_metric_as_x(served: tuple[TestClient, Experiment]) -> None:
    client, api = served
    api.define("seen", "cumsum(abs(loss)) * 1000")
    want = expected(api, "acc", "seen")
    loss = api.scalars(tags=["loss"]).astype({"run": str}).drop_duplicates(["run", "step"], keep="last")
    for run in ("a", "b"):
        seen = loss[loss["run"] == run].set_index("step")["value"].abs().cumsum() * 1000
        mine = want[want["run"] == run]
        np.testing.assert_allclose(mine["x"].to_numpy(), seen.reindex(mine["step"]).to_numpy(), rtol=1e-12)
    check(api.scalars(tags=["acc"], x="seen"), want)
    csv = client.get(DOWNLOADS, params={"tag": "acc", "x": "seen", "run": "a"}).raise_for_status().text
    check(pd.read_csv(io.StringIO(csv)), want[want["run"] == "a"].reset_index(drop=True))


def test_an_x_no_run_has_is_a_400(served: tuple[TestClient, Experiment]) -> None:
    client, api = served
    for form in ("csv", "json", "parquet"):
        refused = client.get(DOWNLOADS, params={"tag": "acc", "x": "nope", "format": form})
        assert refused.status_code == 400 and "nope" in refused.text
    assert client.get("/data/trainboard/frames/scalars", params={"x": "nope"}).status_code == 400
    assert client.get(DOWNLOADS, params={"tag": "acc", "x": "t" * 2000}).status_code == 400
    with pytest.raises(InvalidArgumentError, match="nope"):
        api.scalars(x="nope")
