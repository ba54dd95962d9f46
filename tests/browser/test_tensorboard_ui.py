"""TensorBoard's own web UI, served by trainboard (--ui tensorboard) from the full logdir, renders a Time Series
scalar chart, a histogram and an image in Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from tests.servers import Server, trainboard_server

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def ui_server(full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with trainboard_server(full_logdir, tmp_path_factory.mktemp("ui"), "--ui=tensorboard") as server:
        yield server


@pytest.fixture
def page() -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 1000})
        finally:
            browser.close()


def test_time_series_renders_a_scalar_chart_a_histogram_and_an_image(
    ui_server: Server, page: Page, tmp_path: Path
) -> None:
    failed: list[str] = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 500 else None)
    page.goto(f"{ui_server.url}/#timeseries", timeout=TIMEOUT_MS)
    try:
        # A scalar chart draws its line series into a canvas or an SVG path.
        page.wait_for_selector("scalar-card", timeout=TIMEOUT_MS)
        page.wait_for_function(
            """() => [...document.querySelectorAll('scalar-card')].some(card =>
                   card.querySelector('canvas, svg path.line, line-chart'))""",
            timeout=TIMEOUT_MS,
        )
        page.wait_for_selector("histogram-card", timeout=TIMEOUT_MS)
        page.wait_for_function(
            """() => [...document.querySelectorAll('histogram-card')].some(card =>
                   card.querySelector('svg path, canvas, tb-histogram'))""",
            timeout=TIMEOUT_MS,
        )
        # Cards render when scrolled into view: show the image cards alone.
        page.get_by_text("Image", exact=True).first.click()
        page.get_by_text("batch", exact=True).first.click()  # image groups start collapsed
        page.wait_for_selector("image-card", timeout=TIMEOUT_MS)
        page.wait_for_function(
            """() => [...document.querySelectorAll('image-card img')].some(image =>
                   image.complete && image.naturalWidth > 0)""",
            timeout=TIMEOUT_MS,
        )
    finally:
        page.screenshot(path=str(tmp_path / "timeseries.png"), full_page=True)
    assert not failed, f"server errors: {failed}"
