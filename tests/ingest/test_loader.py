"""The ingest loop end to end: real writer files in, store contents out; restarts read only new bytes."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import BinaryIO

import pytest
from tensorboardX import SummaryWriter

from tests.stores import TestStore
from trainboard.ingest.loader import GROUP_RUNS
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record
from trainboard.settings import ALL_PLUGINS, parse_samples_per_plugin


def write_scalars(logdir: Path, run: str, steps: range, tag: str = "loss", suffix: str = "") -> None:
    with SummaryWriter(str(logdir / run), filename_suffix=suffix) as writer:
        for step in steps:
            writer.add_scalar(tag, step / 10, step)


def steps_of(store: TestStore, run: str, tag: str) -> list[int]:
    (row,) = [row for row in store.series(runs=[run], tags=[tag])]
    return store.scalars(row.id).steps.tolist()


def test_loads_every_point_of_every_run(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_scalars(logdir, "train", range(3000))
    write_scalars(logdir, "eval/a", range(0, 3000, 100), tag="accuracy")
    store = TestStore(tmp_path / "store.sqlite")
    loader = store.loader(LogDir(str(logdir)))
    loader.poll()
    assert steps_of(store, "train", "loss") == list(range(3000))
    assert steps_of(store, "eval/a", "accuracy") == list(range(0, 3000, 100))
    progress = loader.progress.as_json()
    assert progress["done"] is True
    assert progress["files_done"] == progress["files_total"] == 2
    assert progress["bytes_read"] == progress["bytes_total"] > 0
    store.close()


def test_restart_reads_only_new_bytes(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_scalars(logdir, "train", range(100))
    store = TestStore(tmp_path / "store.sqlite")
    store.loader(LogDir(str(logdir))).poll()
    store.close()

    write_scalars(logdir, "train", range(100, 150), suffix=".2")  # a second file in the same run
    reopened = TestStore(tmp_path / "store.sqlite")
    loader = reopened.loader(LogDir(str(logdir)))
    loader.poll()
    assert steps_of(reopened, "train", "loss") == list(range(150))
    total = loader.progress.as_json()
    assert total["bytes_read"] == total["bytes_total"]
    assert total["points"] == 50  # only the second file's events were read again
    reopened.close()


def test_a_replaced_file_replaces_its_points(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_scalars(logdir, "train", range(100), suffix=".x")
    store = TestStore(tmp_path / "store.sqlite")
    store.loader(LogDir(str(logdir))).poll()
    (path,) = (logdir / "train").iterdir()
    path.unlink()
    write_scalars(logdir, "train", range(1000, 1010), suffix=".x")
    store.loader(LogDir(str(logdir))).poll()
    assert steps_of(store, "train", "loss") == list(range(1000, 1010))
    store.close()


def scalar_record(step: int) -> bytes:
    event = Event(wall_time=1.0 + step, step=step)
    event.summary.value.add(tag="x", simple_value=step)
    stream = io.BytesIO()
    write_record(stream, event.SerializeToString())
    return stream.getvalue()


def test_a_file_that_grows_is_tailed_even_mid_record(tmp_path: Path) -> None:
    run = tmp_path / "logs" / "live"
    run.mkdir(parents=True)
    path = run / "events.out.tfevents.1.host"
    store = TestStore(tmp_path / "store.sqlite")
    loader = store.loader(LogDir(str(tmp_path / "logs")))
    data = b"".join(scalar_record(step) for step in range(25))
    cut = len(b"".join(scalar_record(step) for step in range(10))) + 7  # inside the 11th record
    path.write_bytes(data[:cut])
    loader.poll()
    assert steps_of(store, "live", "x") == list(range(10))
    with path.open("ab") as stream:
        stream.write(data[cut:])
    loader.poll()
    loader.poll()
    assert steps_of(store, "live", "x") == list(range(25))
    store.close()


def test_runs_load_in_parallel_worker_threads(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    for run in ("a", "b/c", "d"):
        write_scalars(logdir, run, range(500))
    path = tmp_path / "store.sqlite"
    writing = TestStore(path)
    loader = writing.loader(LogDir(str(logdir)), workers=2)
    try:
        loader.poll()
        progress = loader.progress.as_json()
        assert progress["points"] == 1500 and progress["files_done"] == 3
        assert progress["bytes_read"] == progress["bytes_total"]
        loader.poll()  # nothing new: no file is read again
        assert loader.progress.as_json()["points"] == 1500
    finally:
        loader.close()
        writing.close()
    store = TestStore(path)
    for run in ("a", "b/c", "d"):
        assert steps_of(store, run, "loss") == list(range(500))
    store.close()


def test_files_that_appear_vanish_or_are_truncated(tmp_path: Path) -> None:
    run = tmp_path / "logs" / "live"
    run.mkdir(parents=True)
    first, second = run / "events.out.tfevents.1.host", run / "events.out.tfevents.2.host"
    store = TestStore(tmp_path / "store.sqlite")
    loader = store.loader(LogDir(str(tmp_path / "logs")))
    # Version-2 files, as today's writers make them: a step that goes back purges nothing.
    version = io.BytesIO()
    write_record(version, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
    first.write_bytes(version.getvalue() + b"".join(scalar_record(step) for step in range(10)))
    loader.poll()
    second.write_bytes(version.getvalue() + b"".join(scalar_record(step) for step in range(10, 20)))  # appears
    loader.poll()
    assert steps_of(store, "live", "x") == list(range(20))
    second.unlink()  # vanishes: what was read from it goes too, as TensorBoard shows after a restart
    loader.poll()
    assert steps_of(store, "live", "x") == list(range(10))
    first.write_bytes(version.getvalue() + b"".join(scalar_record(step) for step in range(3)))  # truncated
    loader.poll()
    assert steps_of(store, "live", "x") == list(range(3))
    store.close()


def test_samples_per_plugin_takes_tensorboards_syntax() -> None:
    assert parse_samples_per_plugin("scalars=500, images=all,histograms=0") == {
        "scalars": 500,
        "images": None,
        "histograms": None,
    }
    assert parse_samples_per_plugin("all") == {ALL_PLUGINS: None}
    for bad in ("scalars", "scalars=x", "scalars=-1", "=3"):
        with pytest.raises(ValueError):
            parse_samples_per_plugin(bad)


def test_a_deleted_run_directory_is_gone_at_once_and_after_a_restart(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_scalars(logdir, "keep", range(10))
    write_scalars(logdir, "drop/deep", range(10))
    store = TestStore(tmp_path / "store.sqlite")
    store.loader(LogDir(str(logdir))).poll()
    assert {run.name for run in store.runs()} == {"drop/deep", "keep"}
    for path in (logdir / "drop" / "deep").iterdir():
        path.unlink()
    store.loader(LogDir(str(logdir))).poll()
    assert [run.name for run in store.runs()] == ["keep"]
    store.close()
    reopened = TestStore(tmp_path / "store.sqlite")
    reopened.loader(LogDir(str(logdir))).poll()
    assert [run.name for run in reopened.runs()] == ["keep"]
    assert steps_of(reopened, "keep", "loss") == list(range(10))
    reopened.close()


def test_a_file_replaced_by_one_of_the_same_size_is_read_again(tmp_path: Path) -> None:
    run = tmp_path / "logs" / "run"
    run.mkdir(parents=True)
    path = run / "events.out.tfevents.1.host"
    path.write_bytes(b"".join(scalar_record(step) for step in range(10, 20)))
    store = TestStore(tmp_path / "store.sqlite")
    loader = store.loader(LogDir(str(tmp_path / "logs")))
    loader.poll()
    replacement = b"".join(scalar_record(step) for step in range(20, 30))
    assert len(replacement) == path.stat().st_size
    path.write_bytes(replacement)
    os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 5))  # a clock that ticks slowly still moves
    loader.poll()
    assert steps_of(store, "run", "x") == list(range(20, 30))
    store.close()


class UnreadableLogDir(LogDir):
    """A logdir whose files named *.bad fail to open, as on a failing disk."""

    def open(self, path: str) -> BinaryIO:
        if path.endswith(".bad"):
            raise OSError(errno.EIO, "input/output error", path)
        return super().open(path)


def test_small_runs_commit_together_and_a_bad_file_falls_back_to_one_run_at_a_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    logdir = tmp_path / "logs"
    runs = [f"run{index:03d}" for index in range(100)]
    for run in runs:
        write_scalars(logdir, run, range(20))
    store = TestStore(tmp_path / "store.sqlite")
    before = store.store.generation(store.experiment_id)
    store.loader(LogDir(str(logdir))).poll()
    # One transaction (one generation) per group of at most GROUP_RUNS runs, not one per file.
    assert store.store.generation(store.experiment_id) - before == -(-len(runs) // GROUP_RUNS)
    assert all(steps_of(store, run, "loss") == list(range(20)) for run in runs)
    store.close()

    more = [f"more{index:03d}" for index in range(10)]
    for run in more:
        write_scalars(logdir, run, range(5))
    write_scalars(logdir, more[3], range(5), suffix=".bad")
    store = TestStore(tmp_path / "store.sqlite")
    loader = store.loader(UnreadableLogDir(str(logdir)))
    with caplog.at_level("INFO", logger="trainboard.ingest"):
        loader.poll()
    assert "on their own" in caplog.text
    assert all(steps_of(store, run, "loss") == list(range(5)) for run in more)
    assert loader.progress.as_json()["points"] == 50
    store.close()
