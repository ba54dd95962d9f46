"""`trainboard export`: the Parquet dataset read back with pyarrow holds exactly `exp.scalars()`; CSV and JSON Lines
hold every row."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.dataset as ds
import pytest

import trainboard


@pytest.fixture(scope="module")
def store(full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "store.sqlite"
    trainboard.open(full_logdir, db=str(path)).close()
    return path


def export(store: Path, out: Path, form: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "trainboard", "export", f"--db={store}", f"--format={form}", f"--out={out}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_parquet_round_trip_holds_every_scalar_point(store: Path, tmp_path: Path) -> None:
    export(store, tmp_path, "parquet")
    read = ds.dataset(tmp_path / "scalars", format="parquet", partitioning="hive").to_table().to_pandas()
    with trainboard.open(store) as experiment:
        expected = experiment.scalars()
    assert (tmp_path / "scalars" / "run=eval%2Fa").is_dir()
    read["run"] = read["run"].astype(str)
    expected["run"] = expected["run"].astype(str)
    expected["tag"] = expected["tag"].astype(str)
    read["tag"] = read["tag"].astype(str)
    columns = ["run", "tag", "step", "wall_time", "value"]
    ours = expected[columns].sort_values(["run", "tag"], kind="stable").reset_index(drop=True)
    theirs = read[columns].sort_values(["run", "tag"], kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False)
    assert np.isnan(theirs.value).any() and np.isinf(theirs.value).any()
    assert (tmp_path / "histograms").is_dir() and (tmp_path / "text").is_dir()


def test_csv_and_jsonl_hold_every_row(store: Path, tmp_path: Path) -> None:
    with trainboard.open(store) as experiment:
        rows = len(experiment.scalars())
    export(store, tmp_path / "csv", "csv")
    export(store, tmp_path / "jsonl", "jsonl")
    assert len(pd.read_csv(tmp_path / "csv" / "scalars.csv")) == rows
    lines = (tmp_path / "jsonl" / "scalars.jsonl").read_text().splitlines()
    assert len(lines) == rows
    assert set(json.loads(lines[0])) == {"run", "tag", "step", "wall_time", "value"}


def test_export_needs_a_source_and_a_known_format(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "trainboard", "export", f"--out={tmp_path}"]
    missing = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "--logdir or --db is required" in missing.stderr
    wrong = subprocess.run([*command, "--db=x.sqlite", "--format=xlsx"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "parquet, csv, jsonl" in wrong.stderr
