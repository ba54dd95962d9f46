"""Finding the run behind a line, in Debian's Chromium on a logdir of 60 runs written by tensorboardX: the tooltip
floats above the page inside the window, lists the nearest line first, the nearest line and a run hovered in the run
list are highlighted, a click on a line picks its run; and the chart basics: box zoom refits y, whole-number step
ticks, card sizes filling the width, full screen filling the window."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
import tensorboardX
from playwright.sync_api import Browser, Locator, Page

from tests.browser.ui import ui_page
from tests.browser.visuals import box_of
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

RUNS = [f"exp{index // 20}/run{index:02d}" for index in range(60)]
STEPS = range(0, 100, 5)
# Each run's loss is a flat line at its index: the line at a height is the run of that index.
LOSS = "loss"
# A ramp from 0 to 1,000 (step = value), to zoom into.
RAMP = "ramp"
# A training loss that starts high: 60 at step 0, then between 0.3 and 4 from step 100 on.
SPIKE = "train_loss"
SPIKE_STEPS = range(0, 1001, 5)
SPIKE_LOW, SPIKE_HIGH = 0.3, 4.0
# A tag the first run logged once, at this step.
SINGLE, SINGLE_STEP = "single", 4998
GROUP_TAGS = ("group/a", "group/b", "group/c", "group/d")
# The run pickers: the runs table (the default) and the names list; each one's rows, its box and the URL that shows it.
PICKERS = {
    "table": ("#runs-table .trow", "#runs-table-body", ""),
    "names": ("#run-list .run", "#run-list", "runsTable=0&"),
}


def spike_loss(step: int) -> float:
    middle, half = (SPIKE_LOW + SPIKE_HIGH) / 2, (SPIKE_HIGH - SPIKE_LOW) / 2
    return middle + half * math.sin(step / 20) + 60 * math.exp(-step / 12)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("identify") / "logs"
    for index, run in enumerate(RUNS):
        with tensorboardX.SummaryWriter(str(root / run)) as writer:
            for step in STEPS:
                writer.add_scalar(LOSS, float(index), step, walltime=1_700_000_000 + step)
            if index == 0:
                for step in range(0, 1001, 10):
                    writer.add_scalar(RAMP, float(step), step, walltime=1_700_000_000 + step)
                writer.add_scalar(SINGLE, 0.5, SINGLE_STEP, walltime=1_700_000_000)
                for step in SPIKE_STEPS:
                    writer.add_scalar(SPIKE, spike_loss(step), step, walltime=1_700_000_000 + step)
                for tag in GROUP_TAGS:
                    writer.add_scalar(tag, 1.0, 0, walltime=1_700_000_000)
                    writer.add_scalar(tag, 2.0, 1, walltime=1_700_000_001)
    return root


@pytest.fixture(scope="module")
def server(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with trainboard_in_process(logdir, tmp_path_factory.mktemp("server")) as server:
        yield server


def drawn_chart(page: Page, tag: str, runs: int) -> Locator:
    card = page.locator(f"article.card[data-tag='{tag}']")
    card.scroll_into_view_if_needed()
    page.wait_for_function(
        "([tag, runs]) => { const c = document.querySelector(`article.card[data-tag='${tag}']`);"
        " return c && c.dataset.runs === String(runs) && c.querySelector('.chart').dataset.drawMs; }",
        arg=[tag, runs],
    )
    return card.locator(".chart")


def point_of(chart: Locator, x_fraction: float, value: float) -> tuple[float, float]:
    """Where on the page the chart draws `value` at `x_fraction` of its width."""
    box = chart.locator(".u-over").bounding_box()
    assert box is not None
    low, high = (float(part) for part in str(chart.get_attribute("data-y-range")).split(","))
    return box["x"] + box["width"] * x_fraction, box["y"] + box["height"] * (high - value) / (high - low)


def tooltip_runs(page: Page) -> list[str]:
    rows = page.locator("#overlay .tooltip tr[data-run]")
    rows.first.wait_for()
    return [str(run) for run in rows.evaluate_all("rows => rows.map(row => row.dataset.run)")]


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1000)])
def test_the_tooltip_of_60_runs_is_inside_the_window_and_on_top(
    server: Server, browser: Browser, width: int, height: int
) -> None:
    with ui_page(browser, f"identify-tooltip-{width}") as page:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{server.url}/#tagFilter=^{LOSS}$")
        chart = drawn_chart(page, LOSS, 60)
        # Near the chart's right and bottom edges: the tooltip must flip to stay in the window.
        for x_fraction, value in ((0.95, 2.0), (0.05, 58.0), (0.5, 30.0)):
            page.mouse.move(*point_of(chart, x_fraction, value))
            # Compact: the nearest runs, then a count of the others (it covered half the chart at 1280 px).
            assert len(tooltip_runs(page)) == 9
            tooltip = page.locator("#overlay .tooltip")
            assert tooltip.locator(".more").inner_text() == "and 51 more runs"
            box = box_of(tooltip)
            assert box.bottom - box.top < 0.8 * (box_of(chart).bottom - box_of(chart).top), box
            assert 0 <= box.left and box.right <= width and 0 <= box.top and box.bottom <= height, box
            # Topmost at its corners: no card, header or chart is drawn over it.
            for x, y in (
                (box.left + 2, box.top + 2),
                (box.right - 2, box.top + 2),
                (box.left + 2, box.bottom - 2),
                (box.right - 2, box.bottom - 2),
            ):
                assert page.evaluate(
                    "([x, y]) => !!document.elementFromPoint(x, y)?.closest('#overlay .tooltip')", [x, y]
                ), (x, y)


def test_the_nearest_line_comes_first_and_is_highlighted(server: Server, browser: Browser) -> None:
    with ui_page(browser, "identify-nearest") as page:
        page.goto(f"{server.url}/#tagFilter=^{LOSS}$")
        assert page.input_value("#tooltip-sort") == "nearest"
        chart = drawn_chart(page, LOSS, 60)
        for index in (7, 41):
            page.mouse.move(*point_of(chart, 0.5, index + 0.2))
            page.wait_for_function(
                "run => document.querySelector('#overlay .tooltip tr[data-run]')?.dataset.run === run", arg=RUNS[index]
            )
            assert tooltip_runs(page)[:3] == [RUNS[index], RUNS[index + 1], RUNS[index - 1]]
            assert chart.get_attribute("data-highlight") == RUNS[index]
        page.mouse.move(0, 0)
        page.wait_for_function("() => !document.querySelector('.chart[data-highlight]')")
        assert page.locator("#overlay .tooltip").is_hidden()
        # The other orders, as TensorBoard's.
        page.select_option("#tooltip-sort", "alphabetical")
        page.mouse.move(*point_of(chart, 0.5, 30.0))
        page.wait_for_timeout(100)
        assert tooltip_runs(page)[:2] == RUNS[:2]
        page.select_option("#tooltip-sort", "descending")
        page.mouse.move(*point_of(chart, 0.5, 31.0))
        page.wait_for_timeout(100)
        assert tooltip_runs(page)[:2] == [RUNS[59], RUNS[58]]


@pytest.mark.parametrize("picker", PICKERS)
def test_a_run_hovered_in_the_run_list_is_highlighted_in_every_chart(
    server: Server, browser: Browser, picker: str
) -> None:
    rows, _, shown = PICKERS[picker]
    with ui_page(browser, f"identify-run-list-{picker}") as page:
        page.goto(f"{server.url}/#{shown}tagFilter=^({LOSS}|{RAMP})$")
        drawn_chart(page, RAMP, 1)
        drawn_chart(page, LOSS, 60)
        page.locator(f"{rows}[data-run='{RUNS[0]}']").hover()
        page.wait_for_function(
            "run => [...document.querySelectorAll('.chart')].every(c => c.dataset.highlight === run)", arg=RUNS[0]
        )
        page.locator(f"{rows}[data-run='{RUNS[3]}']").hover()
        # Only the charts that draw the run say so.
        page.wait_for_function(
            "run => document.querySelector(\"article[data-tag='loss'] .chart\").dataset.highlight === run"
            " && !document.querySelector(\"article[data-tag='ramp'] .chart\").dataset.highlight",
            arg=RUNS[3],
        )
        page.mouse.move(800, 5)
        page.wait_for_function("() => !document.querySelector('.chart[data-highlight]')")


def test_a_run_hovered_in_the_run_list_dims_the_others_and_reaches_charts_scrolled_to(
    server: Server, browser: Browser
) -> None:
    with ui_page(browser, "identify-run-list-scroll") as page:
        page.set_viewport_size({"width": 1280, "height": 600})
        page.goto(f"{server.url}/#tagFilter=^({LOSS}|group/.)$&cardSize=large")
        for tag in GROUP_TAGS:  # each drawn as it comes into view; the loss card comes last
            drawn_chart(page, tag, 1)
        drawn_chart(page, LOSS, 60)
        first = page.locator(f"article.card[data-tag='{GROUP_TAGS[0]}'] .chart")
        first.scroll_into_view_if_needed()
        page.locator(f"#runs-table .trow[data-run='{RUNS[0]}']").hover()
        page.wait_for_function(
            "([tag, run]) => document.querySelector(`article.card[data-tag='${tag}'] .chart`).dataset.highlight"
            " === run",
            arg=[GROUP_TAGS[0], RUNS[0]],
        )
        # The others dimmed by a veil over the plot: exactly over it, above uPlot's canvas, under the highlighted line.
        assert box_of(first.locator(".veil")) == box_of(first.locator(".u-over"))
        layers = first.locator(".u-wrap > *").evaluate_all("nodes => nodes.map(node => node.className)")
        assert layers.index("veil") == layers.index("highlight") - 1, layers
        # A chart out of view is painted once scrolled to.
        loss = page.locator(f"article.card[data-tag='{LOSS}'] .chart")
        assert loss.get_attribute("data-highlight") is None
        loss.scroll_into_view_if_needed()
        page.wait_for_function(
            "([tag, run]) => document.querySelector(`article.card[data-tag='${tag}'] .chart`).dataset.highlight"
            " === run",
            arg=[LOSS, RUNS[0]],
        )
        page.mouse.move(800, 5)
        page.wait_for_function(
            "() => !document.querySelector('.chart[data-highlight]') && !document.querySelector('.chart .veil')"
        )


@pytest.mark.parametrize("picker", PICKERS)
def test_a_click_on_a_line_picks_its_run(server: Server, browser: Browser, picker: str) -> None:
    picked = RUNS[52]
    rows, box, shown = PICKERS[picker]
    with ui_page(browser, f"identify-click-{picker}") as page:
        page.goto(f"{server.url}/#{shown}tagFilter=^{LOSS}$")
        chart = drawn_chart(page, LOSS, 60)
        page.mouse.click(*point_of(chart, 0.4, 52.0))
        row = page.locator(f"{rows}.picked")
        row.wait_for()
        assert row.get_attribute("data-run") == picked
        # Scrolled into the list's view (the table's rows are as wide as its columns), with "Only" one click away.
        found, seen = box_of(row), box_of(page.locator(box))
        assert seen.top <= found.top and found.bottom <= seen.bottom, (found, seen)
        row.locator("button.only").click()
        page.wait_for_function("() => document.querySelector(\"article[data-tag='loss']\").dataset.runs === '1'")
        assert page.locator("#run-count").inner_text().startswith("1 of 60")
        if picker == "table":
            assert page.locator("#runs-table-count").inner_text() == "60 runs, 1 selected"


def test_box_zoom_refits_y_to_the_zoomed_data(server: Server, browser: Browser) -> None:
    with ui_page(browser, "identify-zoom") as page:
        page.goto(f"{server.url}/#tagFilter=^{RAMP}$&smoother=none")
        chart = drawn_chart(page, RAMP, 1)
        box = chart.locator(".u-over").bounding_box()
        assert box is not None
        y = box["y"] + box["height"] / 2
        page.mouse.move(box["x"] + box["width"] * 0.6, y)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.8, y, steps=5)
        page.mouse.up()
        page.wait_for_function("() => !document.querySelector('.chart').dataset.yRange.startsWith('-')")
        low, high = (float(part) for part in str(chart.get_attribute("data-y-range")).split(","))
        # The zoomed steps hold values of about 600 to 800: y spans them, with a little room.
        assert 500 < low < 620 and 780 < high < 900, (low, high)


@pytest.mark.parametrize("dashboard", ["scalars", "timeseries"])
def test_box_zoom_past_an_early_spike_refits_y(server: Server, browser: Browser, dashboard: str) -> None:
    with ui_page(browser, f"identify-zoom-spike-{dashboard}") as page:
        # Smoothed as by default; on Time Series with the outliers in the y range (they are what is zoomed past).
        page.goto(f"{server.url}/#dashboard={dashboard}&tagFilter=^{SPIKE}$&ignoreOutliers=0")
        chart = drawn_chart(page, SPIKE, 1)
        low, high = (float(part) for part in str(chart.get_attribute("data-y-scale")).split(","))
        assert high > 50, (low, high)  # the spike is in view
        box = chart.locator(".u-over").bounding_box()
        assert box is not None
        y = box["y"] + box["height"] / 2
        # From about step 400 to step 900: the loss there goes between 0.3 and 4, 50 times below the spike.
        page.mouse.move(box["x"] + box["width"] * 0.4, y)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.9, y, steps=5)
        page.mouse.up()
        page.wait_for_function(
            "() => Number(document.querySelector('article.card .chart').dataset.yScale.split(',')[1]) < 50"
        )
        low, high = (float(part) for part in str(chart.get_attribute("data-y-scale")).split(","))
        # The zoomed data fills the height: y covers 0.3 to 4, with no more room than a little padding.
        span = SPIKE_HIGH - SPIKE_LOW
        assert (
            SPIKE_LOW - 0.15 * span < low <= SPIKE_LOW + 0.01 and SPIKE_HIGH - 0.01 <= high < SPIKE_HIGH + 0.15 * span
        ), (
            low,
            high,
        )


def test_the_runs_a_filter_shows_have_distinct_colours(server: Server, browser: Browser) -> None:
    with ui_page(browser, "identify-filter-colours") as page:
        page.goto(f"{server.url}/#tagFilter=^{LOSS}$")
        drawn_chart(page, LOSS, 60)
        # Twelve of the 60 runs, of which run00 and run48 (and run10 and run58) had one colour, told apart by a dash.
        page.goto(f"{server.url}/#tagFilter=^{LOSS}$&runRegex=1&runFilter={quote('[08]$')}")
        drawn_chart(page, LOSS, 12)
        page.wait_for_function("() => document.querySelectorAll('#runs-table .run-swatch').length === 12")
        swatches = page.locator("#runs-table .run-swatch").evaluate_all(
            "swatches => swatches.map(swatch => swatch.style.background)"
        )
        assert len(set(swatches)) == 12, swatches
        # The names list: the same colours, solid (no dash: the colours tell them apart).
        page.click("#runs-view")
        colours = page.locator("#run-list input.color").evaluate_all("inputs => inputs.map(input => input.value)")
        assert len(colours) == 12
        assert len(set(colours)) == 12, colours
        assert page.locator("#run-list svg.dash").count() == 0


def test_a_cards_log_y_and_legend_are_kept_in_the_url(server: Server, browser: Browser) -> None:
    with ui_page(browser, "identify-card-state") as page:
        page.goto(f"{server.url}/#dashboard=timeseries&tagFilter=^({LOSS}|{RAMP})$")
        loss = drawn_chart(page, LOSS, 60)
        card = page.locator(f"article.card[data-tag='{LOSS}']")
        card.locator("button.log-y").click()
        card.locator("button.legend-toggle").click()
        page.wait_for_function("() => location.hash.includes('legendCard=')")
        assert "logYCard=loss" in page.url and "legendCard=loss" in page.url, page.url
        # The link opens the card as it was left, the other card as it was: log y and the legend are per card.
        url = page.url
        page.goto("about:blank")
        page.goto(url)
        loss = drawn_chart(page, LOSS, 60)
        ramp = page.locator(f"article.card[data-tag='{RAMP}']")
        assert card.locator("button.log-y").get_attribute("aria-pressed") == "true"
        assert card.locator("ul.legend li").count() == 60
        assert ramp.locator("button.log-y").get_attribute("aria-pressed") == "false"
        assert ramp.locator("ul.legend").is_hidden()
        assert loss.get_attribute("data-y-scale")


def test_a_narrow_cards_header_is_one_line(server: Server, browser: Browser) -> None:
    with ui_page(browser, "identify-narrow-header") as page:
        page.set_viewport_size({"width": 1024, "height": 800})
        page.goto(f"{server.url}/#dashboard=timeseries&cardSize=small&tagFilter=^group/")
        tag = GROUP_TAGS[0]
        drawn_chart(page, tag, 1)
        card = page.locator(f"article.card[data-tag='{tag}']")
        header = card.locator("header")
        card_box, header_box, button = (
            card.bounding_box(),
            header.bounding_box(),
            header.locator("button.log-y").bounding_box(),
        )
        assert card_box is not None and header_box is not None and button is not None
        assert card_box["width"] < 400  # two cards a row: a narrow card
        # One line: no taller than a button, every button inside the card, the title's whole text its hover title.
        assert header_box["height"] < 1.5 * button["height"], (header_box, button)
        for found in header.locator("button").all():
            edge = found.bounding_box()
            assert edge is not None and edge["x"] + edge["width"] <= card_box["x"] + card_box["width"], found
        assert header.locator("h3").get_attribute("title") == tag


def test_a_tag_logged_at_one_step_has_whole_step_ticks(server: Server, browser: Browser) -> None:
    with ui_page(browser, "identify-single-step") as page:
        page.goto(f"{server.url}/#tagFilter=^{SINGLE}$")
        chart = drawn_chart(page, SINGLE, 1)
        ticks = [float(tick) for tick in str(chart.get_attribute("data-x-ticks")).split(",")]
        assert ticks and all(tick == int(tick) for tick in ticks), ticks
        assert SINGLE_STEP in ticks


def test_card_sizes_and_a_grid_that_fills_the_width(server: Server, browser: Browser) -> None:
    with ui_page(browser, "identify-card-sizes") as page:
        page.set_viewport_size({"width": 1920, "height": 1000})
        page.goto(f"{server.url}/#tagFilter=^({LOSS}|group/.*)$")
        chart = drawn_chart(page, LOSS, 60)
        # One card in its group: it takes the row, not a third of it.
        row = box_of(page.locator("details[data-group='loss'] .cards"))
        assert box_of(chart).right - box_of(chart).left > 0.9 * (row.right - row.left)
        # And as high as a wide chart needs (480 px), not the strip of a card of the default size (240 px).
        assert chart.locator("canvas").first.evaluate("c => c.clientHeight") == 480

        def columns() -> int:
            tops = page.locator("details[data-group='group'] article.card").evaluate_all(
                "cards => cards.map(card => Math.round(card.getBoundingClientRect().top))"
            )
            return sum(1 for top in tops if top == tops[0])

        # The grid's columns beside the names list (280 px): the runs table's 560 px leave room for one large card.
        page.click("#runs-view")
        page.wait_for_selector("#run-list", state="visible")
        page.select_option("#card-size", "small")
        page.wait_for_function("() => document.querySelector('[data-card-size=\"small\"]')")
        small = columns()
        page.select_option("#card-size", "large")
        page.wait_for_function("() => document.querySelector('[data-card-size=\"large\"]')")
        large = columns()
        assert small == 4 and large == 2, (small, large)
        # Each group's cards fill the row.
        cards = page.locator("details[data-group='group'] article.card")
        row = box_of(page.locator("details[data-group='group'] .cards"))
        assert box_of(cards.nth(1)).right == pytest.approx(row.right, abs=1)
        assert "cardSize=large" in page.url
        # A card is as high as its chart: no blank space under it, whatever its neighbours' heights.
        page.select_option("#card-size", "small")
        page.wait_for_function("() => document.querySelector('[data-card-size=\"small\"]')")
        # A taller first card (as a legend or a step table makes it): the one beside it keeps its own height.
        cards.nth(0).evaluate(
            "card => card.append(Object.assign(document.createElement('div'), {style: 'height: 80px'}))"
        )
        taller, beside = box_of(cards.nth(0)), box_of(cards.nth(1))
        assert beside.top == pytest.approx(taller.top, abs=1) and taller.bottom - beside.bottom > 12
        assert beside.bottom - box_of(cards.nth(1).locator(".chart")).bottom < 9


def test_full_screen_fills_the_window(server: Server, browser: Browser) -> None:
    with ui_page(browser, "identify-full-screen") as page:
        page.goto(f"{server.url}/#tagFilter=^{LOSS}$")
        chart = drawn_chart(page, LOSS, 60)
        height = page.evaluate("document.querySelector('.chart canvas').clientHeight")
        page.locator("article.card[data-tag='loss'] button.full").click()
        page.wait_for_function("() => document.querySelector('.chart canvas').clientHeight > 800")
        canvas = box_of(chart.locator("canvas").first)
        assert canvas.bottom <= 1000 and canvas.right - canvas.left > 1300
        page.keyboard.press("Escape")
        page.wait_for_function("height => document.querySelector('.chart canvas').clientHeight === height", arg=height)
