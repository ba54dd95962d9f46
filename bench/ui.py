"""Web UI benchmark: trainboard's own UI in Debian's Chromium (Playwright), medians of several runs.

    .venv/bin/python -m bench.ui [--repeat 5]

1. First meaningful paint of the scalars dashboard on the engine benchmark's logdir (bench.engine: 50 runs x 20 tags
   x 2,000 steps, tensorboardX), on a server whose store is ingested: from navigation start until the first chart is
   drawn with every shown run's data, in a new browser context each time (no cache).
2. One chart of 100 runs x 10,000 points (all points served: --samples_per_plugin=scalars=all): from its data in
   hand to drawn (smoothing, reduction to pixel columns, uPlot), and the fetch of its data before that.
3. Moving the smoothing slider on that chart: from the input event until the chart is redrawn.
4. The Time Series page with 200 cards (2 runs x 180 scalar tags of 500 steps in 10 groups, 5 histogram and 5 image
   tags, tensorboardX): first paint (navigation start until a card is drawn), then scrolling to the bottom with the
   mouse wheel (800 px every 100 ms) while a PerformanceObserver counts the long tasks (over 50 ms) of the main thread.
5. Hovering the chart of 2. (100 runs x 10,000 points): from a synthetic mousemove over its plot until the tooltip
   shows the new position, and until the chart marks the nearest run highlighted (its `data-highlight`), by
   performance.now in the page: each within one frame, 16 ms.
6. Hovering a run in the run list with 20 charts drawn (the engine logdir's 20 tags, 50 runs, in a window 8,000 px
   high, for all of them): from a synthetic mouseover on its row until all 20 charts mark it highlighted, within one
   frame.
7. First paint of Time Series on the 60-run sweep (tests.logdirs: 2 experiments x 3 lr x 2 batch sizes x 5 seeds,
   15 tags, 5,000 steps): navigation start until a card is drawn with all 60 runs.

Logdirs are written once under bench/out/ and kept. Figures go to stdout as a table; a target not met is marked, and
a measure the UI cannot give (no `data-highlight` on its charts) is reported as such.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
from playwright.sync_api import Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from bench.engine import free_port
from bench.logdirs import OUT, Shape, logdir_for
from tests.logdirs import write_sweep_runs_logdir

BIN = Path(sys.executable).parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
WIDE = Shape(runs=100, tags=1, steps=10_000)
TIMEOUT_MS = 300_000
SLIDER_VALUES = (0.3, 0.6, 0.9, 0.95, 0.5)
HOVER_FRACTIONS = (0.2, 0.45, 0.7, 0.9, 0.3)
HIGHLIGHTED_CHARTS = 20
RUN_HOVERS = 5
# How long a hover may take before it counts as never highlighting (the UI marks no highlight).
HOVER_TIMEOUT_MS = 2000
# What --only may name: the engine logdir's first paint and run-list hover, the wide chart (draw, slider, hover),
# the 200-card Time Series page, and the 60-run sweep's Time Series.
MEASURES = ("paint", "run-hover", "wide", "series", "sweep")


def write_wide_run(root: Path, run: int) -> None:
    from tensorboardX import SummaryWriter

    rng = np.random.default_rng(run)
    values = np.cumsum(rng.normal(size=WIDE.steps)) / 100
    with SummaryWriter(str(root / f"run{run:03d}")) as writer:
        for step, value in enumerate(values.tolist()):
            writer.add_scalar("loss", value, step, walltime=1_700_000_000 + step)


def wide_logdir() -> Path:
    root = OUT / f"ui-{WIDE.runs}x{WIDE.steps}"
    done = root / ".complete"
    if not done.exists():
        print(f"writing {root} with tensorboardX ...", file=sys.stderr)
        with ProcessPoolExecutor() as pool:
            list(pool.map(write_wide_run, [root] * WIDE.runs, range(WIDE.runs)))
        done.touch()
    return root


SERIES = {"runs": 2, "scalar_tags": 180, "groups": 10, "steps": 500, "histogram_tags": 5, "image_tags": 5}


def write_series_run(root: Path, run: int) -> None:
    from tensorboardX import SummaryWriter

    rng = np.random.default_rng(run)
    with SummaryWriter(str(root / f"run{run}")) as writer:
        for step in range(SERIES["steps"]):
            wall = 1_700_000_000 + step
            for tag in range(SERIES["scalar_tags"]):
                value = float(np.exp(-step / (100 + tag)) + rng.normal(0, 0.02))
                writer.add_scalar(f"group{tag % SERIES['groups']}/metric{tag:03d}", value, step, walltime=wall)
            if step % 50 == 0:
                for tag in range(SERIES["histogram_tags"]):
                    writer.add_histogram(f"weights/layer{tag}", rng.normal(step / 100, 1, 1000), step, walltime=wall)
                for tag in range(SERIES["image_tags"]):
                    image = rng.integers(0, 255, (3, 16, 16), dtype=np.uint8)
                    writer.add_image(f"samples/image{tag}", image, step, walltime=wall)


def series_logdir() -> Path:
    """The Time Series benchmark's logdir: 180 scalar cards and 2 runs x 10 histogram and image cards, 200 cards."""
    root = OUT / "ui-timeseries-200"
    done = root / ".complete"
    if not done.exists():
        print(f"writing {root} with tensorboardX ...", file=sys.stderr)
        with ProcessPoolExecutor() as pool:
            list(pool.map(write_series_run, [root] * SERIES["runs"], range(SERIES["runs"])))
        done.touch()
    return root


def sweep_logdir() -> Path:
    """The 60-run sweep the visual checks use too (tests.logdirs)."""
    root = OUT / "ui-sweep-60"
    done = root / ".complete"
    if not done.exists():
        print(f"writing {root} with tensorboardX ...", file=sys.stderr)
        write_sweep_runs_logdir(root)
        done.touch()
    return root


@contextmanager
def server(logdir: Path, store: Path, *flags: str) -> Iterator[str]:
    """trainboard on `logdir`, once its first ingest pass is done."""
    port = free_port()
    command = [str(BIN / "trainboard"), f"--logdir={logdir}", f"--port={port}", f"--db={store}", *flags]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"trainboard exited with {process.returncode}")
                try:
                    if client.get("/data/ingest_progress").json()["done"]:
                        break
                except (httpx.HTTPError, ValueError):
                    pass
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(30)


@contextmanager
def optional_server(logdir: Path | None, store: Path, *flags: str) -> Iterator[str | None]:
    """A server on `logdir`, or none (None) when that measure is not asked for."""
    if logdir is None:
        yield None
        return
    with server(logdir, store, *flags) as url:
        yield url


def first_paint(page: Page, url: str) -> float:
    """Milliseconds from navigation start until a chart is drawn with all its runs' data."""
    page.goto(url)
    page.wait_for_function(
        "() => [...document.querySelectorAll('article.card')].some(c => c.dataset.runs > 0 &&"
        " c.querySelector('.chart').dataset.drawnAt)",
        timeout=TIMEOUT_MS,
    )
    drawn: float = page.evaluate(
        "Math.min(...[...document.querySelectorAll('article.card .chart')].map(c => Number(c.dataset.drawnAt"
        " || Infinity)))"
    )
    return drawn


def wide_chart(page: Page, url: str) -> tuple[float, float]:
    """Milliseconds to fetch the chart's data, and to draw it once in hand."""
    started = time.perf_counter()
    page.goto(f"{url}/#smoothing=0.6")
    page.wait_for_function(
        f"() => {{ const c = document.querySelector('article.card'); return c && c.dataset.runs === '{WIDE.runs}'"
        " && c.querySelector('.chart').dataset.drawMs; }",
        timeout=TIMEOUT_MS,
    )
    total = (time.perf_counter() - started) * 1000
    draw = float(page.evaluate("document.querySelector('article.card .chart').dataset.drawMs"))
    points = int(page.evaluate("document.querySelector('article.card').dataset.points"))
    assert points == WIDE.runs * WIDE.steps, points
    return total - draw, draw


def slider(page: Page) -> list[float]:
    """Milliseconds from each slider input event until the charts are redrawn (all work done before the next task)."""
    timings = []
    for value in SLIDER_VALUES:
        timings.append(
            page.evaluate(
                """async (value) => {
                    const slider = document.querySelector('#smoothing');
                    const started = performance.now();
                    slider.value = String(value);
                    slider.dispatchEvent(new Event('input', {bubbles: true}));
                    await new Promise(resolve => setTimeout(resolve, 0));
                    return performance.now() - started;
                }""",
                value,
            )
        )
    return timings


# Milliseconds from a synthetic event dispatched by `fire` until each of `conditions` first holds (null: not within
# the timeout), from performance.now in the page: the work of the event's handlers, and of the frames until then.
TIME_UNTIL = """async (fire, conditions, timeoutMs) => {
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const times = conditions.map(() => null);
    const started = performance.now();
    const check = () => {
        const now = performance.now();
        conditions.forEach((holds, index) => { if (times[index] === null && holds()) times[index] = now - started; });
        return times.every((time) => time !== null);
    };
    fire();
    if (!check()) {
        await new Promise((resolve) => {
            const observer = new MutationObserver(() => {
                if (check()) { observer.disconnect(); resolve(); }
            });
            observer.observe(document.body, { attributes: true, childList: true, subtree: true, characterData: true });
            setTimeout(() => { observer.disconnect(); resolve(); }, timeoutMs);
        });
    }
    return times;
}"""

HOVER_CHART = f"""async ([fractions, timeoutMs]) => {{
    const timeUntil = {TIME_UNTIL};
    const chart = document.querySelector("article.card .chart[data-draw-ms]");
    const over = chart.querySelector(".u-over");
    const box = over.getBoundingClientRect();
    const tooltip = () => [...document.querySelectorAll("[role=tooltip]")].find(
        (tip) => tip.getClientRects().length && getComputedStyle(tip).visibility !== "hidden");
    const timings = [];
    for (const fraction of fractions) {{
        const before = tooltip()?.textContent ?? "";
        const at = {{ clientX: box.left + fraction * box.width, clientY: box.top + box.height / 2, bubbles: true }};
        // The positions are far apart: the tooltip's text changes with each. A highlight drawn in the handler is
        // counted from the move; one still there from the last move counts once the handler is done.
        timings.push(await timeUntil(
            () => over.dispatchEvent(new MouseEvent("mousemove", at)),
            [() => (tooltip()?.textContent ?? before) !== before, () => Boolean(chart.dataset.highlight)],
            timeoutMs,
        ));
    }}
    return timings;
}}"""

HOVER_RUN = f"""async ([charts, count, timeoutMs]) => {{
    const timeUntil = {TIME_UNTIL};
    // By name: the list may render its rows again while one is highlighted.
    const runs = [...document.querySelectorAll(".runs [data-run]")].slice(0, count).map((row) => row.dataset.run);
    const row = (run) => document.querySelector(`.runs [data-run="${{CSS.escape(run)}}"]`);
    const timings = [];
    for (const run of runs) {{
        const [time] = await timeUntil(
            () => row(run).dispatchEvent(new MouseEvent("mouseover", {{ bubbles: true }})),
            [() => document.querySelectorAll(`.chart[data-highlight="${{CSS.escape(run)}}"]`).length >= charts],
            timeoutMs,
        );
        timings.push(time);
    }}
    return timings;
}}"""


def hover_chart(page: Page) -> tuple[list[float | None], list[float | None]]:
    """Milliseconds from each mousemove over the wide chart until the tooltip shows the new position, and until the
    chart marks its nearest run highlighted (None: it did not)."""
    timings: list[list[float | None]] = page.evaluate(HOVER_CHART, [list(HOVER_FRACTIONS), HOVER_TIMEOUT_MS])
    return [tooltip for tooltip, _ in timings], [highlight for _, highlight in timings]


def hover_run(page: Page, url: str) -> list[float | None]:
    """Milliseconds from a mouseover on each of the first run rows until 20 charts highlight that run (None each when
    the page does not draw 20 charts at once)."""
    page.goto(url)
    try:
        page.wait_for_function(
            f"() => document.querySelectorAll('article.card .chart[data-draw-ms]').length >= {HIGHLIGHTED_CHARTS}",
            timeout=TIMEOUT_MS,
        )
    except PlaywrightTimeoutError:
        drawn = page.evaluate("document.querySelectorAll('article.card .chart[data-draw-ms]').length")
        print(f"run-list hover not measured: {drawn} charts drawn, not {HIGHLIGHTED_CHARTS}", file=sys.stderr)
        return [None] * RUN_HOVERS
    timings: list[float | None] = page.evaluate(HOVER_RUN, [HIGHLIGHTED_CHARTS, RUN_HOVERS, HOVER_TIMEOUT_MS])
    return timings


def sweep_paint(page: Page, url: str) -> float:
    """Milliseconds from navigation start until Time Series draws a card with every run of the sweep."""
    page.goto(f"{url}/#dashboard=timeseries")
    page.wait_for_function(
        "() => document.querySelector(\"article.ts-card[data-runs='60'] .chart[data-drawn-at]\")",
        timeout=TIMEOUT_MS,
    )
    drawn: float = page.evaluate(
        "Math.min(...[...document.querySelectorAll('article.ts-card .chart')].map(c => Number(c.dataset.drawnAt"
        " || Infinity)))"
    )
    return drawn


LONG_TASKS = """() => {
    window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration)))
        .observe({ type: "longtask", buffered: true });
}"""


def series_page(page: Page, url: str) -> tuple[float, list[float]]:
    """Milliseconds from navigation start until the Time Series page draws a card with every run, and the durations
    of the long tasks while it is scrolled to the bottom."""
    page.add_init_script(f"({LONG_TASKS})()")
    page.goto(f"{url}/#dashboard=timeseries")
    page.wait_for_function(
        f"() => document.querySelector(\"article.ts-card[data-runs='{SERIES['runs']}'] .chart[data-drawn-at]\")",
        timeout=TIMEOUT_MS,
    )
    drawn: float = page.evaluate(
        "Math.min(...[...document.querySelectorAll('article.ts-card .chart')].map(c => Number(c.dataset.drawnAt"
        " || Infinity)))"
    )
    count = int(page.evaluate("document.querySelectorAll('article.ts-card').length"))
    assert count == 200, count
    page.wait_for_timeout(1000)  # the cards in view finish drawing: the scroll starts from a settled page
    page.evaluate("window.longTasks = []")
    page.mouse.move(900, 500)
    bottom = (
        "(() => { const m = document.querySelector('main#dashboard');"
        " return m.scrollTop + m.clientHeight >= m.scrollHeight - 2; })()"
    )
    # Down to the bottom, and on while cards drawn there grow the page, until the last cards are drawn.
    last_drawn = "[...document.querySelectorAll('article.ts-card')].slice(-4).every(c => c.dataset.filled)"
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while not (page.evaluate(bottom) and page.evaluate(last_drawn)):
        assert time.monotonic() < deadline, "the last cards were not drawn"
        page.mouse.wheel(0, 800)
        page.wait_for_timeout(100)
    page.wait_for_timeout(500)
    tasks: list[float] = page.evaluate("window.longTasks")
    return drawn, tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--only", choices=MEASURES, action="append", help="measure only these (repeatable; default: all)"
    )
    args = parser.parse_args()
    only = set(args.only or MEASURES)
    scratch = Path(tempfile.mkdtemp(prefix="bench-ui-"))
    paints: list[float] = []
    fetches: list[float] = []
    draws: list[float] = []
    slides: list[float] = []
    tooltip_hovers: list[float | None] = []
    chart_hovers: list[float | None] = []
    run_hovers: list[float | None] = []
    series_paints: list[float] = []
    series_tasks: list[list[float]] = []
    sweep_paints: list[float] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            viewport = {"width": 1400, "height": 1000}
            if only & {"paint", "run-hover"}:
                engine = logdir_for(Shape(runs=50, tags=20, steps=2000))
                with server(engine, scratch / "engine.sqlite") as url:
                    for _ in range(args.repeat if "paint" in only else 0):
                        context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
                        paints.append(first_paint(context.new_page(), url))
                        context.close()
                    # Tall enough for the 20 charts (one per group, each a row: 20 charts 480 px high) to be in view.
                    for _ in range(args.repeat if "run-hover" in only else 0):
                        context = browser.new_context(viewport={"width": 1920, "height": 12000})
                        run_hovers += hover_run(context.new_page(), url)
                        context.close()
            wide = wide_logdir() if "wide" in only else None
            with optional_server(wide, scratch / "wide.sqlite", "--samples_per_plugin=scalars=all") as url:
                for _ in range(args.repeat if url else 0):
                    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
                    page = context.new_page()
                    fetch, draw = wide_chart(page, url)
                    fetches.append(fetch)
                    draws.append(draw)
                    slides += slider(page)
                    tooltips, highlights = hover_chart(page)
                    tooltip_hovers += tooltips
                    chart_hovers += highlights
                    context.close()
            series = series_logdir() if "series" in only else None
            with optional_server(series, scratch / "series.sqlite") as url:
                for _ in range(args.repeat if url else 0):
                    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
                    paint, tasks = series_page(context.new_page(), url)
                    series_paints.append(paint)
                    series_tasks.append(tasks)
                    context.close()
            sweep = sweep_logdir() if "sweep" in only else None
            with optional_server(sweep, scratch / "sweep.sqlite") as url:
                for _ in range(args.repeat if url else 0):
                    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
                    sweep_paints.append(sweep_paint(context.new_page(), url))
                    context.close()
            browser.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows: list[tuple[str, list[float | None], float | None]] = [
        ("first meaningful paint, scalars, engine logdir (50 runs x 20 tags x 2,000 steps)", [*paints], 1000),
        (f"draw of one chart, {WIDE.runs} runs x {WIDE.steps:,} points (data in hand)", [*draws], 300),
        ("  (fetch and decode of that chart's data, before the draw)", [*fetches], None),
        ("smoothing slider move to redrawn chart (100 x 10,000 points)", [*slides], 50),
        ("hover to tooltip moved (100 x 10,000 points)", tooltip_hovers, 16),
        ("hover to nearest line highlighted (its data-highlight, 100 x 10,000 points)", chart_hovers, 16),
        (f"run-list hover to its lines highlighted in {HIGHLIGHTED_CHARTS} charts", run_hovers, 16),
        ("first paint, Time Series page of 200 cards", [*series_paints], 1500),
        ("  long tasks (> 50 ms) while scrolling it to the bottom, per run", [len(t) for t in series_tasks], 0),
        ("  longest task while scrolling (0: none over 50 ms)", [max(t, default=0) for t in series_tasks], 50),
        ("first paint, Time Series, 60-run sweep (15 tags x 5,000 steps)", [*sweep_paints], 1000),
    ]
    print(f"| measure (median of {args.repeat} runs, ms) | median | min | max | target | met |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name, measured, target in rows:
        if not measured:
            continue
        values = [value for value in measured if value is not None]
        shown = "" if target is None else f"≤ {target}"
        if not values:
            print(f"| {name} | — | — | — | {shown} | NOT MET: never happened (no data-highlight) |")
            continue
        median = statistics.median(values)
        met = "" if target is None else "yes" if median <= target else "NOT MET"
        if len(values) < len(measured):
            met = f"NOT MET: {len(measured) - len(values)} of {len(measured)} never happened"
        print(f"| {name} | {median:.0f} | {min(values):.0f} | {max(values):.0f} | {shown} | {met} |")


if __name__ == "__main__":
    main()
