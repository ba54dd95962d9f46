"""Derived metrics and comparisons over HTTP and in Python, on a torch sweep served in process: a definition is a
scalar tag in TensorBoard's scalar routes (listed and served in the shape of a logged tag), Time Series, groups,
downloads and the Python API, with every point equal to pandas' answer from the logged tags; the comparison equals
SciPy's; bad and hostile expressions are 400s that say where, answered quickly."""

from __future__ import annotations

import io
import json
import math
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pytest
from scipy import stats  # type: ignore[import-untyped]

import trainboard
from tests.http.teams import Team, bearer, denial
from tests.logdirs import write_sweep_logdir
from tests.servers import in_process
from trainboard.errors import ExpressionError, InvalidArgumentError

DEFINITIONS = "/data/trainboard/definitions"
RUN = "adam/lr0.1_seed1"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sweep_logdir(tmp_path_factory.mktemp("derived") / "logs", steps=50)


@pytest.fixture
def client(logdir: Path, tmp_path: Path) -> Iterator[httpx.Client]:
    flags = (f"--logdir={logdir}", f"--db=sqlite:{tmp_path / 'store.sqlite'}")
    with in_process("trainboard", tmp_path, *flags) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        yield client


def _points(client: httpx.Client, run: str, tag: str) -> pd.Series:
    """A tag's points by TensorBoard's scalar route: [wall_time, step, value] each."""
    rows = client.get("/data/plugin/scalars/scalars", params={"run": run, "tag": tag}).raise_for_status().json()
    return pd.Series([float(v) for _, _, v in rows], index=pd.Index([s for _, s, _ in rows], name="step"))


def test_a_definition_is_a_scalar_tag_in_tensorboards_routes(client: httpx.Client) -> None:
    assert client.get(DEFINITIONS).raise_for_status().json() == {"definitions": []}
    defined = client.post(DEFINITIONS, json={"name": "gap", "expression": "acc - val/acc"}).raise_for_status().json()
    assert defined == {"name": "gap", "expression": "acc - val/acc", "align": "exact"}
    assert client.get(DEFINITIONS).json() == {"definitions": [defined]}
    tags = client.get("/data/plugin/scalars/tags").raise_for_status().json()
    having = sorted(run for run, by_tag in tags.items() if "gap" in by_tag)
    assert having == sorted(run for run in tags if run != "baseline")  # the baseline logs no acc
    assert tags[RUN]["gap"].keys() == tags[RUN]["acc"].keys()
    # Every point, against pandas over the logged tags as the same route serves them.
    found, acc, val = _points(client, RUN, "gap"), _points(client, RUN, "acc"), _points(client, RUN, "val/acc")
    expected = (acc - val).dropna()
    assert found.index.tolist() == expected.index.tolist()
    np.testing.assert_allclose(found.to_numpy(), expected.to_numpy(), rtol=1e-12)
    logged = client.get("/data/plugin/scalars/scalars", params={"run": RUN, "tag": "acc"}).json()
    derived = client.get("/data/plugin/scalars/scalars", params={"run": RUN, "tag": "gap"}).json()
    validated = client.get("/data/plugin/scalars/scalars", params={"run": RUN, "tag": "val/acc"}).json()
    # A point's wall time is the later of its operands'.
    assert [row[:2] for row in derived] == [[max(a[0], v[0]), a[1]] for a, v in zip(logged, validated, strict=True)]
    multirun = client.post("/data/plugin/scalars/scalars_multirun", data={"tag": "gap", "runs": [RUN, "baseline"]})
    assert multirun.raise_for_status().json() == {RUN: derived}
    # Time Series and the downloads.
    requests = json.dumps([{"plugin": "scalars", "tag": "gap"}])
    series = client.post("/data/plugin/timeseries/timeSeries", data={"requests": requests}).raise_for_status().json()
    assert [point["value"] for point in series[0]["runToSeries"][RUN]] == pytest.approx(found.tolist(), rel=1e-12)
    csv = client.get("/data/trainboard/scalars", params={"tag": "gap", "run": RUN, "format": "csv"})
    table = pd.read_csv(io.StringIO(csv.raise_for_status().text))
    assert table["tag"].unique().tolist() == ["gap"] and table["value"].tolist() == pytest.approx(found.tolist())
    # Groups of a derived tag, with the 95 % interval of the mean.
    groups = client.get("/data/trainboard/groups/scalars", params={"tag": "gap", "by": "hparam:lr", "band": "ci"})
    group = next(g for g in groups.raise_for_status().json()["groups"] if g["name"] == "0.1")
    at = [_points(client, run, "gap").iloc[10] for run in group["runs"]]
    low, high = stats.t.interval(0.95, len(at) - 1, loc=np.mean(at), scale=stats.sem(at))
    assert (group["low"][10], group["high"][10]) == (pytest.approx(low, rel=1e-9), pytest.approx(high, rel=1e-9))
    # Undefined, it is gone.
    assert client.delete(DEFINITIONS, params={"name": "gap"}).raise_for_status().json() == {"ok": True}
    assert "gap" not in client.get("/data/plugin/scalars/tags").json()[RUN]
    assert client.delete(DEFINITIONS, params={"name": "gap"}).status_code == 404


@pytest.mark.parametrize(
    ("expression", "position"),
    [
        ("acc - nope", 6),
        ("acc +* 2", 5),
        ("sin(acc)", 0),
        ("(" * 5_000 + "acc" + ")" * 5_000, 2000),
        ("(" * 300 + "acc" + ")" * 300, 40),
        (" + ".join(["acc"] * 10_000), 2000),
        ("+".join(["acc"] * 499), 999),
        ("-" * 1_000 + "acc", 39),
    ],
)
def test_bad_and_hostile_expressions_are_400s_saying_where(
    client: httpx.Client, expression: str, position: int
) -> None:
    started = time.perf_counter()
    refused = client.post(DEFINITIONS, json={"name": "bad", "expression": expression})
    assert time.perf_counter() - started < 1.0
    assert refused.status_code == 400, refused.text
    assert refused.json()["position"] == position and f"at position {position}" in refused.json()["error"]
    assert client.get(DEFINITIONS).json() == {"definitions": []}


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"[]",
        b"{",
        b'{"name": "x"}',
        b'{"name": 3, "expression": "acc"}',
        b'{"name": "x", "expression": "acc", "align": "nearest"}',
        b'{"name": "acc", "expression": "loss"}',
        b'{"name": "x", "expression": "' + b"a" * 300_000 + b'"}',
    ],
)
def test_bad_bodies_are_400s(client: httpx.Client, body: bytes) -> None:
    assert client.post(DEFINITIONS, content=body).status_code == 400


def test_compare_equals_scipy(client: httpx.Client) -> None:
    params = {"a": "lr = 0.1", "b": "lr = 0.01", "metric": "max(val/acc)"}
    found = client.get("/data/trainboard/compare", params=params).raise_for_status().json()
    assert found == client.post("/data/trainboard/compare", data=params).raise_for_status().json()
    tags = client.get("/data/plugin/scalars/tags").json()
    a = [_points(client, run, "val/acc").max() for run in tags if "lr0.1_" in run]
    b = [_points(client, run, "val/acc").max() for run in tags if "lr0.01_" in run]
    welch = stats.ttest_ind(a, b, equal_var=False)
    interval = welch.confidence_interval(0.95)
    assert (found["a"]["n"], found["b"]["n"]) == (6, 6)
    assert found["p_value"] == pytest.approx(welch.pvalue, rel=1e-9)
    assert found["difference"]["low"] == pytest.approx(interval.low, rel=1e-9)
    assert found["difference"]["high"] == pytest.approx(interval.high, rel=1e-9)
    assert found["a"]["low"] == pytest.approx(stats.t.interval(0.95, 5, np.mean(a), stats.sem(a))[0], rel=1e-9)
    assert found["warnings"] == []
    few = client.get("/data/trainboard/compare", params={**params, "a": "lr = 0.1 and seed = 0"}).json()
    assert few["a"]["n"] == 2 and any("fewer than 3" in warning for warning in few["warnings"])
    lacking = client.get("/data/trainboard/compare", params={**params, "a": "name ~ 'baseline|lr0.1_'"}).json()
    assert lacking["a"]["lacking"] == ["baseline"] and any("lack" in warning for warning in lacking["warnings"])
    for bad in ({**params, "metric": "median(val/acc)"}, {**params, "metric": "max("}, {**params, "a": "lr <"}):
        assert client.get("/data/trainboard/compare", params=bad).status_code == 400


def test_a_tag_against_another_as_its_x(client: httpx.Client) -> None:
    client.post(DEFINITIONS, json={"name": "seen", "expression": "cumsum(abs(loss)) * 1000"}).raise_for_status()
    answer = client.get("/data/trainboard/scalars/against", params={"tag": "acc", "x": "seen", "run": RUN}).json()
    acc, loss = _points(client, RUN, "acc"), _points(client, RUN, "loss")
    seen = loss.abs().cumsum() * 1000
    found = answer["runs"][RUN]
    assert found["step"] == acc.index.tolist() and found["value"] == pytest.approx(acc.tolist(), rel=1e-12)
    assert found["x"] == pytest.approx(seen.reindex(acc.index).tolist(), rel=1e-12)
    assert found["monotonic"] is True
    # Against a tag logged from a later step, asof: points before its first are left out.
    client.post(DEFINITIONS, json={"name": "later", "expression": "diff(diff(loss))"}).raise_for_status()
    later = client.get("/data/trainboard/scalars/against", params={"tag": "acc", "x": "later"}).json()["runs"][RUN]
    assert later["step"] == acc.index.tolist()[2:] and later["monotonic"] is False
    assert (
        "baseline"
        not in client.get("/data/trainboard/scalars/against", params={"tag": "acc", "x": "loss"}).json()["runs"]
    )
    assert client.get("/data/trainboard/scalars/against", params={"tag": "acc"}).status_code == 400


def test_python_over_http_and_over_the_store_alike(client: httpx.Client, tmp_path: Path) -> None:
    remote = trainboard.open(str(client.base_url))
    remote.define("gap", "acc - val/acc")
    remote.define("late", "gap * (asof(loss) > 0)", align="exact")
    assert [d["name"] for d in remote.definitions()] == ["gap", "late"]
    frame = remote.scalars(runs=[RUN], tags=["gap"])
    expected = (_points(client, RUN, "acc") - _points(client, RUN, "val/acc")).to_numpy()
    np.testing.assert_allclose(frame["value"].to_numpy(), expected, rtol=1e-12)
    with pytest.raises(InvalidArgumentError, match="at position 6"):
        remote.define("bad", "acc - nope")
    compared = remote.compare(a="lr = 0.1", b="lr = 0.01", metric="max(gap)")
    against = remote.scalars(runs=[RUN], tags=["acc"], x="gap")["x"].to_numpy()
    served_bands = remote.groups("gap", "hparam:lr", band="ci", align="asof", filter="lr > 0.001")
    # The same store read directly, after the server let go of it.
    store = f"sqlite:{tmp_path / 'store.sqlite'}"
    with trainboard.open(store) as local:
        assert local.definitions() == remote.definitions()
        here = local.compare(a="lr = 0.1", b="lr = 0.01", metric="max(gap)")
        assert here["p_value"] == pytest.approx(compared["p_value"], rel=1e-12)
        np.testing.assert_allclose(local.scalars(runs=[RUN], tags=["gap"])["value"].to_numpy(), expected, rtol=1e-12)
        assert "last(gap)" in local.runs().columns
        table = local.runs(filter="max(gap) > -1", sort="-max(gap)", columns="last(gap), max(gap), mean(gap)")
        row = table[table["run"] == RUN].iloc[0]
        assert row["last(gap)"] == pytest.approx(expected[-1], rel=1e-12)
        assert row["max(gap)"] == pytest.approx(expected.max(), rel=1e-12)
        assert row["mean(gap)"] == pytest.approx(expected.mean(), rel=1e-12)
        assert table["max(gap)"].is_monotonic_decreasing and "baseline" not in set(table["run"])
        np.testing.assert_array_equal(local.scalars(runs=[RUN], tags=["acc"], x="gap")["x"].to_numpy(), against)
        np.testing.assert_allclose(against, expected, rtol=1e-12)  # acc and gap at the same steps
        bands = local.groups("gap", "hparam:lr", band="ci", align="asof")
        assert set(bands["group"]) == {"0.001", "0.01", "0.1"} and (bands["count"] == 6).all()
        pd.testing.assert_frame_equal(
            served_bands, bands[bands["group"] != "0.001"].reset_index(drop=True), check_categorical=False
        )
        with pytest.raises(ExpressionError):
            local.define("bad", "acc +")
        local.undefine("late")
    assert [d["name"] for d in remote.definitions()] == ["gap"]
    remote.close()
    assert not math.isnan(compared["p_value"])


def test_on_a_team_server_writers_define_readers_read_and_both_writes_are_audited(team: Team) -> None:
    base = f"{team.url}/experiment/{team.private}{DEFINITIONS}"
    body = {"name": "twice", "expression": "loss * 2"}
    assert httpx.post(base, json=body, headers=bearer(team.reader)).text == denial(team.private)
    assert httpx.post(base, json=body).status_code == 401
    defined = httpx.post(base, json=body, headers=bearer(team.admin)).raise_for_status().json()
    assert httpx.post(base, json={"name": "bad", "expression": "nope"}, headers=bearer(team.admin)).status_code == 400
    assert httpx.get(base, headers=bearer(team.reader)).json() == {"definitions": [defined]}
    assert httpx.delete(base, params={"name": "twice"}, headers=bearer(team.reader)).text == denial(team.private)
    assert httpx.delete(base, params={"name": "twice"}, headers=bearer(team.admin)).json() == {"ok": True}
    assert httpx.delete(base, params={"name": "twice"}, headers=bearer(team.admin)).status_code == 404
    events = httpx.get(f"{team.url}/experiment/{team.private}/admin/audit", headers=bearer(team.admin)).json()
    found = [(e["event"], e["user"], e["experiment"], e["detail"]) for e in events["events"] if "define" in e["event"]]
    assert found == [
        ("undefine", "ada", team.private, {"name": "twice"}),
        ("define", "ada", team.private, {"name": "twice", "expression": "loss * 2", "align": "exact"}),
    ]
