"""trainboard's own web UI, its embeddings dashboard, in Debian's Chromium on embeddings written by TS-VIS's own
SummaryWriter and by torch's add_embedding: the points, labels and samples shown are those the TS-VIS API serves."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page

from tests import loopback
from tests.browser.ui import ui_page
from tests.servers import Server, trainboard_in_process
from tests.tsvis.logdirs import write_api_logdir

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("embeddings")
    write_api_logdir(root / "logs")
    with trainboard_in_process(root / "logs", root / "server") as served:
        yield served


def tsvis(server: Server, route: str, **params: str) -> Any:
    answer = loopback.get(f"{server.url}/api/{route}", params=params, timeout=120).raise_for_status().json()
    assert answer["code"] == 200, answer
    return answer["data"]


def drawn(page: Page, dims: int, run: str = "run") -> None:
    """Wait until the dashboard has drawn `run`'s embedding in `dims` dimensions (stale answers are dropped)."""
    page.wait_for_function(
        "([dims, run]) => document.querySelector('.dashboard.embeddings')?.dataset.state === 'drawn'"
        " && document.querySelector('.embedding-plot').dataset.dims === String(dims)"
        " && document.querySelector('.embedding-plot').dataset.shown.startsWith(run + '/')",
        arg=[dims, run],
    )


def assert_drawn_where_served(page: Page, points: list[list[float]], labels: list[Any]) -> None:
    """The point farthest from the centre (scaled to 0.95 of the plot's half width) is painted where its served
    coordinates put it, and the pointer there picks it."""
    plot = page.locator(".embedding-plot")
    box = plot.bounding_box()
    assert box is not None
    farthest = max(range(len(points)), key=lambda index: math.hypot(*points[index]))
    scale = 0.95 / math.hypot(*points[farthest])
    x, y = points[farthest]
    at_x, at_y = box["x"] + (x * scale + 1) / 2 * box["width"], box["y"] + (1 - y * scale) / 2 * box["height"]
    painted = Image.open(io.BytesIO(page.screenshot(clip={"x": at_x - 1, "y": at_y - 1, "width": 3, "height": 3})))
    background = Image.open(
        io.BytesIO(page.screenshot(clip={"x": box["x"] + 4, "y": box["y"] + 4, "width": 3, "height": 3}))
    )
    assert painted.convert("RGB").getpixel((1, 1)) != background.convert("RGB").getpixel((1, 1))
    page.mouse.move(at_x, at_y)
    picked = page.locator("#embedding-picked")
    assert picked.get_attribute("data-index") == str(farthest)
    assert picked.get_attribute("data-label") == str(labels[farthest])


def test_points_labels_and_samples_are_the_served_ones(server: Server, browser: Browser) -> None:
    steps = tsvis(server, "projector", run="run", tag="features")["features"]
    step = str(steps[-1])
    points, labels = tsvis(server, "projector_data", run="run", tag="features", step=step, method="pca", dims="2")[step]
    with ui_page(browser, "embeddings") as page:
        page.goto(f"{server.url}/#dashboard=embeddings")
        page.select_option("#embedding-run", "run")
        page.select_option("#embedding-tag", "features")
        drawn(page, 2)
        assert page.input_value("#embedding-step") == step
        plot = page.locator(".embedding-plot")
        assert plot.get_attribute("data-points") == str(len(points))
        assert page.locator("#embedding-status").inner_text().startswith(f"{len(points)} points, 2-D pca")

        plot.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        picked = page.locator("#embedding-picked")
        assert picked.get_attribute("data-index") == "2"
        assert picked.get_attribute("data-label") == str(labels[2])
        page.keyboard.press("Enter")
        sample = tsvis(server, "projector_sample", run="run", tag="features", step=step, index="2")
        assert page.locator("#embedding-sample img").get_attribute("src") == sample

        assert_drawn_where_served(page, points, labels)

        page.select_option("#embedding-dims", "3")
        drawn(page, 3)
        before = plot.get_attribute("data-yaw")
        box = plot.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + 100, box["y"] + 100)
        page.mouse.down()
        page.mouse.move(box["x"] + 220, box["y"] + 140, steps=5)
        page.mouse.up()
        assert plot.get_attribute("data-yaw") != before


def test_torch_embedding_projects_with_its_metadata(server: Server, browser: Browser) -> None:
    steps = tsvis(server, "projector", run="torch_embedding", tag="feat")["feat"]
    step = str(steps[-1])
    points, labels = tsvis(
        server, "projector_data", run="torch_embedding", tag="feat", step=step, method="pca", dims="2"
    )[step]
    with ui_page(browser, "embeddings-torch") as page:
        page.goto(f"{server.url}/#dashboard=embeddings")
        page.select_option("#embedding-run", "torch_embedding")
        drawn(page, 2, "torch_embedding")
        assert page.locator(".embedding-plot").get_attribute("data-points") == str(len(points))
        page.locator(".embedding-plot").focus()
        page.keyboard.press("ArrowRight")
        assert page.locator("#embedding-picked").get_attribute("data-label") == str(labels[0])
