"""`%load_ext trainboard` and `%trainboard` in a real Jupyter kernel (ipykernel, driven by nbclient): the cell's
output holds an iframe of a trainboard server that serves the logdir; the same magic again reuses that server, and
`trainboard.notebook.display(port=...)` shows it again."""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import nbformat
import psutil
import pytest
from nbclient import NotebookClient

from tests.notebook.proxy import jupyter_style_proxy
from trainboard.demo import write_demo

IFRAME = re.compile(r'<iframe\b[^>]*\bsrc="(http://[^"?]+/)\??"')
# The script and stylesheet of trainboard's page, relative to the page.
ASSETS = re.compile(r'(?:src|href)="(\./assets/[^"]+)"')
WAIT_SECONDS = 60


@pytest.fixture
def environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The kernel's environment (it inherits this process's): a temporary directory for the servers' info files and
    a cache for their stores; the servers the notebook started are killed afterwards."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    try:
        yield scratch
    finally:
        for path in (scratch / "trainboard-info").glob("pid-*.json"):
            try:
                server = psutil.Process(json.loads(path.read_text())["pid"])
            except psutil.NoSuchProcess:
                continue
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)


def run_notebook(cells: list[str], cwd: Path) -> list[dict[str, Any]]:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    NotebookClient(notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return [cell for cell in notebook.cells]


def iframe_url(cell: dict[str, Any]) -> str:
    html = [output["data"]["text/html"] for output in cell["outputs"] if "text/html" in output.get("data", {})]
    assert len(html) == 1, cell["outputs"]
    found = IFRAME.search(html[0])
    assert found, html[0]
    return found.group(1)


def text(cell: dict[str, Any]) -> str:
    return "".join(output.get("text", "") for output in cell["outputs"] if output["output_type"] == "stream")


def test_the_magic_shows_a_server_of_the_logdir_and_reuses_it(environment: Path, tmp_path: Path) -> None:
    write_demo(tmp_path / "runs")
    cells = run_notebook(
        [
            "%load_ext trainboard",
            "%trainboard --logdir runs",
            "%trainboard --logdir runs",
            "import trainboard.notebook\n"
            "port = trainboard.notebook.servers()[0].port\n"
            "trainboard.notebook.display(port=port)",
        ],
        cwd=tmp_path,
    )
    url = iframe_url(cells[1])
    assert "Started trainboard at " + url in text(cells[1])
    assert iframe_url(cells[2]) == url == iframe_url(cells[3])
    assert "Reusing trainboard at " + url in text(cells[2])
    infos = list((environment / "trainboard-info").glob("pid-*.json"))
    assert len(infos) == 1
    assert json.loads(infos[0].read_text())["arguments"] == ["--logdir", "runs"]
    with httpx.Client(base_url=url, timeout=30) as client:
        page = client.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        deadline = time.monotonic() + WAIT_SECONDS
        while len(runs := client.get("/data/runs").json()) < 12 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert {".", "eval", "tsvis", "sweep/lr-0.1/seed-0"} <= set(runs) and len(runs) == 12


def test_a_server_that_cannot_start_is_reported_in_the_cell(environment: Path, tmp_path: Path) -> None:
    cells = run_notebook(["%load_ext trainboard", "%trainboard --logdir runs --no_such_flag"], cwd=tmp_path)
    errors = "".join(o.get("text", "") for o in cells[1]["outputs"] if o.get("name") == "stderr")
    assert "trainboard exited with code 2" in errors and "--no_such_flag" in errors
    assert not any("text/html" in output.get("data", {}) for output in cells[1]["outputs"])
    assert list((environment / "trainboard-info").glob("pid-*.json")) == []


def test_behind_a_notebook_servers_proxy_the_frame_goes_through_it(
    environment: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JupyterHub, a remote VS Code: the browser reaches the kernel's machine only through the notebook server's
    proxy (jupyter-server-proxy's /proxy/<port>/), named by TensorBoard's TENSORBOARD_PROXY_URL."""
    write_demo(tmp_path / "runs")
    with jupyter_style_proxy() as template:
        monkeypatch.setenv("TENSORBOARD_PROXY_URL", template)
        cells = run_notebook(["%load_ext trainboard", "%trainboard --logdir runs"], cwd=tmp_path)
        direct = re.search(r"Started trainboard at (\S+) ", text(cells[1]))
        assert direct, text(cells[1])
        port = httpx.URL(direct.group(1)).port
        framed = iframe_url(cells[1])
        assert framed == template.replace("%PORT%", str(port))
        with httpx.Client(base_url=framed, timeout=30) as client:
            page = client.get("")
            assert page.status_code == 200 and "text/html" in page.headers["content-type"]
            assets = ASSETS.findall(page.text)
            assert len(assets) == 2
            assert all(client.get(asset).status_code == 200 for asset in assets)
            deadline = time.monotonic() + WAIT_SECONDS
            while len(runs := client.get("data/runs").json()) < 12 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert len(runs) == 12
