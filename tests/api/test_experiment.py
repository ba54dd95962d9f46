"""`trainboard.open` on logdirs written by torch and tensorboardX: every scalar point equals what TensorBoard's own
EventAccumulator reads from the same files; filters, backends and the other kinds."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import trainboard
from tests.servers import free_port
from trainboard.api.experiment import Experiment
from trainboard.reader.logdir import walk_order
from trainboard.store.errors import StoreUnavailable


@pytest.fixture(scope="module")
def full(full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Experiment]:
    store = tmp_path_factory.mktemp("api") / "store.sqlite"
    with trainboard.open(full_logdir, db=str(store)) as experiment:
        assert isinstance(experiment, Experiment)
        yield experiment


def accumulated(logdir: Path) -> dict[tuple[str, str], list[tuple[int, float, float]]]:
    """Every scalar of every run directory, as TensorBoard reads it (every point kept)."""
    found = {}
    for directory in sorted({path.parent for path in logdir.rglob("*tfevents*")}):
        accumulator = EventAccumulator(str(directory), size_guidance={"scalars": 0})
        accumulator.Reload()
        run = directory.relative_to(logdir).as_posix()
        for tag in accumulator.Tags()["scalars"]:
            found[run, tag] = [(e.step, e.wall_time, e.value) for e in accumulator.Scalars(tag)]
    return found


@pytest.mark.differential
def test_every_scalar_point_equals_what_tensorboard_reads(full: Experiment, full_logdir: Path) -> None:
    expected = accumulated(full_logdir)
    frame = full.scalars()
    assert list(frame.columns) == ["run", "tag", "step", "wall_time", "value"]
    ours = {
        (str(run), str(tag)): list(
            zip(group.step.tolist(), group.wall_time.tolist(), group.value.tolist(), strict=True)
        )
        for (run, tag), group in frame.groupby(["run", "tag"], observed=True, sort=False)
    }
    assert expected, "the logdir has simple scalars"
    for key, points in expected.items():
        assert _same(ours[key], points), key
    # Restarted runs: TensorBoard's purge is ours too.
    assert ("restart", "loss") in expected


def _same(ours: list[tuple[int, float, float]], theirs: list[tuple[int, float, float]]) -> bool:
    return len(ours) == len(theirs) and all(
        a[:2] == b[:2] and (a[2] == b[2] or (math.isnan(a[2]) and math.isnan(b[2])))
        for a, b in zip(ours, theirs, strict=True)
    )


def test_filters_by_list_regex_and_steps(full: Experiment) -> None:
    everything = full.scalars()
    only = full.scalars(runs=["train"], tags=["loss"], steps=(2, 5))
    assert set(only.run) == {"train"} and set(only.tag) == {"loss"}
    assert only.step.tolist() == [2, 3, 4, 5]
    matched = full.scalars(runs="^restart")
    assert set(matched.run) == {"restart", "restart_session"}
    assert len(matched) == (everything.run.astype(str).str.startswith("restart")).sum()
    assert full.scalars(tags=["no such tag"]).empty


def test_polars_and_arrow_backends_hold_the_same_points(full: Experiment) -> None:
    frame = full.scalars()
    polars = full.scalars(backend="polars")
    assert isinstance(polars, pl.DataFrame)
    assert polars["step"].to_list() == frame.step.tolist()
    assert polars["run"].cast(pl.String).to_list() == frame.run.astype(str).tolist()
    assert np.array_equal(polars["value"].to_numpy(), frame.value.to_numpy(), equal_nan=True)
    assert full.scalars(backend="arrow").num_rows == len(frame)
    with pytest.raises(ValueError, match="backend"):
        full.scalars(backend="spark")


def test_runs_carry_hparams_and_final_values(full: Experiment) -> None:
    runs = full.runs()
    assert isinstance(runs, pd.DataFrame)
    assert list(runs.run) == sorted(runs.run, key=walk_order), (
        "in the logdir's walk order, whatever order ingest met them in"
    )
    by_run = runs.set_index("run")
    assert {"train", "eval/a", "restart", "."} <= set(by_run.index)
    assert by_run.loc["train/hparams", "lr"] == 0.1
    assert by_run.loc["eval/a/hparams", "dropout"] == 0.5
    last = full.scalars(runs=["train"], tags=["low"])
    assert by_run.loc["train", "last(low)"] == last.value.iloc[-1]
    assert by_run.loc["train", "status"] in ("running", "stalled")


def test_hparams_histograms_tensors_images_text(full: Experiment) -> None:
    hparams = full.hparams()
    assert {"session", "group", "status"} <= set(hparams.columns)
    assert "train/hparams" in set(hparams.session)
    histograms = full.histograms()
    assert list(histograms.columns) == ["run", "tag", "step", "wall_time", "left", "right", "count"]
    assert (histograms.right >= histograms.left).all() and len(histograms) > 0
    tensors = full.tensors(plugin="pr_curves")
    assert len(tensors) > 0 and all(isinstance(value, np.ndarray) for value in tensors.value)
    images = full.images()
    assert len(images) > 0 and all(image.startswith(b"\x89PNG") for image in images.image)
    assert (images.width > 0).all()
    text = full.text()
    assert any("Notes" in value for value in text.text if isinstance(value, str))


def test_a_store_url_opens_its_only_experiment_and_a_server_url_needs_a_server(
    full: Experiment, tmp_path: Path
) -> None:
    location = full.location
    with trainboard.open(f"sqlite:{location}") as again:
        assert again.id == full.id
        assert len(again.scalars()) == len(full.scalars())
    with trainboard.open(location, experiment=full.name) as named:
        assert named.id == full.id
    with (
        trainboard.open(f"http://127.0.0.1:{free_port()}/") as remote,
        pytest.raises(StoreUnavailable, match="no trainboard server answers"),
    ):
        remote.scalars()
    with pytest.raises(FileNotFoundError):
        trainboard.open(tmp_path / "missing")
