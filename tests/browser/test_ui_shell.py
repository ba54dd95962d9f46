"""trainboard's own web UI, its shell, in Debian's Chromium: the header at every width from 1,024 to 1,920 px on the
demo logdir, the banner and the recovery when the server goes away and comes back (a real server process stopped and
started again on the same port and store), each dashboard's own tag filter, the page of an empty logdir, the first
dashboard with data opened, and an unknown dashboard said."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import httpx
import pytest
import tensorboardX
from playwright.sync_api import Browser, Page

from tests import loopback
from tests.browser.ui import ui_page
from tests.servers import BIN, Server, free_port, running, trainboard_flags, trainboard_server
from trainboard.demo import write_demo

pytestmark = pytest.mark.browser

RUNS = ("alpha", "beta")
# What a request to a stopped server logs in the console: the test stops it on purpose.
REFUSED = ("ERR_CONNECTION_REFUSED", "ERR_CONNECTION_RESET", "ERR_EMPTY_RESPONSE", "ERR_INCOMPLETE_CHUNKED_ENCODING")
# The budget: the banner within 5 s of the server going away, everything back within 5 s of its return.
WITHIN_MS = 5000


def write_runs(root: Path, runs: tuple[str, ...]) -> Path:
    """Scalars and histograms of each run."""
    for index, run in enumerate(runs):
        with tensorboardX.SummaryWriter(str(root / run)) as writer:
            for step in range(5):
                writer.add_scalar("train/loss", 1 / (step + 1) + index, step)
                writer.add_scalar("eval/loss", 2 / (step + 1) + index, step)
                writer.add_histogram("weights", [float(step), step + 1.0, step + 2.0 + index], step)
    return root


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    logdir = write_runs(tmp_path_factory.mktemp("small") / "logs", RUNS)
    with trainboard_server(logdir, tmp_path_factory.mktemp("small-store")) as server:
        yield server


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    logdir = tmp_path_factory.mktemp("demo") / "logs"
    write_demo(logdir)
    with trainboard_server(logdir, tmp_path_factory.mktemp("demo-store")) as server:
        yield server


def dashboards_with_data(server: Server) -> list[str]:
    """The ids of the dashboards the page should offer on `server`'s data (the listing's, and TS-VIS's exceptions)."""
    listing = loopback.get(f"{server.url}/data/plugins_listing").raise_for_status().json()
    ids = {"projector": "embeddings"}
    return [ids.get(plugin, plugin) for plugin, entry in listing.items() if entry["enabled"]] + ["exceptions"]


def boxes(page: Page, selector: str) -> list[dict[str, float]]:
    found: list[dict[str, float]] = page.locator(selector).evaluate_all(
        "els => els.filter(e => e.getClientRects().length).map(e => { const r = e.getBoundingClientRect();"
        " return {id: e.id || e.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom} })"
    )
    return found


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"] - 0.5
        and b["left"] < a["right"] - 0.5
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )


@pytest.mark.parametrize(
    ("width", "theme"),
    [(1024, "light"), (1280, "light"), (1280, "dark"), (1440, "light"), (1920, "light"), (1920, "dark")],
)
def test_every_tab_is_reachable_and_nothing_in_the_header_overlaps(
    demo: Server, browser: Browser, width: int, theme: Literal["light", "dark"]
) -> None:
    expected = set(dashboards_with_data(demo))
    assert len(expected) == 13
    with ui_page(browser, f"shell-header-{theme}-{width}", color_scheme=theme) as page:
        page.set_viewport_size({"width": width, "height": 720})
        page.goto(demo.url)
        page.wait_for_function("n => document.querySelectorAll('[id^=tab-]').length === n", arg=len(expected))
        page.wait_for_function("() => document.querySelector('#ingest-text').textContent !== ''")
        in_row = page.locator("nav.tabs [id^=tab-]").evaluate_all("tabs => tabs.map(tab => tab.id.slice(4))")
        in_menu = page.locator("#tabs-menu [id^=tab-]").evaluate_all("tabs => tabs.map(tab => tab.id.slice(4))")
        assert set(in_row) | set(in_menu) == expected and not set(in_row) & set(in_menu)
        assert page.is_visible("#tabs-more") == bool(in_menu)
        # Every tab of the row is wholly inside the row (not cut by it), and no two things of the header overlap:
        # the title, the tabs, "More", the links at the right.
        row = boxes(page, "nav.tabs")[0]
        shown = boxes(page, "nav.tabs [id^=tab-]")
        assert all(tab["left"] >= row["left"] - 0.5 and tab["right"] <= row["right"] + 0.5 for tab in shown), shown
        parts = boxes(page, "body > header h1, nav.tabs [id^=tab-], #tabs-more, .header-end > *, #ingest")
        assert not [(a["id"], b["id"]) for i, a in enumerate(parts) for b in parts[i + 1 :] if overlap(a, b)]
        # The ingest progress has its own place, below the page, never over a tab.
        assert boxes(page, "#ingest")[0]["top"] > boxes(page, "body > header")[0]["bottom"]
        if in_menu:
            # A dashboard of the menu is one click away, and comes into the row when shown.
            last = in_menu[-1]
            page.click("#tabs-more")
            page.click(f"#tabs-menu #tab-{last}")
            page.wait_for_selector(f'nav.tabs #tab-{last}[aria-selected="true"]')
            assert f"dashboard={last}" in page.url
            # The screenshot kept shows the menu open.
            page.click("#tabs-more")
            page.wait_for_selector("#tabs-menu [role=menuitem]")


def test_a_stopped_server_is_said_within_5_s_and_the_page_recovers_within_5_s_of_its_return(
    browser: Browser, tmp_path: Path
) -> None:
    logdir = write_runs(tmp_path / "logs", RUNS)
    port = free_port()
    command = [str(BIN / "python"), "-m", "trainboard", *trainboard_flags(logdir, tmp_path, ""), f"--port={port}"]

    def ingested(client: httpx.Client) -> bool:
        return client.get("/data/ingest_progress").raise_for_status().json()["done"] is True

    with ui_page(browser, "shell-unreachable", expected_errors=REFUSED) as page:
        with running(command, port, tmp_path / "first.log", ingested) as server:
            page.goto(f"{server.url}/#dashboard=timeseries")
            page.wait_for_selector("#ts-cards article.card, article.card")
            assert page.is_hidden("#unreachable")
        gone = time.monotonic()
        page.wait_for_selector("#unreachable", state="visible", timeout=WITHIN_MS)
        assert time.monotonic() - gone < WITHIN_MS / 1000
        assert "unreachable" in page.inner_text("#unreachable")
        # Another dashboard shown meanwhile says it waits: no blank panel, no false "no data".
        page.click("#tab-histograms")
        page.wait_for_selector("#waiting")
        assert "No data" not in page.inner_text("#dashboard") and "No cards" not in page.inner_text("#dashboard")
        # While it is away a run is written: it is there once the server is back (its data fetched again).
        write_runs(logdir, ("gamma",))
        with running(command, port, tmp_path / "second.log", ingested):
            back = time.monotonic()
            page.wait_for_selector("#unreachable", state="hidden", timeout=WITHIN_MS)
            page.wait_for_function(
                "() => document.querySelectorAll('#dashboard article.card[data-run=gamma]').length > 0",
                timeout=WITHIN_MS,
            )
            assert time.monotonic() - back < WITHIN_MS / 1000
            assert page.locator("#waiting").count() == 0
            page.locator("#runs-table .trow[data-run='gamma']").wait_for(timeout=WITHIN_MS)


def test_a_tag_filter_stays_with_its_dashboard(small: Server, browser: Browser) -> None:
    with ui_page(browser, "shell-tag-filter") as page:
        page.goto(f"{small.url}/#dashboard=timeseries")
        page.fill("#ts-tag-filter", "train/")
        page.wait_for_function("() => location.hash.includes('tagFilter=train')")
        page.click("#tab-histograms")
        histograms = page.locator("section.dashboard.histograms")
        page.wait_for_selector("section.histograms article.card[data-tag=weights]")
        assert histograms.locator(".tag-filter").input_value() == ""
        assert "No data for the shown runs" not in histograms.inner_text()
        # Back on Time Series, its filter is as it was left; the URL keeps both.
        page.click("#tab-timeseries")
        assert page.input_value("#ts-tag-filter") == "train/"
        page.click("#tab-histograms")
        histograms.locator(".tag-filter").fill("nothing")
        page.wait_for_function("() => location.hash.includes('tagFilter=nothing')")
        assert "timeseries.tagFilter=train" in page.url
        page.reload()
        assert histograms.locator(".tag-filter").input_value() == "nothing"
        page.click("#tab-timeseries")
        assert page.input_value("#ts-tag-filter") == "train/"


def test_an_empty_logdir_says_where_it_looks_and_how_to_write_data(browser: Browser, tmp_path: Path) -> None:
    logdir = tmp_path / "empty-logs"
    logdir.mkdir()
    with trainboard_server(logdir, tmp_path) as server:
        for dashboard, name in (("", "shell-empty-light"), ("hparams", "shell-empty-hparams")):
            with ui_page(browser, name) as page:
                page.goto(f"{server.url}/#dashboard={dashboard}")
                page.wait_for_selector("#empty-logdir h2:text('No data yet')")
                text = page.inner_text("#empty-logdir")
                assert str(logdir) in text and "events.out.tfevents" in text and "SummaryWriter" in text
                assert page.is_hidden(".runs") and page.locator("nav.tabs [role=tab]").count() == 0
                assert "No scalar tags" not in page.inner_text("body")
                if dashboard:
                    assert "HParams has no data here" in page.inner_text("#asked-dashboard")
        with ui_page(browser, "shell-empty-dark", color_scheme="dark") as page:
            page.set_viewport_size({"width": 1280, "height": 720})
            page.goto(server.url)
            page.wait_for_selector("#empty-logdir h2:text('No data yet')")


def test_a_logdir_of_text_alone_opens_on_text(browser: Browser, tmp_path: Path) -> None:
    with tensorboardX.SummaryWriter(str(tmp_path / "logs" / "notes")) as writer:
        writer.add_text("notes", "hello", 0)
    with trainboard_server(tmp_path / "logs", tmp_path) as server, ui_page(browser, "shell-text-only") as page:
        page.goto(server.url)
        page.wait_for_selector('#tab-text[aria-selected="true"]')
        page.wait_for_selector('section.dashboard.text article.card[data-tag="notes/text_summary"]')
        assert page.locator("#tab-scalars").count() == 0


def test_an_unknown_dashboard_is_said(small: Server, browser: Browser) -> None:
    with ui_page(browser, "shell-unknown-dashboard") as page:
        page.goto(f"{small.url}/#dashboard=nope")
        notice = page.locator("#unknown-dashboard")
        notice.wait_for()
        assert "no dashboard named nope" in notice.inner_text()
        assert page.locator('nav.tabs [aria-selected="true"]').count() == 0
        notice.locator("a", has_text="Histograms").click()
        page.wait_for_selector('#tab-histograms[aria-selected="true"]')
        # A dashboard of this app without data here says that, rather than showing another.
        page.goto(f"{small.url}/#dashboard=pr_curves")
        page.wait_for_selector("#no-data")
        assert "PR curves has no data in this experiment" in page.inner_text("#no-data")
