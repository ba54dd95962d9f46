"""The run selector of trainboard's own web UI with 1,200 runs (written by tensorboardX): the runs table (the default)
and the names list, each a virtual list that holds only the rows in view, a regex filter, select all matching, the
charts following the selection, and colours: distinct for the first 24 runs, then dashed, a picked one kept after a
reload."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import tensorboardX
from playwright.sync_api import Browser

from tests.browser.ui import ui_page
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

RUNS = 1200
DEFAULT_SHOWN = 100


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("runs") / "logs"
    for index in range(RUNS):
        with tensorboardX.SummaryWriter(str(root / f"run{index:04d}"), flush_secs=3600) as writer:
            writer.add_scalar("loss", index / RUNS, 0)
            writer.add_scalar("loss", index / RUNS / 2, 1)
    with trainboard_in_process(root, tmp_path_factory.mktemp("server")) as server:
        yield server


def test_thousands_of_runs_in_the_table(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-1200-table") as page:
        page.goto(f"{server.url}/")
        count = page.locator("#runs-table-count")
        page.wait_for_function(f"() => document.querySelector('#runs-table-count').textContent.startsWith('{RUNS:,} ')")
        assert count.inner_text() == f"{RUNS:,} runs, {DEFAULT_SHOWN} selected"
        rows = page.locator("#runs-table .tbody .trow")
        assert 10 < rows.count() < 100  # only the rows in view (and a few around) exist
        assert page.locator("#run-list").is_hidden()
        page.wait_for_function(f"() => document.querySelector('article.card')?.dataset.runs === '{DEFAULT_SHOWN}'")

        # The last run is reached by scrolling: its page is fetched and drawn.
        page.locator("#runs-table-body").evaluate("body => body.scrollTop = body.scrollHeight")
        page.locator(f'#runs-table .trow[data-run="run{RUNS - 1:04d}"]').wait_for()

        page.click("#run-regex")  # a regular expression on run names
        page.fill("#run-filter", "^run11")
        page.wait_for_function("() => document.querySelector('#runs-table-count').textContent.startsWith('100 runs')")
        page.click("#select-matching")
        page.wait_for_function(
            "() => document.querySelector('#runs-table-count').textContent.endsWith(' 200 selected')"
        )
        page.wait_for_function("() => document.querySelector('article.card')?.dataset.runs === '100'")
        page.fill("#run-filter", "")
        page.wait_for_function("() => document.querySelector('article.card')?.dataset.runs === '200'")
        assert count.inner_text() == f"{RUNS:,} runs, 200 selected"


def test_thousands_of_runs_in_the_names_list(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-1200") as page:
        page.goto(f"{server.url}/#runsTable=0")
        count = page.locator("#run-count")
        page.wait_for_function(f"() => document.querySelector('#run-count').textContent.includes('of {RUNS:,}')")
        assert count.inner_text() == f"{DEFAULT_SHOWN} of {RUNS:,} runs shown ({RUNS:,} matching)"
        rows = page.locator("#run-list .run")
        assert 10 < rows.count() < 100  # only the rows in view (and a few around) exist
        page.wait_for_function(f"() => document.querySelector('article.card')?.dataset.runs === '{DEFAULT_SHOWN}'")

        # The last run is reached by scrolling, with the keyboard.
        page.focus("#run-list")
        page.keyboard.press("End")
        assert page.locator("#run-list .run.active").get_attribute("data-run") == f"run{RUNS - 1:04d}"

        page.click("#run-regex")  # a regular expression on run names
        page.fill("#run-filter", "^run11")
        assert count.inner_text() == f"0 of {RUNS:,} runs shown (100 matching)"
        page.click("#select-matching")
        assert count.inner_text() == f"100 of {RUNS:,} runs shown (100 matching)"
        page.wait_for_function("() => document.querySelector('article.card')?.dataset.runs === '100'")
        page.fill("#run-filter", "")
        assert count.inner_text() == f"200 of {RUNS:,} runs shown ({RUNS:,} matching)"
        page.wait_for_function("() => document.querySelector('article.card')?.dataset.runs === '200'")


def test_runs_keep_distinct_colours_then_dashes_and_a_picked_colour(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-colours") as page:
        page.goto(f"{server.url}/#runsTable=0")
        page.locator("#run-list .run").first.wait_for()
        rows = page.locator("#run-list .run").evaluate_all(
            """rows => rows.slice(0, 30).map(row => ({
                run: row.dataset.run,
                color: row.querySelector("input.color").value,
                dash: row.querySelector("svg.dash line")?.getAttribute("stroke-dasharray") ?? "",
            }))"""
        )
        assert [row["run"] for row in rows] == [f"run{index:04d}" for index in range(30)]
        first = rows[:24]
        assert len({row["color"] for row in first}) == 24 and all(row["dash"] == "" for row in first)
        assert [row["color"] for row in rows[24:]] == [row["color"] for row in rows[:6]]
        assert all(row["dash"] == "8 4" for row in rows[24:])

        page.locator('#run-list .run[data-run="run0003"] input.color').fill("#123456")
        page.reload()
        page.locator("#run-list .run").first.wait_for()
        assert page.locator('#run-list .run[data-run="run0003"] input.color').input_value() == "#123456"
        assert page.locator('#run-list .run[data-run="run0004"] input.color').input_value() == rows[4]["color"]
