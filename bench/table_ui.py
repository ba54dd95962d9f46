"""The runs table of the web UI at 10,000 runs (issue 25 item 6): in Debian's Chromium (Playwright), medians of
--repeat page loads, on SQLite and PostgreSQL.

    .venv/bin/python -m bench.table_ui [--runs 10000 --tags 50] [--repeat 5] [--backends sqlite,postgresql]

The store is built as bench.runs_table builds it (runs, two hparams each, each series with its summary: what the
table reads), then served by `trainboard serve`. The page opens with the table shown and 56 columns (status, the two
hparams, max/min/step_of_max of one tag and last(t) of every tag), and the dashboard beside it none of its charts
(a tag filter that keeps no tag: the figures are the table's):

1. first paint: navigation start until the first frame that shows a row of the table (in a new browser context: no
   cache); the first load comes to a server that has just started (cold: no listing kept yet), the others' median
   is the figure of a warm server;
2. sort: from a click on the max(val/acc) header until the rows are drawn in the new order (the server sorts
   10,000 runs and answers the first page), ascending then descending;
3. scroll: the table scrolled to its bottom with the mouse wheel (2,000 px every 50 ms) while a PerformanceObserver
   counts the main thread's long tasks (over 50 ms) and keeps the longest; and how many rows exist in the page
   (only those in view).

Targets (issue 25): first paint <= 1 s, a sort <= 300 ms, no long task while scrolling. Figures go to stdout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from playwright.sync_api import Page, sync_playwright

from bench.engine import free_port
from bench.runs_table import build_postgres, build_sqlite

BIN = Path(sys.executable).parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
SORTED = "max(val/acc)"
TIMEOUT_MS = 120_000

# The time (performance.now) of the first frame that shows a row of the table, recorded by the page itself: looked
# for once a frame (a MutationObserver that looks at every change of the page costs the page half a second itself).
FIRST_ROW = """
window.__firstRow = null;
const look = () => {
  const row = document.querySelector('#runs-table .tbody .trow');
  if (row && row.offsetParent !== null) window.__firstRow = performance.now();
  else requestAnimationFrame(look);
};
requestAnimationFrame(look);
"""

# Clicks the header, then resolves with the milliseconds until the first row shows another run.
SORT = """
async (column) => {
  const first = () => document.querySelector('#runs-table .tbody .trow[data-index="0"]')?.dataset.run;
  const before = first();
  const header = document.querySelector(`#runs-table .th[data-column="${column}"]`);
  const started = performance.now();
  header.click();
  return await new Promise((resolve) => {
    const check = () => {
      if (first() !== undefined && first() !== before) {
        observer.disconnect();
        resolve(performance.now() - started);
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.querySelector('#runs-table-body'), { childList: true, subtree: true });
  });
}
"""

SCROLL_OBSERVER = """
window.__longTasks = [];
new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push(entry.duration); })
  .observe({ type: 'longtask' });
"""


def columns(tags: int) -> list[str]:
    names = ["loss", "val/acc", *(f"tag{index}" for index in range(tags - 2))]
    return [
        "status",
        "lr",
        "optimizer",
        *(f"last({name})" for name in names),
        SORTED,
        "min(loss)",
        "step_of_max(val/acc)",
    ]


@contextmanager
def serving(db: str, scratch: Path) -> Iterator[str]:
    """`trainboard serve` of the store; the URL of its one experiment's page."""
    port = free_port()
    log = (scratch / f"serve-{port}.log").open("w")
    command = [str(BIN / "trainboard"), "serve", f"--db={db}", "--host=127.0.0.1", f"--port={port}", "--no_auth"]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                listed = httpx.get(f"{url}/data/experiments", timeout=5).json()
                break
            except (httpx.HTTPError, ValueError):
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"trainboard serve did not start: see {log.name}") from None
                time.sleep(0.5)
        yield f"{url}/experiment/{listed[0]['id']}/"
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def first_paint(page: Page, url: str) -> float:
    page.goto(url)
    page.wait_for_function("() => window.__firstRow !== null", timeout=TIMEOUT_MS)
    # performance.now() counts from the navigation's start.
    return float(page.evaluate("window.__firstRow"))


def measure(name: str, url: str, tags: int, repeat: int) -> None:
    # A tag filter that keeps no tag: the dashboard beside draws no chart, so the figures are the table's.
    fragment = "#runsTable=1&tagFilter=no-such-tag&" + "&".join(f"col={column}" for column in columns(tags))
    paints: list[float] = []
    sorts: list[float] = []
    long_tasks: list[list[float]] = []
    rows_in_page = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            for _ in range(repeat):
                context = browser.new_context(viewport={"width": 1920, "height": 1080})
                page = context.new_page()
                page.add_init_script(FIRST_ROW)
                paints.append(first_paint(page, url + fragment))
                page.wait_for_selector(f'#runs-table .th[data-column="{SORTED}"]', state="attached")
                for _ in range(2):  # ascending, then descending
                    sorts.append(float(page.evaluate(SORT, SORTED)))
                page.evaluate(SCROLL_OBSERVER)
                body = page.locator("#runs-table-body")
                box = body.bounding_box()
                if box is None:
                    page.screenshot(path="/tmp/table-shots/bench-fail.png")
                assert box is not None
                page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                while page.evaluate(
                    "() => { const b = document.querySelector('#runs-table-body');"
                    " return b.scrollTop + b.clientHeight < b.scrollHeight - 2; }"
                ):
                    page.mouse.wheel(0, 2000)
                    page.wait_for_timeout(50)
                # The rows at the bottom are drawn once their page comes (asked when the scrolling stops).
                page.wait_for_function(
                    "() => document.querySelectorAll('#runs-table .tbody .trow').length > 0", timeout=TIMEOUT_MS
                )
                page.wait_for_timeout(300)
                long_tasks.append([float(duration) for duration in page.evaluate("window.__longTasks")])
                rows_in_page = page.locator("#runs-table .tbody .trow").count()
                context.close()
        finally:
            browser.close()
    warm = paints[1:] or paints
    counts = [len(durations) for durations in long_tasks]
    longest = max((duration for durations in long_tasks for duration in durations), default=0.0)
    print(
        f"{name:10} first paint {paints[0]:6.0f} ms cold, {statistics.median(warm):6.0f} ms p50 warm"
        f" (max {max(warm):.0f}); sort {statistics.median(sorts):5.0f} ms p50 (max {max(sorts):.0f});"
        f" long tasks while scrolling to the end: {statistics.median(counts):.0f} p50 (max {max(counts)},"
        f" longest {longest:.0f} ms); rows in the page at the end: {rows_in_page}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--tags", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backends", default="sqlite,postgresql")
    arguments = parser.parse_args()
    backends = arguments.backends.split(",")
    with tempfile.TemporaryDirectory(prefix="trainboard-bench-table-ui-") as scratch:
        for backend in backends:
            with _store(backend, Path(scratch), arguments.runs, arguments.tags) as db:
                with serving(db, Path(scratch)) as url:
                    measure(backend, url, arguments.tags, arguments.repeat)
    load = os.getloadavg()[0]
    print(f"{arguments.runs} runs x {arguments.tags} tags; load average {load:.1f} on {os.cpu_count()} cores")


@contextmanager
def _store(backend: str, scratch: Path, runs: int, tags: int) -> Iterator[str]:
    started = time.perf_counter()
    if backend == "sqlite":
        db = str(scratch / "store.sqlite")
        build_sqlite(db, runs, tags)
        print(f"{backend:10} built in {time.perf_counter() - started:.0f} s", flush=True)
        yield db
        return
    from tests.pgserver import postgres_server

    with postgres_server() as postgres:
        db = postgres.create_database("table_ui")
        build_postgres(db, runs, tags)
        print(f"{backend:10} built in {time.perf_counter() - started:.0f} s", flush=True)
        yield db


if __name__ == "__main__":
    main()
