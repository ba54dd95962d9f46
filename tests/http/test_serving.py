"""The server answers while ingest goes on, restarts from its store without re-reading, and skips files that are not
regular files (a FIFO named like an event file must not block ingest)."""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import httpx
import pytest

from tests import loopback
from tests.servers import BIN, Server, free_port, running, trainboard_server
from trainboard.http.compression import MINIMUM_SIZE as GZIP_MINIMUM
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record

RUNS = 64
STEPS = 40_000


def write_big_logdir(root: Path) -> Path:
    """RUNS runs of STEPS scalar points each: one file written once and copied, so that writing is quick."""
    first = root / "run_00"
    first.mkdir(parents=True)
    path = first / "events.out.tfevents.1.host"
    with path.open("wb") as stream:
        write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
        for step in range(STEPS):
            event = Event(wall_time=1.0 + step, step=step)
            event.summary.value.add(tag="loss", simple_value=step / STEPS)
            write_record(stream, event.SerializeToString())
    for index in range(1, RUNS):
        (root / f"run_{index:02}").mkdir()
        shutil.copy(path, root / f"run_{index:02}" / path.name)
    return root


def test_answers_while_ingesting_then_restarts_from_the_store(tmp_path: Path) -> None:
    logdir = write_big_logdir(tmp_path / "logs")
    port = free_port()
    command = [
        str(BIN / "trainboard"),
        f"--logdir={logdir}",
        f"--port={port}",
        f"--db={tmp_path / 'store.sqlite'}",
        "--reload_interval=0",
    ]

    def listening(client: httpx.Client) -> bool:
        return client.get("/data/runs").status_code == 200

    with (
        running(command, port, tmp_path / "first.log", listening) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        answered_during_ingest = False
        while not (progress := client.get("/data/ingest_progress").json())["done"]:
            tags = client.get("/data/plugin/scalars/tags")
            assert tags.status_code == 200, tags.text
            answered_during_ingest = True
        assert answered_during_ingest, "ingest finished before the server first answered: make the logdir bigger"
        assert progress["points"] == RUNS * STEPS
        series = client.get("/data/plugin/scalars/scalars", params={"run": "run_07", "tag": "loss"}).json()
        assert [step for _, step, _ in series][-1] == STEPS - 1

    with trainboard_server(logdir, tmp_path, "--reload_interval=0") as server:
        progress = loopback.get(f"{server.url}/data/ingest_progress").json()
        # Every byte was read before: the second start reads none again and adds no point.
        assert progress["bytes_read"] == progress["bytes_total"], progress
        assert progress["points"] == 0, progress
        runs = loopback.get(f"{server.url}/data/runs").json()
        assert len(runs) == RUNS


def test_a_fifo_named_like_an_event_file_is_skipped(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    (logdir / "run").mkdir(parents=True)
    with (logdir / "run" / "events.out.tfevents.1.real").open("wb") as stream:
        event = Event(wall_time=1.0, step=3)
        event.summary.value.add(tag="loss", simple_value=0.5)
        write_record(stream, event.SerializeToString())
    os.mkfifo(logdir / "run" / "events.out.tfevents.2.fifo")
    with trainboard_server(logdir, tmp_path) as server:
        series = loopback.get(f"{server.url}/data/plugin/scalars/scalars", params={"run": "run", "tag": "loss"}).json()
        assert series == [[1.0, 3, 0.5]]


def test_answers_kept_per_generation_are_the_same_gzipped_or_not(full_trainboard: Server) -> None:
    for path in ("/data/runs", "/data/plugin/scalars/tags"):
        plain = loopback.get(full_trainboard.url + path, headers={"Accept-Encoding": "identity"}).raise_for_status()
        zipped = loopback.get(full_trainboard.url + path, headers={"Accept-Encoding": "gzip"}).raise_for_status()
        assert "content-encoding" not in plain.headers
        assert zipped.headers.get("content-encoding") == ("gzip" if len(plain.content) >= GZIP_MINIMUM else None)
        assert zipped.json() == plain.json() and plain.json()
        assert plain.headers["x-content-type-options"] == zipped.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    "path",
    [
        # Whole answers (one body) and streamed ones (parts, each flushed), both through the gzip middleware.
        "/data/scalars",
        "/data/trainboard/scalars?format=csv",
        "/data/trainboard/scalars?format=json",
    ],
)
def test_gzipped_answers_are_the_plain_ones(full_trainboard: Server, path: str) -> None:
    plain = loopback.get(full_trainboard.url + path, headers={"Accept-Encoding": "identity"}).raise_for_status()
    with loopback.stream("GET", full_trainboard.url + path, headers={"Accept-Encoding": "gzip"}) as zipped:
        assert zipped.raise_for_status().headers["content-encoding"] == "gzip"
        raw = b"".join(zipped.iter_raw())
    assert len(plain.content) >= GZIP_MINIMUM
    assert gzip.decompress(raw) == plain.content
    assert len(raw) < len(plain.content) / 2
