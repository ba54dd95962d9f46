"""trainboard's own web UI as a person sees it, on the full logdir in Debian's Chromium: every dashboard screenshotted
in the light and the dark theme (test-artifacts/ui/visual-*.png), and measured: the tab bar is one row, the run list
shows only where it selects something, text does not overlap or leave its picture, a single point is painted, a
histogram of torch's default buckets is not one spike, a PR curve drops at recall 1, a theme switch repaints charts."""

from __future__ import annotations

from typing import Any, Literal

import httpx
import numpy as np
import pytest
from playwright.sync_api import Browser, Locator, Page

from tests.browser.ui import ARTIFACTS, ui_page
from tests.browser.visuals import box_of, coloured, luminance, overlapping, pixels, text_boxes
from tests.servers import Server

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
}


def api(server: Server, path: str, **params: str) -> Any:
    return httpx.get(f"{server.url}/{path}", params=params).raise_for_status().json()


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


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_dashboard_is_screenshotted_and_laid_out(
    full_trainboard: Server, browser: Browser, theme: Literal["light", "dark"]
) -> None:
    with ui_page(browser, f"visual-last-{theme}", color_scheme=theme) as page:
        page.goto(full_trainboard.url)
        tabs = page.locator("nav.tabs button[role=tab]")
        tabs.first.wait_for()
        ids = [tab_id.removeprefix("tab-") for tab_id in tabs.evaluate_all("tabs => tabs.map(tab => tab.id)")]
        assert set(DRAWN) <= set(ids)
        # At 1,400 px every tab fits on one row.
        tops = {round(box_of(tabs.nth(index)).top) for index in range(tabs.count())}
        assert len(tops) == 1, tops
        assert page.locator("nav.tabs").evaluate("tabs => tabs.scrollWidth <= tabs.clientWidth")
        for dashboard in ids:
            page.click(f"#tab-{dashboard}")
            if dashboard in DRAWN:
                page.locator(DRAWN[dashboard]).first.wait_for(state="attached")
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(ARTIFACTS / f"visual-{dashboard}-{theme}.png"))
            assert page.locator(".runs").is_visible() == (dashboard in RUN_LIST_DASHBOARDS), dashboard
            header = text_boxes(page.locator("body > header"))
            assert not overlapping(header), (dashboard, overlapping(header))


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


def test_a_series_of_one_point_is_painted(full_trainboard: Server, browser: Browser) -> None:
    # add_hparams writes its metric as a scalar of one point, in a run of its own.
    run, tag = "train/hparams", "hparam/accuracy"
    assert len(api(full_trainboard, "data/plugin/scalars/scalars", run=run, tag=tag)) == 1
    with ui_page(browser, "visual-one-point") as page:
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
