"""TensorBoard's own web UI, served by trainboard (--ui tensorboard, at /, under --path_prefix, and per experiment by
trainboard serve) from the full logdir:
its Time Series dashboard draws a scalar chart, a histogram and an image from trainboard's answers in Debian's
Chromium."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Browser, Locator, Page, Response

from tests import loopback
from tests.commands import in_process_command
from tests.servers import Server, in_process, trainboard_in_process, trainboard_store_in_process

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
# Written by tests.logdirs: one run with this scalar tag and a histogram tag; torch's add_images puts each step's
# four 8x6 images side by side.
SCALAR_RUN, SCALAR_TAG, HISTOGRAM_TAG = "eval/a", "accuracy", "activations"
IMAGE_TAG, IMAGE_SIZE = "batch", (4 * 8, 6)
# A pixel of a line in a run's colour: far from grey (the grid, the axes, the white background).
SATURATION = 80
LINE_PIXELS = 100


@pytest.fixture(scope="module", params=["", "/tb", "experiment"], ids=["root", "path_prefix", "experiment"])
def ui(request: pytest.FixtureRequest, full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of TensorBoard's UI served by trainboard, at / or under a path prefix, or by `trainboard serve` at the
    logdir's /experiment/<id>/ (TensorBoard's own scheme for many experiments)."""
    scratch = tmp_path_factory.mktemp("ui")
    server: Server
    if request.param == "experiment":
        db = f"sqlite:{scratch / 'store.sqlite'}"
        with trainboard_store_in_process(full_logdir, scratch, db, "--ui=tensorboard") as server:
            yield f"{server.url}{server.experiment_path}/"
        return
    prefix: str = request.param
    with trainboard_in_process(full_logdir, scratch, "--ui=tensorboard", path_prefix=prefix) as server:
        yield f"{server.url}{prefix}/"


@pytest.fixture
def page(browser: Browser, tmp_path: Path) -> Iterator[Page]:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        yield page
        page.screenshot(path=str(tmp_path / "timeseries.png"), full_page=True)
    finally:
        page.context.close()


def card(page: Page, kind: str, tag: str) -> Locator:
    """The Time Series card of one kind ('scalar-card', ...) for `tag`."""
    return page.locator(kind, has=page.locator(f"tb-truncated-path[title='{tag}']")).first


def line_pixels(canvas: Locator) -> int:
    """How many pixels of the canvas, as shown on screen, are in a run's colour."""
    pixels = np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("RGB"), dtype=np.int16)
    return int((pixels.max(axis=2) - pixels.min(axis=2) > SATURATION).sum())


def tooltip_row(page: Page) -> dict[str, str]:
    """The line chart tooltip's row for the point closest to the mouse, by column name."""
    row = page.locator(".cdk-overlay-container table.tooltip tr.closest")
    row.wait_for(timeout=TIMEOUT_MS)
    header = page.locator(".cdk-overlay-container table.tooltip th").all_inner_texts()
    return dict(zip(header, [cell.strip() for cell in row.locator("td").all_inner_texts()], strict=True))


def test_time_series_draws_a_scalar_chart_a_histogram_and_an_image(ui: str, page: Page) -> None:
    with httpx.Client(base_url=ui) as api:
        scalars = api.get("data/plugin/scalars/scalars", params={"run": SCALAR_RUN, "tag": SCALAR_TAG}).json()
        histograms = api.get("data/plugin/histograms/histograms", params={"run": SCALAR_RUN, "tag": HISTOGRAM_TAG})
    failed: list[str] = []

    def check(response: Response) -> None:
        # Under a path prefix, index.html asks for its fonts at /font-roboto/, outside the prefix, as from TensorBoard.
        if response.status >= 400 and response.url.startswith(ui):
            failed.append(f"{response.status} {response.url}")

    page.on("response", check)
    page.goto(f"{ui}#timeseries", timeout=TIMEOUT_MS)

    # The scalar chart: its tooltip shows trainboard's first point, and its canvas shows a line in the run's colour.
    chart = card(page, "scalar-card", SCALAR_TAG).locator("line-chart canvas")
    chart.wait_for(timeout=TIMEOUT_MS)
    box = chart.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 2, box["y"] + box["height"] / 2)
    _, first_step, first_value = scalars[0]
    row = tooltip_row(page)
    assert (row["Run"], row["Step"], row["Value"]) == (SCALAR_RUN, str(first_step), f"{first_value:.4g}")
    page.mouse.move(0, 0)
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while (pixels := line_pixels(chart)) < LINE_PIXELS and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pixels >= LINE_PIXELS

    # The histogram: one drawn (non-flat) SVG path per step trainboard serves.
    histogram = card(page, "histogram-card", HISTOGRAM_TAG)
    steps = len(histograms.json())
    assert steps > 1
    paths = histogram.locator("g.histograms g.histogram path")
    paths.first.wait_for(timeout=TIMEOUT_MS)
    sizes = paths.evaluate_all("paths => paths.map(path => [path.getBBox().width, path.getBBox().height])")
    assert len(sizes) == steps
    assert all(width > 0 and height > 0 for width, height in sizes)

    # The image: cards render once scrolled into view, and image groups start collapsed; show the image group alone.
    page.get_by_text("Image", exact=True).first.click()
    page.get_by_text(IMAGE_TAG, exact=True).first.click()
    image = card(page, "image-card", IMAGE_TAG).locator("img")
    image.wait_for(timeout=TIMEOUT_MS)
    page.wait_for_function(
        "image => image.complete && image.naturalWidth > 0", arg=image.element_handle(), timeout=TIMEOUT_MS
    )
    source, width, height = image.evaluate("image => [image.currentSrc, image.naturalWidth, image.naturalHeight]")
    assert source.startswith(f"{ui}data/plugin/timeseries/imageData?imageId=")
    assert (width, height) == IMAGE_SIZE

    assert not failed, failed


PROJECTOR_FILES = ("index.js", "projector_binary.html", "projector_binary.js")


def test_projector_entry_and_files_are_tensorboards(ui: str, full_tensorboard: Server, page: Page) -> None:
    """The projector is TensorBoard's one dashboard loaded in an iframe: its entry page and its files are served as
    TensorBoard serves them, and its tab shows the projector, not "Not found"."""
    paths = ["data/plugin_entry.html?name=projector", *(f"data/plugin/projector/{name}" for name in PROJECTOR_FILES)]
    for path in paths:
        ours, theirs = loopback.get(f"{ui}{path}"), loopback.get(f"{full_tensorboard.url}/{path}")
        assert (ours.status_code, ours.headers["content-type"]) == (theirs.status_code, theirs.headers["content-type"])
        assert ours.status_code == 200 and ours.content == theirs.content, path
        assert ours.headers.get("content-security-policy") == theirs.headers.get("content-security-policy"), path
    missing = loopback.get(f"{ui}data/plugin_entry.html?name=nothing")
    assert (
        missing.status_code == loopback.get(f"{full_tensorboard.url}/data/plugin_entry.html?name=nothing").status_code
    )
    page.goto(f"{ui}#projector", timeout=TIMEOUT_MS)
    # The entry page's module puts the projector's own page in an iframe of its own.
    projector = page.frame_locator("iframe").first.frame_locator("iframe").first
    projector.locator("vz-projector").wait_for(state="attached", timeout=TIMEOUT_MS)
    projector.get_by_text("Points: 12").first.wait_for(timeout=TIMEOUT_MS)
    assert "Not found" not in page.locator("body").inner_text()


def test_a_signed_out_browser_signs_in_and_tensorboards_ui_draws_on_a_private_server(
    full_logdir: Path, tmp_path: Path, page: Page
) -> None:
    """`trainboard serve --ui tensorboard` with accounts: opening an experiment's page signed out leads to the sign-in
    page; a wrong token is refused there; the right one comes back to the page, whose API calls the session signs."""
    db = f"sqlite:{tmp_path / 'store.sqlite'}"
    in_process_command("ingest", f"--db={db}", "--experiment=full", f"--logdir={full_logdir}")
    in_process_command("users", "add", "ada", f"--db={db}")
    token = in_process_command("tokens", "create", f"--db={db}", "--user=ada", "--experiment=full").strip()
    with in_process("serve", tmp_path / "serve", f"--db={db}", "--ui=tensorboard") as server:
        url = server.url
        (experiment,) = loopback.get(f"{url}/data/experiments", headers={"Authorization": f"Bearer {token}"}).json()
        wanted = f"{url}/experiment/{experiment['id']}/#scalars"
        page.goto(wanted, timeout=TIMEOUT_MS)
        assert page.url.startswith(f"{url}/auth/signin?next=")
        page.fill("input[name=token]", "tbk_0123456789_wrong")
        page.click("button[type=submit]")
        assert "not valid" in page.locator(".problem").inner_text()
        page.fill("input[name=token]", token)
        page.click("button[type=submit]")
        page.wait_for_url(f"{url}/experiment/{experiment['id']}/**", timeout=TIMEOUT_MS)
        chart = card(page, "scalar-card", SCALAR_TAG).locator("line-chart canvas")
        page.goto(f"{url}/experiment/{experiment['id']}/#timeseries", timeout=TIMEOUT_MS)
        chart.wait_for(timeout=TIMEOUT_MS)
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while line_pixels(chart) < LINE_PIXELS and time.monotonic() < deadline:
            time.sleep(0.2)
        assert line_pixels(chart) >= LINE_PIXELS
        # Another site cannot send the browser back with a link of its own choosing.
        page.goto(f"{url}/auth/signin?next=//evil.example/", timeout=TIMEOUT_MS)
        assert page.locator("input[name=next]").input_value() == "/"
