"""trainboard's page at / (the default --ui): every run with its tags by plugin, escaped, and ingest progress."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import httpx

from tests.servers import Server, trainboard_server
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record

HOSTILE = "<script>alert(1)</script>"


def write_hostile_logdir(root: Path) -> Path:
    """One run and one tag whose names are markup."""
    run = root / HOSTILE
    run.mkdir(parents=True)
    with (run / "events.out.tfevents.1.host").open("wb") as stream:
        event = Event(wall_time=1.0, step=1)
        event.summary.value.add(tag=f"loss {HOSTILE}", simple_value=0.5)
        write_record(stream, event.SerializeToString())
    return root


def plugin_tags(page: str, run: str) -> dict[str, list[str]]:
    """The plugins and tags the page lists under `run`."""
    section = re.search(f"<h2>{re.escape(escape(run))}</h2><ul>(.*?)</ul>", page)
    assert section, f"run {run!r} not on the page"
    return {plugin: names.split(", ") for plugin, names in re.findall(r"<li><b>([^<]*)</b>: ([^<]*)</li>", section[1])}


def test_names_are_escaped(tmp_path: Path) -> None:
    with trainboard_server(write_hostile_logdir(tmp_path / "logs"), tmp_path) as server:
        page = httpx.get(server.url + "/")
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    assert "script-src 'self' 'unsafe-eval'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "<script" not in page.text
    assert plugin_tags(page.text, HOSTILE) == {"scalars": [escape(f"loss {HOSTILE}")]}


def test_every_run_is_listed_with_its_tags_by_plugin(full_trainboard: Server) -> None:
    with httpx.Client(base_url=full_trainboard.url) as client:
        page = client.get("/").text
        runs = client.get("/data/runs").json()
        expected = {
            plugin: client.get(f"/data/plugin/{plugin}/tags").json()
            for plugin in ("scalars", "histograms", "images", "audio", "text", "pr_curves")
        }
        progress = client.get("/data/ingest_progress").json()
    assert len(runs) > 3
    for run in runs:
        listed = plugin_tags(page, run)
        for plugin, tags in expected.items():
            assert listed.get(plugin, []) == sorted(escape(tag) for tag in tags.get(run, {})), (run, plugin)
    assert f"ingest done: {progress['files_done']}/{progress['files_total']} files" in page
    assert 'http-equiv="refresh"' not in page  # reloads itself only while ingest goes on
