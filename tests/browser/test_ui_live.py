"""Live updates and downloads of trainboard's own web UI in Debian's Chromium, on a real `trainboard --logdir` while
tensorboardX appends points: the charts follow the server's event stream (an EventSource on /data/trainboard/events,
no polling), poll /data/ingest_progress where the stream is blocked, and a pinned view of `trainboard serve` opens
no stream; the Parquet button downloads every point."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import tensorboardX
from playwright.sync_api import Browser, Page, Request

from tests import loopback
from tests.browser.ui import (
    ARTIFACTS,
    LONG_RUN,
    LONG_STEPS,
    SEED_RUNS,
    card_menu_item,
    ui_page,
    write_scalar_logdir,
)
from tests.servers import Server, trainboard_in_process, trainboard_store_in_process

pytestmark = pytest.mark.browser

TAG = "train/loss"
EVENTS = "/data/trainboard/events"
PROGRESS = "/data/ingest_progress"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scalar_logdir(tmp_path_factory.mktemp("live") / "logs")


@pytest.fixture(scope="module")
def server(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Reads the logdir again every second, as a user following a run would have it.
    with trainboard_in_process(logdir, tmp_path_factory.mktemp("server"), "--reload_interval=1") as server:
        yield server


class Requests:
    """What the page asked for, and which requests are still open (an event stream never finishes)."""

    def __init__(self, page: Page) -> None:
        self.made: list[Request] = []
        self.ended: list[Request] = []
        page.on("request", lambda request: self.made.append(request))
        page.on("requestfinished", lambda request: self.ended.append(request))
        page.on("requestfailed", lambda request: self.ended.append(request))

    def to(self, path: str) -> list[Request]:
        return [request for request in self.made if path in request.url]

    def open(self, path: str) -> list[Request]:
        return [request for request in self.to(path) if request not in self.ended]


def last_served_step(server: Server, run: str) -> int:
    response = loopback.get(f"{server.url}/data/plugin/scalars/scalars", params={"run": run, "tag": TAG})
    return int(response.json()[-1][1]) if response.status_code == 200 and response.json() else -1


def drawn_last_step(page: Page) -> int:
    found = page.locator(f"article.card[data-tag='{TAG}']").get_attribute("data-last-step")
    return int(found or -1)


def wait_for_last_step(page: Page, step: int) -> None:
    page.locator(f"article.card[data-tag='{TAG}']").scroll_into_view_if_needed()
    page.wait_for_function(
        "([tag, step]) => document.querySelector(`article.card[data-tag='${tag}']`)?.dataset.lastStep === step",
        arg=[TAG, str(step)],
    )


def follow_a_growing_run(page: Page, server: Server, logdir: Path, run: str, screenshot: str) -> None:
    """Open the run's chart, append points while it is shown, wait until it draws the server's last step."""
    # tensorboardX writes its queue out every flush_secs (its flush() does not wait for the queue).
    with tensorboardX.SummaryWriter(str(logdir / run), flush_secs=1) as writer:
        for step in range(10):
            writer.add_scalar(TAG, 1 / (step + 1), step, walltime=1_700_000_000 + step)
        deadline = time.monotonic() + 30
        while last_served_step(server, run) != 9:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        page.goto(f"{server.url}/#runFilter=^{run}$")
        wait_for_last_step(page, 9)
        for step in range(10, 300):
            writer.add_scalar(TAG, 1 / (step + 1) + (step % 7) / 100, step, walltime=1_700_000_000 + step)
        wait_for_last_step(page, 299)
    assert drawn_last_step(page) == last_served_step(server, run) == 299
    assert page.locator(f"article.card[data-tag='{TAG}']").get_attribute("data-points") == "300"
    page.screenshot(path=str(ARTIFACTS / f"{screenshot}.png"))


def test_charts_follow_the_event_stream_without_polling(server: Server, logdir: Path, browser: Browser) -> None:
    with ui_page(browser, "live-stream") as page:
        requests = Requests(page)
        follow_a_growing_run(page, server, logdir, "live_stream", "live-scalars-light")
        assert requests.to(PROGRESS) == []
        streams = requests.to(EVENTS)
        assert len(streams) == 1 and streams[0].resource_type == "eventsource"
        assert requests.open(EVENTS) == streams


def test_charts_poll_where_the_stream_is_blocked(server: Server, logdir: Path, browser: Browser) -> None:
    # The aborted stream's console error names no URL: it is the only request this page has aborted.
    with ui_page(browser, "live-polling", color_scheme="dark", expected_errors=("net::ERR_FAILED",)) as page:
        page.route(f"**{EVENTS}", lambda route: route.abort())
        requests = Requests(page)
        follow_a_growing_run(page, server, logdir, "live_polling", "live-scalars-dark")
        assert requests.to(EVENTS) and requests.open(EVENTS) == []
        # Polled every 2 s from the stream's failure on: more than once while the run grew.
        assert len(requests.to(PROGRESS)) >= 2


def test_charts_poll_where_the_stream_says_nothing(server: Server, logdir: Path, browser: Browser) -> None:
    """A proxy that buffers the stream: it opens, but no event comes through within 5 s."""
    with ui_page(browser, "live-silent") as page:
        page.route(f"**{EVENTS}", lambda route: None)  # held: never answered
        requests = Requests(page)
        started = time.monotonic()
        follow_a_growing_run(page, server, logdir, "live_silent", "live-scalars-silent")
        assert time.monotonic() - started >= 5
        first_poll = requests.to(PROGRESS)[0]
        assert first_poll.timing["startTime"] - requests.to(EVENTS)[0].timing["startTime"] >= 5000


def test_a_pinned_view_opens_no_stream(logdir: Path, browser: Browser, tmp_path: Path) -> None:
    db = f"sqlite:{tmp_path / 'store.sqlite'}"
    with trainboard_store_in_process(logdir, tmp_path, db) as served:
        experiment = f"{served.url}{served.experiment_path}"
        pin = loopback.post(f"{experiment}/pins").raise_for_status().json()["pin"]
        with ui_page(browser, "live-pinned") as page:
            requests = Requests(page)
            page.goto(f"{experiment}/at/{pin}/#runFilter=^{LONG_RUN}$")
            page.wait_for_selector("#view-live")
            wait_for_last_step(page, LONG_STEPS - 1)
            # The live view of the same experiment does open one (the pinned one is not merely slow to).
            page.wait_for_timeout(1000)
            assert requests.to(EVENTS) == [] and requests.to(PROGRESS) == []
            with page.expect_request(lambda request: EVENTS in request.url) as stream:
                page.goto(f"{experiment}/#runFilter=^{LONG_RUN}$")
            assert stream.value.url == f"{experiment}{EVENTS}"
            wait_for_last_step(page, LONG_STEPS - 1)


def test_the_parquet_download_holds_every_point(server: Server, browser: Browser) -> None:
    runs = sorted([*SEED_RUNS, LONG_RUN])
    query = [("tag", TAG), ("format", "json"), *(("run", run) for run in runs)]
    served = loopback.get(f"{server.url}/data/trainboard/scalars", params=query, timeout=60).json()
    expected = {
        series["run"]: list(zip(series["step"], series["wall_time"], series["value"], strict=True)) for series in served
    }
    assert sorted(expected) == runs and len(expected[LONG_RUN]) == LONG_STEPS
    with ui_page(browser, "live-parquet") as page:
        page.goto(f"{server.url}/#runFilter=^(lr_|long$)")
        card = page.locator(f"article.card[data-tag='{TAG}']")
        card.scroll_into_view_if_needed()
        page.wait_for_function(
            "tag => document.querySelector(`article.card[data-tag='${tag}']`)?.dataset.runs === '5'", arg=TAG
        )
        button = card_menu_item(card, "parquet")
        button.wait_for(state="visible")
        with page.expect_download() as download:
            button.click()
        assert download.value.suggested_filename == "train_loss.parquet"
        body = Path(download.value.path()).read_bytes()
    table = pq.read_table(io.BytesIO(body)).to_pydict()
    found: dict[str, list[tuple[int, float, float]]] = {}
    for run, tag, step, wall_time, value in zip(
        table["run"], table["tag"], table["step"], table["wall_time"], table["value"], strict=True
    ):
        assert tag == TAG
        found.setdefault(run, []).append((step, wall_time, value))
    assert found == expected
    assert len(found[LONG_RUN]) == LONG_STEPS and found[LONG_RUN][-1][0] == LONG_STEPS - 1
