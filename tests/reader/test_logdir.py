"""Run discovery on the local filesystem: TensorBoard's run names, and nothing read that is not a regular file inside
the log directory."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from trainboard.reader.logdir import LogDir
from trainboard.reader.records import write_record
from trainboard.reader.tail import read_new


def event_file(directory: Path, name: str = "events.out.tfevents.1.host") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    with path.open("wb") as stream:
        write_record(stream, b"")
    return path


def test_runs_are_relative_paths_with_files_in_name_order(tmp_path: Path) -> None:
    event_file(tmp_path, "events.out.tfevents.2.host")
    event_file(tmp_path, "events.out.tfevents.1.host")
    event_file(tmp_path / "a" / "b")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "notes.txt").write_text("not an event file")
    runs = LogDir(str(tmp_path)).runs()
    assert {run: [Path(path).name for path in paths] for run, paths in runs.items()} == {
        ".": ["events.out.tfevents.1.host", "events.out.tfevents.2.host"],
        "a/b": ["events.out.tfevents.1.host"],
    }


def test_symlinks_out_of_the_logdir_are_neither_listed_nor_opened(tmp_path: Path) -> None:
    outside = event_file(tmp_path / "outside")
    logdir = tmp_path / "logs"
    event_file(logdir / "run")
    (logdir / "run" / "events.out.tfevents.9.link").symlink_to(outside)
    (logdir / "linked").symlink_to(outside.parent, target_is_directory=True)
    reader = LogDir(str(logdir))
    assert {run: [Path(path).name for path in paths] for run, paths in reader.runs().items()} == {
        "run": ["events.out.tfevents.1.host"]
    }
    with pytest.raises(PermissionError):
        reader.open(str(logdir / "run" / "events.out.tfevents.9.link"))
    with pytest.raises(PermissionError):
        read_new(reader, None, str(logdir / "linked" / outside.name))


def test_a_fifo_in_a_files_place_is_refused_without_blocking(tmp_path: Path) -> None:
    path = event_file(tmp_path / "run")
    reader = LogDir(str(tmp_path))
    (found,) = reader.runs()["run"]
    path.unlink()
    os.mkfifo(path)  # after discovery, as a race with the writer would have it
    assert reader.runs() == {}
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_new(reader, None, found)
        except OSError as error:
            outcome.append(error)

    reading = threading.Thread(target=read, daemon=True)
    reading.start()
    reading.join(timeout=10)
    assert not reading.is_alive(), "opening a FIFO blocked"
    assert len(outcome) == 1 and "not a regular file" in str(outcome[0])
