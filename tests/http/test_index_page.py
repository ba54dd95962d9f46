"""trainboard's own web UI at / (the default --ui): the built page and every file it loads, with TensorBoard's headers,
at / and under --path_prefix. What the page shows is tested in Chromium (tests/browser/test_ui_*.py)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.servers import trainboard_in_process
from trainboard.http.ui.index_page import APP
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


@pytest.mark.parametrize("prefix", ["", "/tb"])
def test_the_page_and_its_files_are_served(prefix: str, tmp_path: Path) -> None:
    with (
        trainboard_in_process(write_hostile_logdir(tmp_path / "logs"), tmp_path, path_prefix=prefix) as server,
        httpx.Client(base_url=f"{server.url}{prefix}") as client,
    ):
        page = client.get("/")
        assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
        assert page.content == (APP / "index.html").read_bytes()
        assert "script-src 'self' 'unsafe-eval'" in page.headers["content-security-policy"]
        assert page.headers["x-content-type-options"] == "nosniff"
        assert client.get("/index.html").content == page.content
        # The page names its files relatively, so that they resolve under the prefix.
        names = re.findall(r'(?:src|href)="\./([^"]+)"', page.text)
        assert {Path(name).suffix for name in names} == {".js", ".css"}
        for name in names:
            asset = client.get(f"/{name}")
            assert asset.status_code == 200 and asset.content == (APP / name).read_bytes()
            expected = "text/javascript" if name.endswith(".js") else "text/css"
            assert asset.headers["content-type"].startswith(expected)
            assert asset.headers["x-content-type-options"] == "nosniff"
        assert client.get("/assets/missing.js").status_code == 404
