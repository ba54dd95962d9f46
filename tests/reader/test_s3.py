"""s3:// logdirs against a real S3 server (SeaweedFS): the same runs and the same points as the local copy, also while
objects are replaced by longer ones (cut mid-record, then completed), files and runs appear and objects vanish."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import fsspec
import numpy as np
import pytest
from tensorboardX import SummaryWriter

from tests.s3server import S3Server
from tests.stores import TestStore
from trainboard.normaliser.points import DataClass
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record

pytestmark = pytest.mark.s3


def write_run(directory: Path, steps: range, suffix: str = "") -> None:
    """Scalars, histograms, images and text, as tensorboardX writes them."""
    with SummaryWriter(str(directory), filename_suffix=suffix) as writer:
        for step in steps:
            writer.add_scalar("loss", 1 / (step + 1), step)
            writer.add_histogram("weights", np.array([step, step + 1.0, step + 2.0]), step)
            writer.add_image("digit", np.full((3, 4, 5), step % 256, dtype=np.uint8), step)
            writer.add_text("note", f"step **{step}**", step)


def append_scalars(path: Path, steps: range) -> None:
    with path.open("ab") as stream:
        for step in steps:
            event = Event(wall_time=2e9 + step, step=step)
            event.summary.value.add(tag="loss", simple_value=1 / (step + 1))
            write_record(stream, event.SerializeToString())


def contents(store: TestStore) -> dict[tuple[str, str], tuple[Any, list[Any]]]:
    """Every series of the store: its metadata and every point (step, wall time, value or tensor or blobs)."""
    found: dict[tuple[str, str], tuple[Any, list[Any]]] = {}
    for row in store.series():
        points: list[Any]
        if row.metadata.data_class == DataClass.SCALAR:
            columns = store.scalars(row.id)
            points = list(
                zip(columns.steps.tolist(), columns.wall_times.tolist(), columns.values.tolist(), strict=True)
            )
        elif row.metadata.data_class == DataClass.BLOB_SEQUENCE:
            points = [
                (point.step, point.wall_time, [store.blob(key) for key in point.blob_keys])
                for point in store.blob_sequences(row.id)
            ]
        else:
            points = [(point.step, point.wall_time, point.tensor) for point in store.tensors(row.id)]
        found[(row.run, row.tag)] = (row.metadata, points)
    return found


def files_by_run(logdir: LogDir) -> dict[str, list[str]]:
    return {run: [path.rsplit("/", 1)[-1] for path in paths] for run, paths in logdir.runs().items()}


class Mirror:
    """A local logdir, its copy under an S3 prefix, and a loader with its own store for each."""

    def __init__(self, s3: S3Server, local: Path, prefix: str, scratch: Path) -> None:
        self.s3, self.local, self.prefix = s3, local, prefix
        # Its own client, as another machine's sync tool: no cache shared with the logdir's.
        self.filesystem = fsspec.filesystem("s3", skip_instance_cache=True, **s3.storage_options())
        self.remote = LogDir(f"s3://{s3.bucket}/{prefix}", storage_options=s3.storage_options())
        self.local_store = TestStore(scratch / "local.sqlite")
        self.remote_store = TestStore(scratch / "remote.sqlite")
        self.local_loader = self.local_store.loader(LogDir(str(local)))
        self.remote_loader = self.remote_store.loader(self.remote)

    def key(self, path: Path) -> str:
        return f"{self.s3.bucket}/{self.prefix}/{path.relative_to(self.local).as_posix()}"

    def upload(self, path: Path, data: bytes | None = None) -> None:
        """One object, from the local file or from `data` (an object replaced whole, as S3 does)."""
        self.filesystem.pipe_file(self.key(path), path.read_bytes() if data is None else data)

    def upload_all(self) -> None:
        for path in self.local.rglob("*"):
            if path.is_file():
                self.upload(path)

    def remove(self, path: Path) -> None:
        self.filesystem.rm_file(self.key(path))
        path.unlink()

    def load(self) -> dict[tuple[str, str], tuple[Any, list[Any]]]:
        """Poll both; the remote store must hold exactly what the local one does."""
        self.local_loader.poll()
        self.remote_loader.poll()
        assert files_by_run(self.remote) == files_by_run(LogDir(str(self.local)))
        found = contents(self.remote_store)
        assert found == contents(self.local_store)
        return found

    def close(self) -> None:
        self.local_store.close()
        self.remote_store.close()


def scalar_steps(found: dict[tuple[str, str], tuple[Any, list[Any]]], run: str) -> list[int]:
    return [point[0] for point in found[(run, "loss")][1]]


def test_an_s3_logdir_loads_like_its_local_copy_and_is_tailed(s3: S3Server, tmp_path: Path) -> None:
    local = tmp_path / "logs"
    for run in (".", "train", "eval/a"):
        write_run(local / run, range(20))
    (local / "notes").mkdir()
    (local / "notes" / "README.txt").write_text("no event files here yet")
    # The session's S3 server (tests/conftest.py), under a prefix of its own.
    mirror = Mirror(s3, local, f"experiment-{uuid.uuid4().hex}", tmp_path)
    try:
        mirror.upload_all()
        assert sorted(mirror.remote.runs()) == [".", "eval/a", "train"]
        found = mirror.load()
        assert {tag for run, tag in found if run == "train"} == {"loss", "weights", "digit", "note/text_summary"}
        assert scalar_steps(found, "train") == list(range(20))

        # The writer goes on; a sync tool replaces the object with longer versions, the first cut inside a record.
        (train,) = (local / "train").iterdir()
        before = train.read_bytes()
        append_scalars(train, range(20, 30))
        grown = train.read_bytes()
        mirror.upload(train, grown[: len(before) + (len(grown) - len(before)) // 2 + 7])  # inside the 26th step
        mirror.remote_loader.poll()
        assert scalar_steps(contents(mirror.remote_store), "train") == list(range(25))
        mirror.upload(train)
        assert scalar_steps(mirror.load(), "train") == list(range(30))

        # A second file in a run, new runs below directories without event files of their own, a vanished object.
        write_run(local / "train", range(30, 35), suffix=".2")
        write_run(local / "eval" / "b", range(5))
        write_run(local / "notes" / "run", range(5))
        mirror.upload_all()
        found = mirror.load()
        assert sorted(mirror.remote.runs()) == [".", "eval/a", "eval/b", "notes/run", "train"]
        assert scalar_steps(found, "train") == list(range(35))
        (root,) = (path for path in local.iterdir() if path.is_file())
        mirror.remove(root)
        # A vanished object takes its points along (and its run, when it was the run's last file).
        assert mirror.load() == {key: value for key, value in found.items() if key[0] != "."}
    finally:
        mirror.close()
