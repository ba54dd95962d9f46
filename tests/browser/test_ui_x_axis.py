"""The charts' x axis in trainboard's own web UI, in Debian's Chromium, on a logdir written by tensorboardX with a
cyclic learning rate: every scalar chart titles its x axis (Step, Relative time, Wall time, x = TAG) legibly in light
and dark and inside the chart at 1280 px; with the cyclic learning rate as x (not monotonic) the chart's tooltip
shows each run's point nearest the cursor in pixels, and a dragged box zooms into x and y."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Literal

import numpy as np
import pytest
import tensorboardX
from playwright.sync_api import Browser, FloatRect, Locator, Page

from tests import loopback
from tests.browser.ui import click_tab, ui_page
from tests.browser.visuals import luminance, pixels
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

RUNS = ("cyclic/seed0", "cyclic/seed1", "cyclic/seed2")
STEPS = 200
# A triangular cyclic learning rate: up and down between these every CYCLE steps.
LR_LOW, LR_HIGH, CYCLE = 1e-4, 1e-2, 50
# A long tag name as x: its title must still fit the chart at 1280 px.
LONG_X = "schedule/learning_rate_of_the_optimizer_parameter_group_0"
# The title's strip under the ticks (CSS pixels: chart_theme.ts, TITLE_SIZE).
TITLE_PIXELS = 16


def cyclic_lr(step: int, seed: int) -> float:
    phase = (step % CYCLE) / CYCLE
    return (LR_LOW + (LR_HIGH - LR_LOW) * (1 - abs(2 * phase - 1))) * (1 + 0.05 * seed)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("x-axis")
    rng = np.random.default_rng(3)
    for seed, run in enumerate(RUNS):
        with tensorboardX.SummaryWriter(str(root / "logs" / run)) as writer:
            for step in range(STEPS):
                wall = 1_700_000_000 + step * 2.0
                writer.add_scalar("train/lr", cyclic_lr(step, seed), step, walltime=wall)
                loss = 0.3 + 2 * math.exp(-step / 60) + 0.1 * seed + float(rng.normal(0, 0.02))
                writer.add_scalar("train/loss", loss, step, walltime=wall)
                writer.add_scalar("epoch", step / 20, step, walltime=wall)
                writer.add_scalar(LONG_X, step / 20, step, walltime=wall)
    with trainboard_in_process(root / "logs", root) as server:
        yield server


def loss_card(page: Page) -> Locator:
    return page.locator("article.card[data-tag='train/loss']").first


def title_strip(chart: Locator) -> np.ndarray:
    """The chart canvas's bottom strip, where the x axis's title is drawn."""
    image = pixels(chart.locator("canvas").first)
    return image[-TITLE_PIXELS:]


def assert_title_legible(chart: Locator, theme: Literal["light", "dark"]) -> None:
    """Text in the strip contrasts with the page (dark on light, light on dark) and lies inside the chart."""
    strip = luminance(title_strip(chart))
    background = float(np.median(strip))
    ink = np.abs(strip - background) > 0.4
    assert (background > 0.8) if theme == "light" else (background < 0.2)
    columns = np.flatnonzero(ink.any(axis=0))
    assert columns.size > 20, "no title drawn"
    assert columns[0] > 2 and columns[-1] < strip.shape[1] - 3, "the title touches the chart's edge"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_scalar_chart_titles_its_x_axis(
    server: Server, browser: Browser, theme: Literal["light", "dark"]
) -> None:
    with ui_page(browser, f"x-axis-titles-{theme}", color_scheme=theme) as page:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(f"{server.url}/#tagFilter=^train/loss$")
        chart = loss_card(page).locator(".chart")
        for choice, title in [
            ("step", "Step"),
            ("relative", "Relative time"),
            ("wall", "Wall time"),
            ("tag:epoch", "x = epoch"),
            (f"tag:{LONG_X}", f"x = {LONG_X}"),
        ]:
            page.select_option("#x-axis", choice)
            page.wait_for_function(
                "([chart, title]) => chart.dataset.xTitle === title", arg=[chart.element_handle(), title]
            )
            assert_title_legible(chart, theme)
        click_tab(page, "timeseries")
        page.select_option("#ts-x-axis", "relative")
        series_chart = page.locator(".dashboard.timeseries article.card[data-tag='epoch'] .chart").first
        series_chart.wait_for()
        page.wait_for_function("chart => chart.dataset.xTitle === 'Relative time'", arg=series_chart.element_handle())
        assert_title_legible(series_chart, theme)


def scales_of(plot: Locator) -> list[float]:
    return [float(value) for value in (plot.get_attribute("data-scales") or "").split(",")]


def pixel_of(box: FloatRect, scales: list[float], x: float, y: float) -> tuple[float, float]:
    """Where (x, y) is drawn, in the page's pixels, on a plot of `box` with linear `scales`."""
    x_low, x_high, y_low, y_high = scales
    return (
        box["x"] + (x - x_low) / (x_high - x_low) * box["width"],
        box["y"] + (y_high - y) / (y_high - y_low) * box["height"],
    )


def nearest_steps(
    series: dict[str, dict[str, list[float]]], box: FloatRect, scales: list[float], at: tuple[float, float]
) -> dict[str, set[int]]:
    """Each run's steps whose point is nearest `at` in pixels (within half a pixel of the nearest: rounding)."""
    found = {}
    for run, columns in series.items():
        places = np.array([pixel_of(box, scales, x, y) for x, y in zip(columns["x"], columns["value"], strict=True)])
        inside = (places[:, 0] >= box["x"]) & (places[:, 0] <= box["x"] + box["width"])
        inside &= (places[:, 1] >= box["y"]) & (places[:, 1] <= box["y"] + box["height"])
        if not inside.any():
            continue
        distance = np.where(inside, np.hypot(places[:, 0] - at[0], places[:, 1] - at[1]), np.inf)
        found[run] = {int(columns["step"][i]) for i in np.flatnonzero(distance <= distance.min() + 0.5)}
    return found


def tooltip_steps(page: Page) -> dict[str, int]:
    rows = page.locator("#overlay .tooltip tr[data-run]")
    return {
        rows.nth(i).get_attribute("data-run") or "": int(rows.nth(i).locator("td.step").inner_text())
        for i in range(rows.count())
    }


def test_a_non_monotonic_x_has_a_tooltip_of_the_nearest_points_and_box_zoom(server: Server, browser: Browser) -> None:
    series = loopback.get(
        f"{server.url}/data/trainboard/scalars/against",
        params=[("tag", "train/loss"), ("x", "train/lr"), *[("run", run) for run in RUNS]],
    ).json()["runs"]
    assert not any(columns["monotonic"] for columns in series.values())
    with ui_page(browser, "x-axis-non-monotonic") as page:
        page.goto(f"{server.url}/#tagFilter=^train/loss$&x=tag&xTag=train/lr&smoothing=0")
        card = loss_card(page)
        plot = card.locator(".ordered-plot")
        plot.wait_for()
        page.wait_for_function("plot => !!plot.dataset.scales", arg=plot.element_handle())
        assert plot.get_attribute("data-x-title") == "x = train/lr"
        assert "not monotonic in 3 of 3 runs" in card.locator(".x-note").inner_text()
        over = plot.locator(".u-over")
        box = over.bounding_box()
        assert box
        whole = scales_of(plot)

        # On a point of seed1 (step 60: the lr's low, after a cycle): that run first, at that step; every run's row is
        # its point nearest the cursor in pixels.
        index = series[RUNS[1]]["step"].index(60)
        at = pixel_of(box, whole, series[RUNS[1]]["x"][index], series[RUNS[1]]["value"][index])
        page.mouse.move(*at)
        tooltip = page.locator("#overlay .tooltip")
        tooltip.wait_for()
        first = tooltip.locator("tr[data-run]").first
        assert first.get_attribute("data-run") == RUNS[1]
        assert "nearest" in (first.get_attribute("class") or "")
        assert first.locator("td.step").inner_text() == "60"
        shown = tooltip_steps(page)
        expected = nearest_steps(series, box, whole, at)
        assert shown.keys() == expected.keys() == set(RUNS)
        assert all(shown[run] in expected[run] for run in RUNS), (shown, expected)
        assert plot.get_attribute("data-nearest") == RUNS[1]
        assert card.locator(".nearest-point").is_visible()

        # A box dragged from (25 %, 20 %) to (60 %, 70 %) of the plot: x and y zoom to it.
        start = (box["x"] + 0.25 * box["width"], box["y"] + 0.2 * box["height"])
        end = (box["x"] + 0.6 * box["width"], box["y"] + 0.7 * box["height"])
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move(*end, steps=8)
        page.mouse.up()
        page.wait_for_function("plot => plot.dataset.zoomed === 'true'", arg=plot.element_handle())
        x_low, x_high, y_low, y_high = whole
        zoomed = scales_of(plot)
        wanted = [
            x_low + 0.25 * (x_high - x_low),
            x_low + 0.6 * (x_high - x_low),
            y_high - 0.7 * (y_high - y_low),
            y_high - 0.2 * (y_high - y_low),
        ]
        spans = [x_high - x_low] * 2 + [y_high - y_low] * 2
        assert all(abs(got - want) < 0.01 * span for got, want, span in zip(zoomed, wanted, spans, strict=True)), (
            zoomed,
            wanted,
        )
        # In the zoomed box, the tooltip is of the points shown there.
        inside = (box["x"] + 0.5 * box["width"], box["y"] + 0.5 * box["height"])
        page.mouse.move(*inside)
        page.wait_for_timeout(100)
        expected = nearest_steps(series, box, zoomed, inside)
        shown = tooltip_steps(page)
        assert shown and shown.keys() == expected.keys()
        assert all(shown[run] in expected[run] for run in shown), (shown, expected)
        # Double-click: the whole of the data again.
        page.mouse.dblclick(*inside)
        page.wait_for_function("plot => plot.dataset.zoomed === 'false'", arg=plot.element_handle())
        assert scales_of(plot) == whole
        # Leaving the chart hides the tooltip.
        page.mouse.move(1, 1)
        tooltip.wait_for(state="hidden")
