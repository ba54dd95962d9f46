"""TS-VIS's own web UI (--ui tsvis) against trainboard's TS-VIS API, in Debian's Chromium: its graph, scalar, media,
statistics and hyperparameter panels draw the data trainboard serves for TS-VIS's sample log and a run written by
TS-VIS's own SummaryWriter."""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests import loopback
from tests.browser.test_tensorboard_ui import TIMEOUT_MS
from tests.servers import trainboard_in_process
from tests.tsvis.logdirs import FIXTURES, WRITE_EVERY_KIND
from tests.tsvis.venv import run_in_tsvis

pytestmark = pytest.mark.browser

# TS-VIS's bundle asks for an image at its developers' address; the Content-Security-Policy rightly blocks it.
TSVIS_OWN_FAULT = "http://localhost:8080/"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("tsvis_ui")
    logdir = root / "logs"
    logdir.mkdir()
    shutil.copy(FIXTURES / "logs" / "events.out.FX50-PRO", logdir)
    run_in_tsvis(WRITE_EVERY_KIND, str(logdir))
    with trainboard_in_process(logdir, root / "server", "--ui=tsvis") as server:
        yield server.url


@pytest.fixture
def page(browser: Browser, served: str, tmp_path: Path) -> Iterator[Page]:
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(served + "/")
        yield page
        page.screenshot(path=str(tmp_path / "tsvis.png"), full_page=True)
    finally:
        page.context.close()
    assert [error for error in errors if TSVIS_OWN_FAULT not in error] == []


def panel(page: Page, name: str) -> None:
    page.get_by_text(name, exact=True).first.click()


def api(served: str, path: str) -> object:
    answer = loopback.get(served + path, timeout=30).json()
    assert answer["code"] == 200, answer["msg"]
    return answer["data"]


def test_graph(page: Page) -> None:
    """The default panel: the computation graph's top-level scopes as nodes, edges labelled with shapes."""
    graph = page.locator("svg", has=page.locator("text", has_text="Minist")).first
    graph.wait_for(timeout=TIMEOUT_MS)
    labels = graph.locator("text").evaluate_all("texts => texts.map(text => text.textContent)")
    assert {"Input", "Minist", "output"} <= set(labels)
    assert "{1,1,28,28}" in labels


def test_scalars(page: Page, served: str) -> None:
    """One line per run, with as many points as trainboard serves."""
    panel(page, "标量数据")
    titles = page.locator(".scalarContainerTitle")
    titles.first.wait_for(timeout=TIMEOUT_MS)
    for run in ("run", "."):
        served_points = api(served, f"/api/scalar?run={run}&tag=loss")["loss"]  # type: ignore[index]
        title = page.locator(".scalarContainerTitle", has_text=f"{run} loss")
        chart = page.locator(".el-card", has=title)
        path = chart.locator("path.originalline").first
        path.wait_for(timeout=TIMEOUT_MS)
        assert (path.get_attribute("d") or "").count("L") == len(served_points) - 1


def test_images(page: Page, served: str) -> None:
    panel(page, "媒体数据")
    image = page.locator("img.el-image__inner").first
    image.wait_for(timeout=TIMEOUT_MS)
    sources = page.locator("img.el-image__inner").evaluate_all("images => images.map(image => image.src)")
    first = api(served, "/api/image_raw?run=run&tag=picture&step=0")
    assert first in sources
    assert base64.b64decode(str(first).split(",", 1)[1]).startswith(b"\x89PNG")


def test_histograms(page: Page) -> None:
    panel(page, "统计分析")
    card = page.locator("svg", has=page.locator("path")).nth(1)
    card.wait_for(timeout=TIMEOUT_MS)
    assert page.locator("text=weights").count() >= 1
    assert page.locator("svg path").count() > 10


def test_hyperparameters(page: Page, served: str) -> None:
    """The run with hyperparameters: a table row per session, its metric the last loss served."""
    panel(page, "超参分析")
    page.locator("text=metric/loss").first.wait_for(timeout=TIMEOUT_MS)
    body = page.locator("body").inner_text()
    for value in ("adam", "sgd", "0.01", "0.1"):
        assert value in body
    loss = api(served, "/api/scalar?run=run&tag=loss")["loss"][-1]["value"]  # type: ignore[index]
    assert f"{loss:.4f}" in body
