"""trainboard's own web UI, its exceptions dashboard, in Debian's Chromium on exception tensors written by TS-VIS's own
SummaryWriter: the box plot, the step's statistics, heat map, histogram and outliers are those the TS-VIS API serves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests import loopback
from tests.browser.ui import as_number, ui_page
from tests.servers import Server, trainboard_in_process
from tests.tsvis.venv import run_in_tsvis

pytestmark = pytest.mark.browser

WRITE_EXCEPTIONS = Path(__file__).with_name("write_exceptions.py")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("exceptions")
    run_in_tsvis(WRITE_EXCEPTIONS, str(root / "logs"))
    with trainboard_in_process(root / "logs", root / "server") as served:
        yield served


def tsvis(server: Server, route: str, **params: str) -> Any:
    answer = loopback.get(f"{server.url}/api/{route}", params=params).raise_for_status().json()
    assert answer["code"] == 200, answer
    return answer["data"]


def shown(page: Page, tag: str, step: int) -> None:
    """Wait until the dashboard has drawn run/tag at step (answers to earlier requests are dropped)."""
    page.wait_for_function(
        "shown => document.querySelector('.dashboard.exceptions')?.dataset.shown === shown",
        arg=f"run/{tag}@{step}",
    )


def test_box_plot_statistics_heat_map_histogram_and_outliers(server: Server, browser: Browser) -> None:
    meta = tsvis(server, "exception", run="run", tag="activations")["activations"]
    with ui_page(browser, "exceptions") as page:
        page.goto(f"{server.url}/#dashboard=exceptions&exceptionRun=run&exceptionTag=activations")
        last = len(meta["step"]) - 1
        shown(page, "activations", meta["step"][last])
        dashboard = page.locator(".dashboard.exceptions")
        assert dashboard.get_attribute("data-steps") == str(len(meta["step"]))
        for index in (last, 1):
            step = meta["step"][index]
            if index != last:
                page.locator("#exception-step").fill(str(index))
                shown(page, "activations", step)
            up, q3, median, q1, down = meta["box"][index][0]
            shape, low, high, mean, matrix = tsvis(
                server, "exception_data", run="run", tag="activations", step=str(step)
            )[str(step)]
            cells = page.locator(".exception-stats tr").nth(1).locator("td").all_inner_texts()
            assert cells[0] == f"[{', '.join(map(str, shape))}]"
            for text, expected in zip(cells[1:], (low, high, mean, down, q1, median, q3, up), strict=True):
                assert as_number(text) == pytest.approx(expected, rel=1e-5, abs=1e-6)

            heat = page.locator(".exception-heat")
            assert (heat.get_attribute("data-rows"), heat.get_attribute("data-columns")) == (
                str(len(matrix)),
                str(len(matrix[0])),
            )
            box = heat.bounding_box()
            assert box is not None
            row, column = 2, 7
            page.mouse.move(
                box["x"] + (column + 0.5) * box["width"] / len(matrix[0]),
                box["y"] + (row + 0.5) * box["height"] / len(matrix),
            )
            readout = page.locator(".exception-cell")
            assert (readout.get_attribute("data-row"), readout.get_attribute("data-column")) == (str(row), str(column))
            assert float(readout.get_attribute("data-value") or "nan") == pytest.approx(matrix[row][column])

            (hist,) = tsvis(server, "exception_hist", run="run", tag="activations", step=str(step))[str(step)]
            finite = sum(1 for line in matrix for value in line if isinstance(value, float | int))
            histogram = page.locator(".exception-hist")
            assert histogram.get_attribute("data-bins") == str(len(hist[2])) == "100"
            assert float(histogram.get_attribute("data-count") or 0) == sum(count for _, _, count in hist[2]) == finite

            values, positions = tsvis(
                server, "exception_box", run="run", tag="activations", step=str(step), up=str(up), down=str(down)
            )[str(step)]
            assert len(positions) >= 2  # the planted 40 and -35 at least
            assert dashboard.get_attribute("data-outliers") == str(len(positions))
            listed = page.locator(".exception-outliers").inner_text()
            assert listed.startswith(f"{len(positions)} outliers: [{positions[0][0]}, {positions[0][1]}]")


def test_other_tensor_and_url_state(server: Server, browser: Browser) -> None:
    with ui_page(browser, "exceptions-4d") as page:
        page.goto(f"{server.url}/#dashboard=exceptions")
        page.select_option("#exception-tag", "conv")
        shown(page, "conv", 0)
        assert "exceptionTag=conv" in page.url
        shape, _, _, _, matrix = tsvis(server, "exception_data", run="run", tag="conv", step="0")["0"]
        assert shape == [2, 3, 4, 4]
        heat = page.locator(".exception-heat")
        assert (heat.get_attribute("data-rows"), heat.get_attribute("data-columns")) == (
            str(len(matrix)),
            str(len(matrix[0])),
        )
        assert page.locator("#tab-exceptions").get_attribute("aria-selected") == "true"


# The alpha of a canvas's pixels at CSS-pixel spots, read back once.
PAINTED = """(canvas, spots) => {
  const scale = canvas.width / canvas.getBoundingClientRect().width;
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  return spots.map(([x, y]) => pixels[(Math.floor(y * scale) * canvas.width + Math.floor(x * scale)) * 4 + 3]);
}"""


def test_the_histogram_has_value_and_count_axes(server: Server, browser: Browser) -> None:
    meta = tsvis(server, "exception", run="run", tag="activations")["activations"]
    step = meta["step"][-1]
    (hist,) = tsvis(server, "exception_hist", run="run", tag="activations", step=str(step))[str(step)]
    low, high = hist[2][0][0], hist[2][-1][1]
    most = max(count for _, _, count in hist[2])
    with ui_page(browser, "exceptions-histogram") as page:
        page.goto(f"{server.url}/#dashboard=exceptions&exceptionRun=run&exceptionTag=activations")
        shown(page, "activations", step)
        histogram = page.locator(".exception-hist")
        left, top, right, bottom = json.loads(histogram.get_attribute("data-plot-box") or "null")
        values = json.loads(histogram.get_attribute("data-value-ticks") or "[]")
        counts = json.loads(histogram.get_attribute("data-count-ticks") or "[]")
        assert len(values) > 2 and len(counts) >= 2
        assert all(low <= value <= high and left <= x <= right for value, x in values)
        assert [x for _, x in values] == sorted(x for _, x in values)
        # Counts are whole, from the base up to at most the fullest bin, higher counts higher up.
        assert counts[0] == [0, bottom] and all(0 <= count <= most and count == int(count) for count, _ in counts)
        assert [y for _, y in counts] == sorted((y for _, y in counts), reverse=True)
        spots = [[round(x) + 0.5, bottom + 2] for _, x in values] + [[left - 2, round(y) + 0.5] for _, y in counts]
        assert all(histogram.evaluate(PAINTED, spots))
