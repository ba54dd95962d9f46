"""Run metadata and saved views in the Python API: written and read on a store (`trainboard.open(logdir)`) and on a
server (`trainboard.open(url)`, the same frames and the same errors), kept across openings, and in what `trainboard
export` writes."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.dataset as ds
import pytest

import trainboard
from tests.cli.logs import write_run
from tests.http.teams import team_server
from tests.servers import trainboard_in_process
from trainboard.api.experiment_frames import ExperimentFrames
from trainboard.errors import ConflictError, InvalidArgumentError, NotFoundError
from trainboard.store.run_metadata import MAX_LABELS_PER_RUN


def logdir_of(root: Path) -> Path:
    for run in ("a", "b", "c"):
        write_run(root / "logs" / run, steps=2)
    return root / "logs"


def annotate(exp: ExperimentFrames) -> None:
    exp.set_notes("a", "lr **0.1**")
    exp.set_display_name("a", "baseline")
    exp.add_label("a", "sweep")
    exp.add_label("b", "sweep")
    exp.add_label("b", "gpu")
    exp.remove_label("b", "sweep")
    exp.star("b")
    exp.set_color("c", "#00AA11")
    exp.set_color("c", None)
    exp.set_color("a", "#00aa11")


EXPECTED = {
    "run": ["a", "b", "c"],
    "display_name": ["baseline", "", ""],
    "notes": ["lr **0.1**", "", ""],
    "labels": [["sweep"], ["gpu"], []],
    "starred": [False, True, False],
    "color": ["#00aa11", None, None],
}


def frame_of(exp: ExperimentFrames) -> dict[str, list[object]]:
    found = exp.run_metadata()
    assert isinstance(found, pd.DataFrame) and found["starred"].dtype == bool
    return {name: found[name].tolist() for name in found.columns}


def errors(exp: ExperimentFrames) -> None:
    with pytest.raises(InvalidArgumentError, match="#rrggbb"):
        exp.set_color("a", "red")
    with pytest.raises(NotFoundError, match="no run named 'zz'"):
        exp.star("zz")
    for i in range(MAX_LABELS_PER_RUN - 1):
        exp.add_label("c", f"l{i}")
    with pytest.raises(ConflictError, match=f"at most {MAX_LABELS_PER_RUN} labels"):
        for i in range(2):
            exp.add_label("c", f"m{i}")
    for i in range(MAX_LABELS_PER_RUN - 1):
        exp.remove_label("c", f"l{i}")
    exp.remove_label("c", "m0")


def views(exp: ExperimentFrames) -> None:
    saved = exp.save_view("by lr", {"dashboard": "scalars", "groups": ["hparam:lr"]})
    assert exp.views() == [saved]
    assert exp.view("by lr")["state"] == {"dashboard": "scalars", "groups": ["hparam:lr"]}
    assert exp.rename_view(saved["id"], "lr")["name"] == "lr"
    with pytest.raises(NotFoundError):
        exp.view("by lr")
    exp.delete_view("lr")
    assert exp.views() == []


def test_on_a_store_kept_across_openings_and_exported(tmp_path: Path) -> None:
    logdir, db = logdir_of(tmp_path), str(tmp_path / "store.sqlite")
    with trainboard.open(logdir, db=db) as exp:
        annotate(exp)
        errors(exp)
        views(exp)
        exp.save_view("kept", {"x": 1})
    with trainboard.open(logdir, db=db) as exp:
        assert frame_of(exp) == EXPECTED
        assert [view["name"] for view in exp.views()] == ["kept"]
    out = tmp_path / "csv"
    command = [sys.executable, "-m", "trainboard", "export", f"--db={db}", "--format=csv", f"--out={out}"]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    # The runs that have metadata, one row each.
    rows = list(csv.DictReader((out / "run_metadata.csv").read_text().splitlines()))
    assert [(row["run"], row["notes"], json.loads(row["labels"]), row["starred"]) for row in rows] == [
        ("a", "lr **0.1**", ["sweep"], "false"),
        ("b", "", ["gpu"], "true"),
    ]
    command[-2:] = ["--format=parquet", f"--out={tmp_path / 'parquet'}"]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    table = ds.dataset(tmp_path / "parquet" / "run_metadata", partitioning="hive").to_table().to_pylist()
    assert sorted((row["run"], row["color"]) for row in table) == [("a", "#00aa11"), ("b", None)]


def test_on_a_server_as_on_its_store(tmp_path: Path) -> None:
    logdir = logdir_of(tmp_path)
    with trainboard_in_process(logdir, tmp_path / "serve") as server, trainboard.open(f"{server.url}/") as exp:
        annotate(exp)
        errors(exp)
        views(exp)
        assert frame_of(exp) == EXPECTED


def test_a_reader_of_a_team_server_reads_and_may_not_write(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    with team_server(request, "sqlite", "trainboard", tmp_path) as team:
        url = f"{team.url}/experiment/{team.private}/"
        with trainboard.open(url, token=team.admin) as admin, trainboard.open(url, token=team.reader) as reader:
            admin.set_notes("train", "by the admin")
            assert reader.run_metadata()["notes"].tolist() == ["by the admin"]
            with pytest.raises(PermissionError):
                reader.set_notes("train", "by the reader")
            with pytest.raises(PermissionError):
                reader.save_view("v", {})
