"""trainboard's own web UI as a person sees it, in Debian's Chromium. Every dashboard of the demo logdir and of the
60-run sweep (tests.logdirs) in the light and the dark theme at 1280, 1440 and 1920 px is screenshotted
(test-artifacts/ui/matrix/) and measured: no tab hidden or covered, no text on text, the run list only where it selects
something, charts that paint, the chart tooltip on top and whole inside the window wherever the pointer is, and the
shown runs' colours told apart. On the full logdir: a single point is painted, a histogram of torch's default buckets
is not one spike, a PR curve drops at recall 1, a theme switch repaints charts, hparams labels stay clear
of each other."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Browser, Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests import loopback
from tests.browser.ui import ARTIFACTS, TIMEOUT_MS, Console, ui_page
from tests.browser.visuals import (
    SHOWN_TOOLTIPS,
    Box,
    box_of,
    coloured,
    distinct_colours,
    hidden_points,
    luminance,
    overlapping,
    pixels,
    text_boxes,
    too_close,
)
from tests.logdirs import write_sweep_runs_logdir
from tests.servers import Server, trainboard_server
from trainboard.demo import write_demo

pytestmark = pytest.mark.browser

# The dashboards that draw the runs picked in the run list; the others pick their run themselves.
RUN_LIST_DASHBOARDS = {
    "scalars",
    "timeseries",
    "custom_scalars",
    "histograms",
    "distributions",
    "images",
    "audio",
    "text",
    "pr_curves",
}
# Waits for a dashboard's first picture: an element that is there once it has drawn.
DRAWN = {
    "scalars": ".chart[data-draw-ms]",
    "timeseries": "article.ts-card .chart[data-draw-ms]",
    "custom_scalars": ".chart[data-draw-ms]",
    "histograms": "article.card[data-filled] canvas.histogram",
    "distributions": "article.card[data-filled] .plot canvas",
    "images": "article.card[data-filled] img",
    "audio": "article.card[data-filled] audio",
    "text": "article.card[data-filled] .text-body",
    "pr_curves": "article.card[data-filled] .plot canvas",
    "hparams": "#hparams-parallel polyline.group-line",
    "graphs": "g.nodes > *",
    "embeddings": "canvas[data-points]",
    "exceptions": ".dashboard.exceptions[data-shown]",
}


def api(server: Server, path: str, **params: str) -> Any:
    return loopback.get(f"{server.url}/{path}", params=params).raise_for_status().json()


def drawn_pr_card(page: Page, tag: str) -> Locator:
    """The PR curves card of `tag` (one per tag, every shown run on it), once drawn."""
    card = page.locator(f'article.pr-card[data-tag="{tag}"]')
    page.wait_for_selector(f'article.pr-card[data-tag="{tag}"][data-filled] .plot canvas')
    return card


def drawn_card(page: Page, run: str, tag: str) -> Locator:
    card = page.locator(f'article.card[data-run="{run}"][data-tag="{tag}"]')
    card.scroll_into_view_if_needed()
    page.wait_for_function(
        "([run, tag]) => [...document.querySelectorAll('article.card')].some(c => c.dataset.run === run &&"
        " c.dataset.tag === tag && c.dataset.filled)",
        arg=[run, tag],
    )
    return card


# The matrix every dashboard is seen in: three windows, both themes, the demo logdir and the 60-run sweep.
WINDOWS = {1280: 800, 1440: 900, 1920: 1080}
THEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")
# The dashboards each logdir shows a tab for, at least (the demo has data for every one).
MATRIX_DASHBOARDS = {"demo": set(DRAWN), "sweep": {"scalars", "timeseries", "hparams"}}
CHART_DASHBOARDS = ("scalars", "timeseries", "custom_scalars")
# Where the pointer goes in the first chart fully in view (fractions of its plot): at the left and right edges, where
# the tooltip must flip, and at the bottom; then the bottom right corner of the last chart fully in view.
HOVERS = ((0.03, 0.5), (0.97, 0.5), (0.5, 0.97))
# Run filters whose shown runs get distinct colours; the sweep's seed0$ leaves 12 runs, which had 4 hues.
COLOUR_FILTERS = {"demo": ("",), "sweep": ("", "seed0$")}
PALETTE_SIZE = 24
# Colours less far apart (CIEDE2000) pass for one: the old palette's two blues #1f77b4 and #3366cc are 9.2 apart.
DISTINCT = 10.0
SHOWN_TIMEOUT_MS = 5_000
# True once the dashboard's charts and cards in the window are drawn (a chart without its data yet, a card not yet
# filled, do not count): with two frames more (TWO_FRAMES), the page a person sees once it has settled.
IN_VIEW_DRAWN = """() => {
  const inView = (element) => {
    const rect = element.getBoundingClientRect();
    return rect.width > 0 && rect.bottom > 0 && rect.top < innerHeight;
  };
  const charts = [...document.querySelectorAll("main .chart")].filter(inView);
  const cards = [...document.querySelectorAll("main article.card")].filter((card) => !card.querySelector(".chart"));
  return charts.every((chart) => chart.dataset.drawMs) && cards.filter(inView).every((card) => card.dataset.filled);
}"""
TWO_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
TOOLTIP_SHOWN = """() => [...document.querySelectorAll("[role=tooltip]")].some(
  (tip) => tip.getClientRects().length && getComputedStyle(tip).visibility !== "hidden")"""
# The plot areas of the drawn charts entirely in the window, top to bottom.
# Entirely in the part of the window that shows the dashboard (not under the ingest footer at the bottom).
PLOTS_IN_VIEW = """() => {
  const footer = document.querySelector("#ingest");
  const bottom = footer && footer.offsetParent ? footer.getBoundingClientRect().top : innerHeight;
  return [...document.querySelectorAll("main .chart[data-draw-ms] .u-over")]
    .map((over) => over.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.top >= 0 && r.bottom <= bottom && r.left >= 0 && r.right <= innerWidth)
    .map((r) => [r.left, r.top, r.right, r.bottom]);
}"""
# Each run row in the run picker's window of rendered rows (the runs table's, or the names list's): its name, whether
# it is shown, its colour.
RUN_ROWS = """() => [...document.querySelectorAll(".runs [data-run]")].map((row) => {
  const input = row.querySelector("input[type=color]");
  const swatch = row.querySelector(".swatch, .run-swatch");
  const colour = input ? input.value : swatch ? getComputedStyle(swatch).backgroundColor : "";
  return [row.dataset.run, row.getAttribute("aria-selected") === "true", colour];
})"""


@dataclass
class View:
    page: Page
    console: Console
    url: str


class Views:
    """One trainboard per logdir and one page per (logdir, theme), each started when first asked for and reused."""

    def __init__(self, browser: Browser, scratch: Path, stack: ExitStack) -> None:
        self.browser = browser
        self.scratch = scratch
        self.stack = stack
        self.servers: dict[str, Server] = {}
        self.views: dict[tuple[str, str], View] = {}

    def server(self, logdir: str) -> Server:
        if logdir not in self.servers:
            root = self.scratch / logdir / "logs"
            if logdir == "demo":
                write_demo(root)
            else:
                write_sweep_runs_logdir(root)
            self.servers[logdir] = self.stack.enter_context(trainboard_server(root, self.scratch / logdir))
        return self.servers[logdir]

    def view(self, logdir: str, theme: Literal["light", "dark"]) -> View:
        if (logdir, theme) not in self.views:
            url = self.server(logdir).url
            context = self.stack.enter_context(closing(self.browser.new_context(color_scheme=theme)))
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            console = Console()
            page.on("console", console.message)
            page.on("pageerror", console.exception)
            self.views[(logdir, theme)] = View(page, console, url)
        return self.views[(logdir, theme)]


@pytest.fixture(scope="module")
def views(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Views]:
    with ExitStack() as stack:
        yield Views(browser, tmp_path_factory.mktemp("matrix"), stack)


MATRIX = [(logdir, theme, width) for logdir in MATRIX_DASHBOARDS for theme in THEMES for width in WINDOWS]


@pytest.mark.xdist_group("ui-visual-matrix")
@pytest.mark.parametrize(("logdir", "theme", "width"), MATRIX, ids=[f"{a}-{b}-{c}" for a, b, c in MATRIX])
def test_every_dashboard_as_a_person_sees_it(
    views: Views, logdir: str, theme: Literal["light", "dark"], width: int
) -> None:
    """Every dashboard's screenshot (test-artifacts/ui/matrix/), and what a person would see wrong in it: a tab hidden
    or covered, text on text, the run list where it selects nothing, a chart that paints nothing, a tooltip covered,
    cut or outside the window; then the colours of the shown runs, told apart."""
    view = views.view(logdir, theme)
    page = view.page
    page.set_viewport_size({"width": width, "height": WINDOWS[width]})
    page.goto("about:blank")
    page.goto(view.url)
    page.wait_for_function(
        "ids => ids.every((id) => document.getElementById(`tab-${id}`))", arg=sorted(MATRIX_DASHBOARDS[logdir])
    )
    dashboards = page.locator("[id^=tab-]").evaluate_all("tabs => tabs.map((tab) => tab.id.slice(4))")
    problems: list[str] = []
    for dashboard in dashboards:
        name = f"{logdir}-{width}-{theme}-{dashboard}"
        problems += [f"{dashboard}: {problem}" for problem in show(page, dashboard)]
        (ARTIFACTS / "matrix").mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "matrix" / f"{name}.png"))
        problems += [f"{dashboard}: {problem}" for problem in tab_problems(page)]
        if page.locator(".runs").is_visible() != (dashboard in RUN_LIST_DASHBOARDS):
            problems.append(f"{dashboard}: the run list is {'' if dashboard in RUN_LIST_DASHBOARDS else 'not '}hidden")
        window = Box("", 0, 0, width, WINDOWS[width])
        seen = [box for box in text_boxes(page.locator("body")) if box.intersects(window)]
        problems += [f"{dashboard}: text on text {pair}" for pair in overlapping(seen)[:5]]
        if dashboard in CHART_DASHBOARDS:
            problems += [f"{dashboard}: {problem}" for problem in chart_problems(page, name)]
    # The colours do not depend on the window's width: seen once per theme.
    if width == min(WINDOWS):
        for run_filter in COLOUR_FILTERS[logdir]:
            problems += colour_problems(page, view.url, run_filter)
    errors, view.console.errors[:] = list(view.console.errors), []
    assert not problems and not errors, "\n".join(problems + errors)


def show(page: Page, dashboard: str) -> list[str]:
    """Shows `dashboard` (by its tab, or by the address where the tab cannot be clicked) and waits until what is in
    the window is drawn."""
    tab = page.locator(f"#tab-{dashboard}")
    if tab.is_visible() and not hidden_points(tab):
        tab.click()
    else:
        page.evaluate(
            "(id) => { const p = new URLSearchParams(location.hash.slice(1)); p.set('dashboard', id);"
            " location.hash = p.toString(); }",
            dashboard,
        )
    try:
        if dashboard in DRAWN:
            page.locator(DRAWN[dashboard]).first.wait_for(state="attached")
        page.wait_for_function(IN_VIEW_DRAWN, polling="raf")
    except PlaywrightTimeoutError:
        return ["not drawn"]
    page.evaluate(TWO_FRAMES)
    return []


def tab_problems(page: Page) -> list[str]:
    """Tabs covered, cut or outside the window; tabs not in the header's row that no menu there shows, whole."""
    problems = []
    tabs = page.locator("[id^=tab-]")
    rendered = tabs.evaluate_all("tabs => tabs.map((tab) => tab.getClientRects().length > 0)")
    in_row = [tabs.nth(index) for index, shown in enumerate(rendered) if shown]
    tops = {round(box_of(tab).top) for tab in in_row}
    if len(tops) > 1:
        problems.append(f"the tabs take {len(tops)} rows")
    for tab in in_row:
        if hidden := hidden_points(tab):
            problems.append(f"tab {tab.inner_text()!r}: {', '.join(hidden)}")
    elsewhere = [tabs.nth(index) for index, shown in enumerate(rendered) if not shown]
    if not elsewhere:
        return problems
    ids = [tab.get_attribute("id") for tab in elsewhere]
    menu = page.locator("body > header [aria-haspopup]").filter(visible=True)  # the page's header, not a card's
    if menu.count() != 1 or hidden_points(menu):
        return [*problems, f"tabs {ids} hidden, and no menu in the header to show them"]
    menu.click()
    try:
        page.wait_for_function("ids => ids.every((id) => document.getElementById(id).getClientRects().length)", arg=ids)
    except PlaywrightTimeoutError:
        return [*problems, f"tabs {ids} hidden, and not in the header's menu"]
    for tab in elsewhere:
        if hidden := hidden_points(tab):
            problems.append(f"tab {tab.inner_text()!r} in the menu: {', '.join(hidden)}")
    page.keyboard.press("Escape")
    page.wait_for_function("ids => ids.every((id) => !document.getElementById(id).getClientRects().length)", arg=ids)
    return problems


def chart_problems(page: Page, name: str) -> list[str]:
    """Charts in the window that paint nothing; tooltips covered, cut or outside the window while the pointer is at
    the edges of the first chart and at the bottom right of the last one in the window."""
    plots: list[list[float]] = page.evaluate(PLOTS_IN_VIEW)
    if not plots:
        return ["no chart entirely in the window"]
    problems = []
    for left, top, right, bottom in plots[:2]:
        image = np.asarray(
            Image.open(
                io.BytesIO(page.screenshot(clip={"x": left, "y": top, "width": right - left, "height": bottom - top}))
            ).convert("RGB"),
            dtype=np.int16,
        )
        if not coloured(image).any():
            problems.append(f"the chart at ({left:.0f}, {top:.0f}) paints nothing")
    targets = [(plots[0], x, y) for x, y in HOVERS] + [(plots[-1], 0.97, 0.97)]
    for (left, top, right, bottom), x, y in targets:
        at = (round(left + x * (right - left)), round(top + y * (bottom - top)))
        page.mouse.move(1, 1)
        page.wait_for_function(f"() => !({TOOLTIP_SHOWN})()", polling="raf")
        page.mouse.move(*at)
        try:
            page.wait_for_function(TOOLTIP_SHOWN, polling="raf", timeout=SHOWN_TIMEOUT_MS)
        except PlaywrightTimeoutError:
            problems.append(f"no tooltip with the pointer at {at}")
            continue
        page.evaluate(TWO_FRAMES)
        tips: list[dict[str, Any]] = page.evaluate(SHOWN_TOOLTIPS)
        if len(tips) != 1:
            problems.append(f"{len(tips)} tooltips shown with the pointer at {at}")
        for tip in tips:
            if tip["hidden"]:
                problems.append(f"tooltip at {at}: {', '.join(tip['hidden'])}")
            if tip["cut"]:
                problems.append(f"tooltip at {at}: {len(tip['cut'])} texts cut, as {tip['cut'][:3]}")
    page.screenshot(path=str(ARTIFACTS / "matrix" / f"{name}-tooltip.png"))
    page.mouse.move(1, 1)
    return problems


def colour_problems(page: Page, url: str, run_filter: str) -> list[str]:
    """The shown runs' colours (from the run list) that cannot be told apart though the palette has room."""
    page.goto("about:blank")
    page.goto(f"{url}/#dashboard=scalars&runFilter={quote(run_filter)}")
    page.locator(DRAWN["scalars"]).first.wait_for(state="attached")
    colours = shown_run_colours(page)
    where = f"colours of the {len(colours)} runs shown (filter {run_filter!r})"
    if len(colours) <= PALETTE_SIZE:
        close = too_close(colours, DISTINCT)
        return [f"{where}: {len(close)} pairs less than {DISTINCT} apart, as {close[:4]}"] if close else []
    distinct = distinct_colours(list(colours.values()), DISTINCT)
    return [f"{where}: only {distinct} told apart"] if distinct < PALETTE_SIZE else []


def shown_run_colours(page: Page) -> dict[str, str]:
    """Each shown run's colour (#rrggbb) in the run picker, scrolled through (it renders only the rows in view)."""
    colours: dict[str, str] = {}
    names = page.locator("#run-list").evaluate("list => !list.hidden")
    run_list = page.locator("#run-list" if names else "#runs-table-body")
    while True:
        for run, shown, colour in page.evaluate(RUN_ROWS):
            if shown:
                colours[run] = as_hex(colour)
        if run_list.evaluate("list => list.scrollTop + list.clientHeight >= list.scrollHeight - 1"):
            break
        run_list.evaluate("list => { list.scrollTop += list.clientHeight; }")
        page.evaluate(TWO_FRAMES)
    run_list.evaluate("list => { list.scrollTop = 0; }")
    return colours


def as_hex(colour: str) -> str:
    """#rrggbb of a colour written #rrggbb or rgb(r, g, b)."""
    if colour.startswith("#"):
        return colour.lower()
    red, green, blue = (int(part) for part in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3])
    return f"#{red:02x}{green:02x}{blue:02x}"


def test_a_histogram_of_torch_default_buckets_is_not_one_spike(full_trainboard: Server, browser: Browser) -> None:
    # torch's add_histogram buckets grow exponentially away from zero: the buckets near zero are about 1e-12 wide.
    run, tag = "train", "weights"
    buckets = api(full_trainboard, "data/plugin/histograms/histograms", run=run, tag=tag)[0][2]
    assert min(right - left for left, right, _ in buckets) < 1e-6
    with ui_page(browser, "visual-histogram-overlay") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=histograms&runFilter=^train$&histogramMode=overlay")
        canvas = drawn_card(page, run, tag).locator("canvas.histogram")
        painted = coloured(pixels(canvas))
        columns = np.flatnonzero(painted.any(axis=0))
        base = np.flatnonzero(painted.any(axis=1)).max()
        # Per pixel column, how high the highest step's curve reaches above the common base.
        heights = base - painted[:, columns].argmax(axis=0)
        # A spike: a few pixel columns reach the top, every other one is a line along the base.
        tall = heights >= 0.5 * heights.max()
        assert tall.sum() >= 0.1 * len(columns), (int(tall.sum()), len(columns))


@pytest.mark.parametrize("theme", THEMES)
def test_a_series_of_one_point_is_painted(
    full_trainboard: Server, browser: Browser, theme: Literal["light", "dark"]
) -> None:
    # add_hparams writes its metric as a scalar of one point, in a run of its own.
    run, tag = "train/hparams", "hparam/accuracy"
    assert len(api(full_trainboard, "data/plugin/scalars/scalars", run=run, tag=tag)) == 1
    with ui_page(browser, f"visual-one-point-{theme}", color_scheme=theme) as page:
        page.goto(f"{full_trainboard.url}/#dashboard=scalars&runFilter=^train/hparams$")
        card = page.locator(f"article.card[data-tag='{tag}']")
        card.scroll_into_view_if_needed()
        over = card.locator(".u-over")
        over.wait_for()
        page.wait_for_function("card => card.dataset.runs === '1'", arg=card.element_handle())
        painted = np.argwhere(coloured(pixels(over)))
        assert len(painted) >= 12, len(painted)
        # The dot is where the point is: the middle of the chart, as its one step and value are the axes' middles.
        box = box_of(over)
        centre = np.array([(box.bottom - box.top) / 2, (box.right - box.left) / 2])
        assert np.abs(painted.mean(axis=0) - centre).max() < 6, (painted.mean(axis=0), centre)


def test_a_pr_curve_drops_at_recall_one(full_trainboard: Server, browser: Browser) -> None:
    run, tag = "train", "pr"
    point = api(full_trainboard, "data/plugin/pr_curves/pr_curves", run=run, tag=tag)[run][-1]
    at_one = [precision for recall, precision in zip(point["recall"], point["precision"], strict=True) if recall == 1]
    assert len(at_one) > 1 and max(at_one) - min(at_one) > 0.1
    with ui_page(browser, "visual-pr-curve") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=pr_curves&runFilter=^train$")
        over = drawn_pr_card(page, tag).locator(".u-over")
        image = coloured(pixels(over))
        # The curve's rightmost pixel columns, where recall is 1, span its precisions there (the plot is 1.05 high).
        right = np.flatnonzero(image.any(axis=0)).max()
        rows = np.flatnonzero(image[:, right - 2 : right + 1].any(axis=1))
        assert len(rows), "nothing painted at recall 1"
        height = image.shape[0]
        expected = (max(at_one) - min(at_one)) / 1.05 * height
        assert rows.max() - rows.min() >= 0.8 * expected, (rows.min(), rows.max(), expected)


def axis_text_contrast(chart: Locator) -> float:
    """How much brighter than the background the y axis's tick labels are (negative: darker), from the pixels left of
    the plot area that differ from the background; 0 when they can hardly be told from it."""
    image = pixels(chart.locator("canvas").first)
    over = box_of(chart.locator(".u-over"))
    canvas = box_of(chart.locator("canvas").first)
    axis = image[:, : int(over.left - canvas.left) - 2]
    background = image[0, 0]
    text = np.abs(axis - background).max(axis=2) > 60
    if text.sum() < 20:
        return 0.0
    return float(luminance(axis[text]).mean() - luminance(background))


def grid_luminance(chart: Locator) -> float:
    """The brightest grey in the plot area: the grid lines (runs are coloured)."""
    image = pixels(chart.locator(".u-over"))
    grey = ~coloured(image)
    return float(np.percentile(luminance(image[grey]), 99))


def test_switching_the_theme_repaints_axes_and_grid(full_trainboard: Server, browser: Browser) -> None:
    with ui_page(browser, "visual-theme-switch") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=scalars&runFilter=^train$")
        chart = page.locator("article.card[data-tag='loss'] .chart")
        page.wait_for_function("chart => chart.dataset.drawMs", arg=chart.element_handle())
        assert axis_text_contrast(chart) < -0.3 and grid_luminance(chart) > 0.7
        page.click("#theme")
        page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
        page.wait_for_timeout(300)
        assert axis_text_contrast(chart) > 0.3
        assert grid_luminance(chart) < 0.4
        for dashboard, run, tag in (("pr_curves", "train", "pr"), ("distributions", "train", "weights")):
            page.click(f"#tab-{dashboard}")
            card = drawn_pr_card(page, tag) if dashboard == "pr_curves" else drawn_card(page, run, tag)
            plot = card.locator(".plot")
            assert axis_text_contrast(plot) > 0.3, dashboard
        page.click("#theme")
        page.wait_for_function("() => document.documentElement.dataset.theme === 'light'")
        page.wait_for_timeout(300)
        assert axis_text_contrast(plot) < -0.3


def test_hparams_parallel_coordinates_fill_the_width_and_keep_their_labels(
    full_trainboard: Server, browser: Browser
) -> None:
    with ui_page(browser, "visual-hparams") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=hparams")
        plot = page.locator("#hparams-parallel svg.parallel")
        page.locator("#hparams-parallel polyline.group-line").first.wait_for(state="attached")
        frame, holder = box_of(plot), box_of(page.locator("#hparams-parallel"))
        assert frame.right - frame.left >= 0.9 * (holder.right - holder.left)
        labels = text_boxes(page.locator("#hparams-parallel"))
        assert labels
        outside = [label.text for label in labels if not label.inside(frame)]
        assert not outside, outside
        assert not overlapping(labels), overlapping(labels)
        # Every tick label sits on a backing of the page's colour, drawn over the lines that fan out under it.
        uncovered = page.evaluate(
            """() => {
                const background = getComputedStyle(document.body).backgroundColor;
                const lines = document.querySelector("#hparams-parallel .lines");
                return [...document.querySelectorAll("#hparams-parallel .tick text")].filter((text) => {
                    const backing = text.previousElementSibling;
                    if (!backing || backing.tagName !== "rect") return true;
                    const [t, b] = [text.getBoundingClientRect(), backing.getBoundingClientRect()];
                    const covers = b.left <= t.left && b.right >= t.right && b.top <= t.top && b.bottom >= t.bottom;
                    const above = lines.compareDocumentPosition(backing) & Node.DOCUMENT_POSITION_FOLLOWING;
                    const style = getComputedStyle(backing);
                    return !(covers && above && style.fill === background && Number(style.opacity) >= 0.8);
                }).map((text) => text.textContent);
            }"""
        )
        assert not uncovered, uncovered


def test_embedding_canvas_fills_the_page_and_run_lists_are_sorted(full_trainboard: Server, browser: Browser) -> None:
    with ui_page(browser, "visual-embeddings") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=embeddings")
        canvas = page.locator("canvas[data-points]")
        canvas.wait_for()
        main, box = box_of(page.locator("main")), box_of(canvas)
        height = page.viewport_size["height"] if page.viewport_size else 0
        # As large as the room the page has: it reaches the bottom of the window or the sample panel's edge.
        assert box.right <= main.right and box.bottom <= height
        assert box.bottom >= height - 40 or box.right >= main.right - 300, (box, main)
        runs = page.locator("#embedding-run option").all_inner_texts()
        assert len(runs) > 1 and runs == sorted(runs)
        page.click("#tab-graphs")
        page.locator("#graph-run option").first.wait_for(state="attached")
        runs = page.locator("#graph-run option").all_inner_texts()
        assert len(runs) > 1 and runs == sorted(runs)
