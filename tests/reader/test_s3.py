"""s3:// logdirs against a real S3 server: the same runs, the same points as the local copy, and objects replaced by
longer ones are tailed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import fsspec
import pytest
from tensorboardX import SummaryWriter

from tests.s3server import S3Server, s3_server
from trainboard.ingest.loader import Loader
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record
from trainboard.store.sqlite import SqliteStore

pytestmark = pytest.mark.s3


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    with s3_server(tmp_path_factory.mktemp("s3")) as server:
        yield server


def write_logdir(root: Path, steps: range) -> None:
    for run in ("train", "eval/a"):
        with SummaryWriter(str(root / run), filename_suffix=".test") as writer:
            for step in steps:
                writer.add_scalar("loss", 1 / (step + 1), step)
                writer.add_histogram("weights", [step, step + 1.0, step + 2.0], step)


def points(store: SqliteStore) -> dict[tuple[str, str], list[int]]:
    found = {}
    for row in store.series():
        if row.metadata.plugin_name == "scalars":
            found[(row.run, row.tag)] = store.scalars(row.id).steps.tolist()
        else:
            found[(row.run, row.tag)] = [point.step for point in store.tensors(row.id)]
    return found


def upload(s3: S3Server, local: Path, prefix: str) -> None:
    filesystem = fsspec.filesystem("s3", **s3.storage_options())
    for path in local.rglob("*"):
        if path.is_file():
            filesystem.put_file(str(path), f"{s3.bucket}/{prefix}/{path.relative_to(local).as_posix()}")


def test_an_s3_logdir_loads_like_its_local_copy_and_is_tailed(s3: S3Server, tmp_path: Path) -> None:
    local = tmp_path / "logs"
    write_logdir(local, range(50))
    upload(s3, local, "experiment")
    remote = LogDir(f"s3://{s3.bucket}/experiment", storage_options=s3.storage_options())
    assert sorted(remote.runs()) == sorted(LogDir(str(local)).runs()) == ["eval/a", "train"]

    local_store, remote_store = SqliteStore(tmp_path / "local.sqlite"), SqliteStore(tmp_path / "remote.sqlite")
    Loader(LogDir(str(local)), lambda: local_store).poll()
    remote_loader = Loader(remote, lambda: remote_store)
    remote_loader.poll()
    assert points(remote_store) == points(local_store)
    assert points(remote_store)[("train", "loss")] == list(range(50))

    # The writer went on: each object is replaced by a longer version of itself.
    for events in local.rglob("*tfevents*"):
        with events.open("ab") as stream:
            for step in range(50, 60):
                event = Event(wall_time=2e9 + step, step=step)
                event.summary.value.add(tag="loss", simple_value=1 / (step + 1))
                write_record(stream, event.SerializeToString())
    upload(s3, local, "experiment")
    remote_loader.poll()
    assert points(remote_store)[("train", "loss")] == list(range(60))
    local_store.close()
    remote_store.close()
