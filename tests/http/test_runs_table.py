"""`/data/trainboard/runs_table` in process on each backend: rows as the store's runs table gives them (checked
against pandas in tests/store/test_series_summaries.py), server-side sort and pages, CSV and Parquet exports equal to
the JSON, `runs()` in Python equal to the route; bad input is a 4xx naming the parameter, never a 5xx."""

from __future__ import annotations

import csv
import io
import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from tests.store.test_series_summaries import write_first_pass, write_second_pass
from trainboard.api.experiment import Experiment
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.loader import Loader
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import LogDir
from trainboard.settings import Settings
from trainboard.store.opening import open_store

TABLE = "/data/trainboard/runs_table"
COLUMNS = "status, last(loss), max(loss), step_of_max(loss), mean(acc), count(acc), lr, optimizer, duration"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs-table")
    write_first_pass(root)
    write_second_pass(root)
    return root


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, logdir: Path, tmp_path: Path) -> Iterator[tuple[TestClient, Experiment]]:
    url = str(tmp_path / "store.sqlite") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    store = open_store(url)
    experiment_id = store.create_experiment("runs").id
    Loader(LogDir(str(Path(shutil.copytree(logdir, tmp_path / "logdir")))), store, experiment_id, workers=0).poll()
    provider = DataProvider(store, stalled_after=1e12)
    experiments = Experiments(provider, store, progress={}, elsewhere=IngestProgress.finished(), default=experiment_id)
    api = Experiment(provider, experiment_id, name="runs", location=url)
    try:
        with TestClient(create_app(experiments, Settings()), base_url="http://127.0.0.1") as client:
            yield client, api
    finally:
        store.close()


def test_rows_sorted_paged_and_exported(served: tuple[TestClient, Experiment]) -> None:
    client, api = served
    whole = client.get(TABLE, params={"columns": COLUMNS, "sort": "-max(loss)", "limit": 100}).json()
    assert whole["total"] == 6 and whole["offset"] == 0
    assert whole["columns"] == ["run", *(column.strip() for column in COLUMNS.split(","))]
    rows = whole["rows"]
    maxima = [row[3] for row in rows if row[3] is not None]
    assert maxima == sorted(maxima, reverse=True) and len(maxima) == 6
    ascending = client.get(TABLE, params={"columns": "max(val/acc)", "sort": "max(val/acc)"}).json()["rows"]
    assert [row[0] for row in ascending] == ["sweep/b", "one", "odd", "open", "restart", "sweep/a"]  # missing last
    assert {row[0]: row[1] for row in rows}["sweep/b"] == "failed"
    assert "Infinity" not in str(maxima)
    paged = [
        client.get(TABLE, params={"columns": COLUMNS, "sort": "-max(loss)", "offset": o, "limit": 4}).json()
        for o in (0, 4, 8)
    ]
    assert [p["total"] for p in paged] == [6, 6, 6]
    assert [row for page in paged for row in page["rows"]] == rows
    default = client.get(TABLE).json()
    assert default["columns"][:4] == ["run", "status", "start_time", "last_step"]
    assert "last(val/acc)" in default["columns"] and "lr" in default["columns"]
    # CSV and Parquet: every row, the same values.
    exported = client.get(TABLE, params={"columns": COLUMNS, "sort": "-max(loss)", "format": "csv"})
    assert exported.headers["content-type"].startswith("text/csv")
    assert 'filename="runs.csv"' in exported.headers["content-disposition"]
    lines = list(csv.reader(io.StringIO(exported.text)))
    assert lines[0] == whole["columns"] and [line[0] for line in lines[1:]] == [row[0] for row in rows]
    for line, row in zip(lines[1:], rows, strict=True):
        assert [_csv(value) for value in row] == line
    parquet = client.get(TABLE, params={"columns": COLUMNS, "sort": "-max(loss)", "format": "parquet"})
    table = pq.read_table(io.BytesIO(parquet.content)).to_pandas()
    assert list(table.columns) == whole["columns"]
    assert _same_frame(table, pd.DataFrame(rows, columns=whole["columns"]))
    # Python: the same table, as a data frame.
    frame = api.runs(sort="-max(loss)", columns=[column.strip() for column in COLUMNS.split(",")])
    assert _same_frame(frame, table)
    kept = api.runs(filter="max(loss) >= 1e30 and status != failed", columns="max(loss)")
    assert list(kept.columns) == ["run", "max(loss)"]
    wanted = (frame["max(loss)"] >= 1e30) & (frame.status != "failed")
    assert sorted(kept.run) == sorted(frame.run[wanted]) and len(kept) >= 2


def test_run_metadata_columns_filters_and_exports(served: tuple[TestClient, Experiment]) -> None:
    client, api = served
    change = {"runs": ["sweep/a", "odd"], "add_labels": ["base, line", "b"], "starred": True, "notes": "Diverged."}
    client.post("/data/trainboard/run_metadata", json=change).raise_for_status()
    client.post("/data/trainboard/run_metadata", json={"runs": ["open"], "color": "#aabbcc"}).raise_for_status()
    columns = "labels, starred, notes, display_name, color"
    whole = client.get(TABLE, params={"columns": columns, "sort": "-starred, color"}).json()
    assert whole["rows"] == [
        ["odd", ["b", "base, line"], True, "Diverged.", "", None],
        ["sweep/a", ["b", "base, line"], True, "Diverged.", "", None],
        ["open", [], False, "", "", "#aabbcc"],
        *([run, [], False, "", "", None] for run in ("one", "restart", "sweep/b")),
    ]
    default = client.get(TABLE).json()["columns"]
    assert default[:9] == [
        "run",
        "status",
        "start_time",
        "last_step",
        "display_name",
        "color",
        "labels",
        "starred",
        "notes",
    ]
    kept = client.get(TABLE, params={"filter": "label = 'base, line' and notes ~ '(?i)^diverged'"}).json()
    assert sorted(row[0] for row in kept["rows"]) == ["odd", "sweep/a"]
    assert client.get(TABLE, params={"filter": "not starred and color ~ aab"}).json()["total"] == 1
    lines = list(csv.reader(io.StringIO(client.get(TABLE, params={"columns": columns, "format": "csv"}).text)))
    assert (
        lines[0] == ["run", *columns.split(", ")]
        and ["odd", '["b", "base, line"]', "True", "Diverged.", "", ""] in lines
    )
    parquet = client.get(TABLE, params={"columns": columns, "sort": "-starred, color", "format": "parquet"})
    table = pq.read_table(io.BytesIO(parquet.content)).to_pandas()
    assert table["starred"].dtype == bool and list(table["labels"][0]) == ["b", "base, line"]
    frame = api.runs(filter="starred", columns=columns)
    assert sorted(frame.run) == ["odd", "sweep/a"] and frame["starred"].dtype == bool
    assert [list(labels) for labels in frame["labels"]] == [["b", "base, line"]] * 2


def _csv(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return str(value)


def _same_frame(left: pd.DataFrame, right: pd.DataFrame) -> bool:
    if list(left.columns) != list(right.columns) or len(left) != len(right):
        return False
    for name in left.columns:
        for a, b in zip(left[name].tolist(), right[name].tolist(), strict=True):
            missing = (
                a is None or (isinstance(a, float) and math.isnan(a)),
                b is None or (isinstance(b, float) and math.isnan(b)),
            )
            if missing[0] or missing[1]:
                if missing != (True, True):
                    return False
            elif a != b and not (isinstance(a, float) and math.isclose(a, b, rel_tol=1e-12)):
                return False
    return True


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"columns": "max(nope)"}, "unknown column 'max(nope)'"),
        ({"columns": "nope"}, "unknown column 'nope'"),
        ({"columns": "median(loss)"}, "columns: at position 0: expected a function"),
        ({"columns": "max(loss"}, "columns: at position 8: expected ')'"),
        ({"sort": "--max(loss)"}, "sort: at position 1"),
        ({"sort": "max(nope)"}, "unknown column 'max(nope)'"),
        ({"sort": "max(loss) desc"}, "sort: at position 10: expected ',' or the end"),
        ({"filter": "max(loss) >"}, "at position 11: expected a value"),
        ({"filter": "name ~ '(('"}, "a valid regular expression"),
        ({"filter": "(" * 100 + "a = 1" + ")" * 100}, "at most 32 nested"),
        ({"filter": "status = \x00"}, "NUL"),
        ({"limit": "0"}, "'limit' must be at least 1"),
        ({"limit": "100001"}, "'limit' must be at most 10000"),
        ({"offset": "-1"}, "'offset' must be at least 0"),
        ({"offset": "x"}, "'offset' must be an integer"),
        ({"format": "xml"}, "format must be one of json, csv, parquet"),
        ({"columns": ",".join(["loss"] * 1001)}, "columns: at most 1000"),
    ],
)
def test_bad_input_is_a_400_naming_it(
    served: tuple[TestClient, Experiment], params: dict[str, str], expected: str
) -> None:
    client, _ = served
    response = client.get(TABLE, params=params)
    assert response.status_code == 400, response.text
    assert expected in response.text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["filter", "sort", "columns"]),
    st.lists(
        st.sampled_from([*"ab_`'\"()~=!<>.,-1e ", "max(", "loss", "and ", "not ", "status", "name"]), max_size=25
    ).map("".join),
)
def test_any_text_is_an_answer_or_a_400(served: tuple[TestClient, Experiment], name: str, text: str) -> None:
    client, _ = served
    response = client.get(TABLE, params={name: text})
    assert response.status_code in (200, 400), response.text
