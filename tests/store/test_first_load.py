"""A rebuildable store's first load: unsynced while it lasts (its sentinel says so), synced after; a first load that
did not end (its process killed) is moved aside and made again, and answers as a cold load does."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import numpy as np

from tests import loopback
from tests.servers import BIN, free_port, trainboard_server
from trainboard.ingest.loader import Loader
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import Summary
from trainboard.reader.records import write_record
from trainboard.store.opening import open_store
from trainboard.store.sqlite.first_load import sentinel_of

IMAGES = 40
IMAGE_BYTES = 4 << 20


def write_logdir(root: Path) -> Path:
    """A run of scalars, and one of 40 images of 4 MB each (160 MB to store: its first load takes a while)."""
    rng = np.random.default_rng(0)
    for run, events in (("scalars", _scalar_events(rng)), ("images", _image_events(rng))):
        (root / run).mkdir(parents=True)
        with (root / run / "events.out.tfevents.1.host").open("wb") as stream:
            write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
            for event in events:
                write_record(stream, event.SerializeToString())
    return root


def _scalar_events(rng: np.random.Generator) -> list[Event]:
    events = []
    for step in range(500):
        event = Event(wall_time=2.0 + step, step=step)
        event.summary.value.add(tag="loss", simple_value=float(rng.normal()))
        events.append(event)
    return events


def _image_events(rng: np.random.Generator) -> list[Event]:
    events = []
    for step in range(IMAGES):
        event = Event(wall_time=2.0 + step, step=step)
        image = Summary.Image(height=1, width=1, colorspace=3, encoded_image_string=rng.bytes(IMAGE_BYTES))
        event.summary.value.add(tag="big", image=image)
        events.append(event)
    return events


def synchronous(path: Path) -> int:
    """The synchronous setting of the store's writer, read through the store (it is per connection)."""
    store = open_store(str(path), rebuildable=True)
    try:
        return int(store.database.sqlite.writer.execute("PRAGMA synchronous").fetchone()[0])  # type: ignore[attr-defined]
    finally:
        store.close()


def test_a_new_rebuildable_store_loads_unsynced_then_syncs_as_usual(tmp_path: Path) -> None:
    logdir = write_logdir(tmp_path / "logs")
    path = tmp_path / "store.sqlite"
    store = open_store(str(path), rebuildable=True)
    try:
        assert sentinel_of(path).exists()
        writer = store.database.sqlite.writer  # type: ignore[attr-defined]
        assert writer.execute("PRAGMA synchronous").fetchone()[0] == 0  # OFF
        experiment = store.create_experiment("logs")
        assert store.claim_writer(experiment.id)
        Loader(LogDir(str(logdir)), store, experiment.id).poll()
        assert not sentinel_of(path).exists()
        assert writer.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        counts = {(row.run, row.tag): row.point_count for row in store.series(experiment.id)}
        assert counts == {("scalars", "loss"): 500, ("images", "big"): IMAGES}
    finally:
        store.close()
    assert synchronous(path) == 1 and not sentinel_of(path).exists()


def test_only_a_new_rebuildable_store_has_a_first_load(tmp_path: Path) -> None:
    plain = tmp_path / "plain.sqlite"
    open_store(str(plain)).close()
    assert not sentinel_of(plain).exists()
    closed_early = tmp_path / "closed.sqlite"
    open_store(str(closed_early), rebuildable=True).close()  # closed before any pass: synced as it closes
    assert not sentinel_of(closed_early).exists()
    assert not list(tmp_path.glob("*.damaged-*"))


def test_a_second_opener_during_the_first_load_leaves_it_alone(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    loading = open_store(str(path), rebuildable=True)
    try:
        experiment = loading.create_experiment("logs")
        second = open_store(str(path), rebuildable=True)
        try:
            assert [e.id for e in second.experiments()] == [experiment.id]
        finally:
            second.close()
        assert sentinel_of(path).exists() and not list(tmp_path.glob("*.damaged-*"))
    finally:
        loading.close()
    assert not sentinel_of(path).exists()


def test_a_first_load_killed_midway_is_made_again_and_answers_as_a_cold_load(tmp_path: Path) -> None:
    logdir = write_logdir(tmp_path / "logs")
    killed = tmp_path / "killed"
    killed.mkdir()
    store = killed / "store.sqlite"
    command = [str(BIN / "trainboard"), f"--logdir={logdir}", f"--db={store}", f"--port={free_port()}"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wal = Path(f"{store}-wal")
        deadline = time.monotonic() + 60
        # Killed once the images are being written (a few MB in the write-ahead log), long before they all are.
        while not (wal.exists() and wal.stat().st_size > 2 * IMAGE_BYTES):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    assert sentinel_of(store).exists(), "the first load ended before the kill: the test proves nothing"
    with sqlite3.connect(store) as partial:
        stored = partial.execute("SELECT COUNT(*) FROM blob_points").fetchone()[0]
    assert stored < IMAGES

    with trainboard_server(logdir, killed) as again, trainboard_server(logdir, tmp_path / "cold") as cold:
        assert [path.name.split(".damaged-")[0] for path in killed.glob("*.damaged-*")][:1] == ["store.sqlite"]
        assert not sentinel_of(store).exists()
        for path in (
            "/data/runs",
            "/data/plugin/scalars/scalars?run=scalars&tag=loss",
            "/data/plugin/images/images?run=images&tag=big",
        ):
            expected = loopback.get(cold.url + path).raise_for_status().json()
            assert loopback.get(again.url + path).raise_for_status().json() == expected, path
        images = loopback.get(again.url + "/data/plugin/images/images?run=images&tag=big").json()
        assert [image["step"] for image in images] == list(range(IMAGES))


def test_a_store_loaded_and_stopped_cleanly_is_kept_at_the_next_start(tmp_path: Path) -> None:
    logdir = write_logdir(tmp_path / "logs")
    for _ in range(2):
        with trainboard_server(logdir, tmp_path) as server:
            assert len(loopback.get(server.url + "/data/plugin/images/images?run=images&tag=big").json()) == IMAGES
        assert not sentinel_of(tmp_path / "store.sqlite").exists()
    assert not list(tmp_path.glob("*.damaged-*"))
    assert synchronous(tmp_path / "store.sqlite") == 1
