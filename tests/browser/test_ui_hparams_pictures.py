"""trainboard's own web UI, the hparams dashboard's table and pictures read as a person would, in Debian's Chromium on
sessions written by tensorboard's functions, torch and tensorboardX: sorting moves no column, every parallel
coordinates axis and every scatter plot has ticks where the groups' values are, the lines take their colour from the
chosen metric, and pointing at a line highlights that one group."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.ui import as_number, hparams_experiment, session_groups, ui_page
from tests.hparams.logdirs import write_writers_logdir
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

LINES = "#hparams-parallel polyline.group-line"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("hparams-pictures")
    write_writers_logdir(root / "logs", trials=12)
    with trainboard_in_process(root / "logs", root / "server") as served:
        yield served


@pytest.fixture(scope="module")
def experiment(server: Server) -> dict[str, Any]:
    return hparams_experiment(server.url)


@pytest.fixture(scope="module")
def groups(server: Server, experiment: dict[str, Any]) -> list[dict[str, Any]]:
    return session_groups(server.url, experiment)


def metric_of(group: dict[str, Any], name: dict[str, str]) -> float | None:
    for value in group["metricValues"]:
        if value["name"] == name:
            return float(value["value"])
    return None


def opened(page: Page, server: Server, count: int) -> None:
    page.goto(f"{server.url}/#dashboard=hparams")
    page.wait_for_function(f"count => document.querySelectorAll('{LINES}').length === count", arg=count)


def header_places(page: Page) -> list[tuple[float, float]]:
    boxes: list[tuple[float, float]] = page.locator("#hparams-table thead tr:first-child th").evaluate_all(
        "cells => cells.map(cell => { const box = cell.getBoundingClientRect(); return [box.left, box.width]; })"
    )
    return [tuple(box) for box in boxes]  # type: ignore[misc]


def test_sorting_moves_no_column(server: Server, browser: Browser, groups: list[dict[str, Any]]) -> None:
    with ui_page(browser, "hparams-sorted") as page:
        opened(page, server, len(groups))
        before = header_places(page)
        for column, order in [("h:lr", "ascending"), ("h:lr", "descending"), ("h:optimizer", "ascending")]:
            page.click(f"button.sort[data-column='{column}']")
            page.wait_for_function(
                "([column, order]) => document.querySelector(`button.sort[data-column='${column}']`)"
                ".closest('th').getAttribute('aria-sort') === order",
                arg=[column, order],
            )
            assert header_places(page) == before, (column, order)


def test_every_parallel_axis_has_ticks_where_the_values_are(
    server: Server, browser: Browser, experiment: dict[str, Any], groups: list[dict[str, Any]]
) -> None:
    numeric = {info["name"] for info in experiment["hparamInfos"] if info["type"] == "DATA_TYPE_FLOAT64"}
    with ui_page(browser, "hparams-axes") as page:
        opened(page, server, len(groups))
        for name in sorted(numeric):
            values = [group["hparams"][name] for group in groups if name in group["hparams"]]
            assert len(set(values)) > 1
            axis = page.locator(f"#hparams-parallel g.axis[data-column='h:{name}']")
            ticks: list[tuple[str, float]] = axis.locator("g.tick").evaluate_all(
                "ticks => ticks.map(tick => [tick.querySelector('text').textContent,"
                " tick.transform.baseVal.consolidate().matrix.f])"
            )
            assert len(ticks) > 2, (name, ticks)
            labels = [as_number(label) for label, _ in ticks]
            assert min(values) <= min(labels) and max(labels) <= max(values), (name, labels, values)
            # Higher values higher up, at places proportional to the values (a linear axis).
            (low, low_y), (high, high_y) = (labels[0], ticks[0][1]), (labels[-1], ticks[-1][1])
            assert high > low and high_y < low_y
            for value, (_, y) in zip(labels, ticks, strict=True):
                assert y == pytest.approx(low_y + (value - low) / (high - low) * (high_y - low_y), abs=0.5)
            # Each group's line crosses the axis where its value is.
            axis_x = axis.evaluate("axis => axis.transform.baseVal.consolidate().matrix.e")
            lines = dict(
                page.locator(LINES).evaluate_all("ls => ls.map(l => [l.dataset.group, l.getAttribute('points')])")
            )
            crossed = 0
            for group in groups:
                points = [tuple(map(float, point.split(","))) for point in lines[group["name"]].split()]
                if name in group["hparams"]:
                    y = next(y for x, y in points if x == pytest.approx(axis_x))
                    expected = low_y + (group["hparams"][name] - low) / (high - low) * (high_y - low_y)
                    assert y == pytest.approx(expected, abs=0.5)
                    crossed += 1
            assert crossed


def rgb(text: str) -> tuple[int, int, int]:
    red, green, blue = (int(part) for part in re.findall(r"\d+", text)[:3])
    return red, green, blue


def test_lines_take_the_colour_of_the_chosen_metric(
    server: Server, browser: Browser, experiment: dict[str, Any], groups: list[dict[str, Any]]
) -> None:
    with ui_page(browser, "hparams-colour") as page:
        opened(page, server, len(groups))
        colours_seen = []
        for info in experiment["metricInfos"]:
            name = info["name"]
            having = {group["name"]: metric_of(group, name) for group in groups}
            measured = {group: value for group, value in having.items() if value is not None and math.isfinite(value)}
            if len(set(measured.values())) < 2:
                continue
            key = f"m:{name['group']}/{name['tag']}"
            page.select_option("#hparams-color-by", key)
            colours = dict(
                page.locator(LINES).evaluate_all(
                    "lines => lines.map(line => [line.dataset.group, getComputedStyle(line).stroke])"
                )
            )
            lowest = min(measured, key=lambda group: measured[group])
            highest = max(measured, key=lambda group: measured[group])
            # Blue the lowest, red the highest; the dots of the scatter plots in the same colours.
            assert rgb(colours[lowest])[2] > rgb(colours[lowest])[0]
            assert rgb(colours[highest])[0] > rgb(colours[highest])[2]
            dots = page.locator(f"#hparams-matrix svg.scatter[data-metric='{key}'] circle").evaluate_all(
                "dots => dots.map(dot => [dot.dataset.group, getComputedStyle(dot).fill])"
            )
            assert dots and all(colours[group] == fill for group, fill in dots)
            colours_seen.append(colours)
        assert len(colours_seen) >= 2 and colours_seen[0] != colours_seen[1]


def y_at(points: list[tuple[float, ...]], x: float) -> float | None:
    """Where a polyline is at `x`; None outside it."""
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if x0 <= x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0) if x1 > x0 else y0
    return None


def test_pointing_at_a_line_highlights_its_group(
    server: Server, browser: Browser, groups: list[dict[str, Any]]
) -> None:
    with ui_page(browser, "hparams-hover") as page:
        opened(page, server, len(groups))
        lines: list[tuple[str, str]] = page.locator(LINES).evaluate_all(
            "lines => lines.map(line => [line.dataset.group, line.getAttribute('points')])"
        )
        polylines = {name: [tuple(map(float, point.split(","))) for point in points.split()] for name, points in lines}
        page.locator("#hparams-parallel svg").scroll_into_view_if_needed()
        plot = page.locator("#hparams-parallel svg").bounding_box()
        assert plot is not None
        # A spot halfway between the first two axes on one group's line, far from every other line there.
        for name, points in polylines.items():
            (x0, y0), (x1, y1) = points[0], points[1]
            x, y = (x0 + x1) / 2, (y0 + y1) / 2
            others = [y_at(other, x) for key, other in polylines.items() if key != name]
            if all(other is None or abs(other - y) > 20 for other in others):
                break
        else:
            pytest.fail("no line stands apart from the others")
        page.mouse.move(plot["x"] + x, plot["y"] + y)
        page.wait_for_function("() => document.querySelector('#hparams-parallel .group-line.highlighted')")
        styles: list[tuple[str, bool, float, float]] = page.locator(LINES).evaluate_all(
            "lines => lines.map(line => { const style = getComputedStyle(line);"
            " return [line.dataset.group, line.classList.contains('highlighted'), parseFloat(style.strokeWidth),"
            " parseFloat(style.opacity)]; })"
        )
        highlighted = [style for style in styles if style[1]]
        assert [style[0] for style in highlighted] == [name]
        rest = [style for style in styles if not style[1]]
        assert all(highlighted[0][2] > style[2] and highlighted[0][3] > style[3] for style in rest)
        assert page.locator("#hparams-hovered").inner_text().startswith(f"{name}: ")
        assert page.locator(f"#hparams-matrix circle.highlighted[data-group='{name}']").count() > 0
        page.mouse.move(1, 1)
        page.wait_for_function("() => !document.querySelector('#hparams-parallel .group-line.highlighted')")
        # Pointing at a row of the table highlights that group's line too.
        other = next(group["name"] for group in groups if group["name"] != name)
        page.locator(f"#hparams-table tbody tr[data-group='{other}']").hover()
        page.wait_for_function(
            "name => [...document.querySelectorAll('#hparams-parallel .group-line.highlighted')]"
            ".map(line => line.dataset.group).join() === name",
            arg=other,
        )


def test_every_scatter_plot_has_ticks_where_the_dots_are(
    server: Server, browser: Browser, experiment: dict[str, Any], groups: list[dict[str, Any]]
) -> None:
    with ui_page(browser, "hparams-matrix") as page:
        opened(page, server, len(groups))
        cells = page.locator("#hparams-matrix svg.scatter")
        assert cells.count() == len(experiment["hparamInfos"]) * len(experiment["metricInfos"])
        for index in range(cells.count()):
            cell = cells.nth(index)
            assert cell.locator("g.x-ticks text").count() >= 2
            assert cell.locator("g.y-ticks text").count() >= 2
        # On the learning rate's plots the dots sit where the x ticks say their lr is.
        for cell in cells.all():
            if cell.get_attribute("data-hparam") != "h:lr":
                continue
            ticks = cell.locator("g.x-ticks text").evaluate_all(
                "texts => texts.map(text => [text.textContent, Number(text.getAttribute('x'))])"
            )
            (low, low_x), (high, high_x) = (
                (as_number(ticks[0][0]), ticks[0][1]),
                (as_number(ticks[-1][0]), ticks[-1][1]),
            )
            lr = {group["name"]: group["hparams"]["lr"] for group in groups if "lr" in group["hparams"]}
            dots = cell.locator("circle").evaluate_all(
                "dots => dots.map(dot => [dot.dataset.group, dot.cx.baseVal.value])"
            )
            assert dots
            for group, x in dots:
                assert x == pytest.approx(low_x + (lr[group] - low) / (high - low) * (high_x - low_x), abs=0.5)
