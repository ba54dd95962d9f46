"""The pages at /: trainboard's index (runs and tags, escaped) and TensorBoard's own UI with --ui tensorboard."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.servers import trainboard_server
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record

HOSTILE = "<script>alert(1)</script>"


def write_logdir(root: Path) -> Path:
    run = root / HOSTILE
    run.mkdir(parents=True)
    with (run / "events.out.tfevents.1.host").open("wb") as stream:
        event = Event(wall_time=1.0, step=1)
        event.summary.value.add(tag=f"loss {HOSTILE}", simple_value=0.5)
        write_record(stream, event.SerializeToString())
    return root


def test_index_lists_runs_and_tags_escaped(tmp_path: Path) -> None:
    with trainboard_server(write_logdir(tmp_path / "logs"), tmp_path) as server:
        page = httpx.get(server.url + "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert HOSTILE not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "loss &lt;script&gt;" in page.text
    assert "ingest done" in page.text


def test_tensorboard_ui_is_served_from_the_tensorboard_package(tmp_path: Path) -> None:
    with trainboard_server(write_logdir(tmp_path / "logs"), tmp_path, "--ui=tensorboard") as server:
        index = httpx.get(server.url + "/")
        script = httpx.get(server.url + "/index.js")
        runs = httpx.get(server.url + "/data/runs")
    assert index.text.startswith('<!doctype html><meta name="tb-relative-root" content="./">')
    assert "<tf-tensorboard" in index.text or "tb-webapp" in index.text
    assert "default-src 'self'" in index.headers["content-security-policy"]
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert runs.json() == [HOSTILE]
