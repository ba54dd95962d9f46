"""The `trainboard` command as users run it: a real process on loopback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx

from tests.servers import BIN, free_port, running
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record


def ingested(client: httpx.Client) -> bool:
    return client.get("/data/ingest_progress").raise_for_status().json()["done"] is True


def test_without_a_logdir_it_writes_and_serves_the_demo(tmp_path: Path) -> None:
    port = free_port()
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [str(BIN / "trainboard"), f"--port={port}", "--reload_interval=0"]
    log = tmp_path / "demo.log"
    with running(command, port, log, ingested, env=environment) as server, httpx.Client(base_url=server.url) as client:
        assert sorted(client.get("/data/runs").json()) == ["eval", "train/lr-0.01", "train/lr-0.1"]
        tags = client.get("/data/plugin/scalars/tags").json()
        assert set(tags["train/lr-0.1"]) == {"loss", "accuracy", "learning_rate"}
        steps = [
            step for _, step, _ in client.get("/data/scalars", params={"run": "train/lr-0.1", "tag": "loss"}).json()
        ]
        # The restart at step 120 dropped the first life's steps 120..149: each step is there once.
        assert steps == list(range(200))
        for plugin in ("images", "audio", "histograms", "text"):
            assert client.get(f"/data/plugin/{plugin}/tags").json()["eval"], plugin
    output = log.read_text()
    assert "serving the demo logdir" in output
    assert "ingest done: 3/3 files" in output


def test_logdir_spec_names_runs_by_group(tmp_path: Path) -> None:
    for group, run in (("a", "x"), ("b", ".")):
        directory = tmp_path / group / run
        directory.mkdir(parents=True, exist_ok=True)
        with (directory / "events.out.tfevents.1.host").open("wb") as stream:
            event = Event(wall_time=1.0, step=1)
            event.summary.value.add(tag="loss", simple_value=0.5)
            write_record(stream, event.SerializeToString())
    port = free_port()
    spec = f"first:{tmp_path / 'a'},second:{tmp_path / 'b'}"
    command = [str(BIN / "trainboard"), f"--logdir_spec={spec}", f"--port={port}", f"--db={tmp_path / 's.sqlite'}"]
    with running(command, port, tmp_path / "spec.log", ingested) as server:
        assert sorted(httpx.get(f"{server.url}/data/runs").json()) == ["first/x", "second/."]


def test_bad_flags_exit_with_a_message(tmp_path: Path) -> None:
    for flags, message in (
        (["--port=notanumber"], "invalid int value"),
        (["--samples_per_plugin=scalars"], "name=count"),
        (["--nope"], "unrecognized arguments"),
    ):
        result = subprocess.run([str(BIN / "trainboard"), *flags], capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, (flags, result)
        assert message in result.stderr, (flags, result.stderr)
