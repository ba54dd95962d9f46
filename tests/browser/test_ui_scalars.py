"""trainboard's own web UI, its scalars dashboard, in Debian's Chromium against a real server on a logdir written by
tensorboardX: the page shows the values the API serves, smooths them as TensorBoard does, filters, downloads,
keeps spikes, remembers its state in the URL, and updates while a run is written."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorboardX
from PIL import Image
from playwright.sync_api import Browser, Locator, Page

from tests import loopback
from tests.browser.ui import (
    HOSTILE_RUN,
    LONG_RUN,
    LONG_STEPS,
    LONG_TAG,
    SEED_RUNS,
    SEED_STEPS,
    SPIKE_STEP,
    SPIKE_VALUE,
    as_number,
    card_menu_item,
    settled_box,
    tb_ema,
    ui_page,
    write_scalar_logdir,
)
from tests.browser.visuals import box_of, overlapping, text_boxes
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

SEEDS_01 = r"^lr_0\.1/"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scalar_logdir(tmp_path_factory.mktemp("scalars") / "logs")


@pytest.fixture(scope="module")
def server(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Reloads every second, for the live-update test, which adds a run.
    with trainboard_in_process(logdir, tmp_path_factory.mktemp("server"), "--reload_interval=1") as server:
        yield server


@pytest.fixture(scope="module")
def sampled_server(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The same logdir with the scalars routes at TensorBoard's default of 1,000 points per series."""
    with trainboard_in_process(
        logdir, tmp_path_factory.mktemp("sampled"), "--samples_per_plugin=scalars=1000"
    ) as server:
        yield server


def served(server: Server, run: str, tag: str) -> list[tuple[float, int, float]]:
    rows = loopback.get(f"{server.url}/data/plugin/scalars/scalars", params={"run": run, "tag": tag}).json()
    return [(wall, step, float(value)) for wall, step, value in rows]


def card(page: Page, tag: str) -> Locator:
    return page.locator(f"article.card[data-tag='{tag}']")


def wait_drawn(page: Page, tag: str, runs: int) -> Locator:
    found = card(page, tag)
    found.scroll_into_view_if_needed()
    page.wait_for_function(
        "([tag, runs]) => { const c = document.querySelector(`article.card[data-tag='${tag}']`);"
        " return c && c.dataset.runs === String(runs) && c.querySelector('.chart').dataset.drawMs; }",
        arg=[tag, runs],
    )
    return found


def hover_step(page: Page, chart: Locator, step: float, low: float, high: float) -> list[dict[str, str]]:
    """Moves the mouse over `step` of a chart whose x-axis spans [low, high]; the tooltip's rows, top to bottom."""
    over = chart.locator(".u-over")
    box = settled_box(page, over)
    page.mouse.move(box["x"] + (step - low) / (high - low) * box["width"], box["y"] + box["height"] / 2)
    tooltip = page.locator("#overlay .tooltip")
    tooltip.wait_for(state="visible")
    header = [cell.strip() for cell in tooltip.locator("th").all_inner_texts()]
    rows = []
    for row in tooltip.locator("tbody tr").all():
        cells = [cell.strip() for cell in row.locator("td").all_inner_texts()]
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def close(shown: str, expected: float) -> bool:
    return math.isclose(as_number(shown), expected, rel_tol=2e-5, abs_tol=1e-9)


def test_tooltip_shows_served_values_smoothed_as_tensorboard_sorted_by_value(server: Server, browser: Browser) -> None:
    tag = "train/loss"
    series = {run: served(server, run, tag) for run in SEED_RUNS[:3]}
    with ui_page(browser, "scalars-tooltip") as page:
        page.goto(f"{server.url}/#runFilter={SEEDS_01}&smoothing=0.6&tooltipSort=descending")
        chart = wait_drawn(page, tag, 3).locator(".chart")
        step = 100
        rows = hover_step(page, chart, step, SEED_STEPS[0], SEED_STEPS[-1])
    assert {row["Run"] for row in rows} == set(series)
    for row in rows:
        points = series[row["Run"]]
        index = [point[1] for point in points].index(step)
        assert int(row["Step"]) == step
        assert close(row["Value"], points[index][2])
        assert close(row["Smoothed"], tb_ema([point[2] for point in points], 0.6)[index])
    smoothed = [as_number(row["Smoothed"]) for row in rows]
    assert smoothed == sorted(smoothed, reverse=True)


def test_tooltip_stays_when_the_chart_is_built_again_under_a_still_pointer(server: Server, browser: Browser) -> None:
    """A new theme (as a new run or colour) builds the plot again; the pointer has not moved, so no mouse event comes:
    the tooltip is there still, with the same rows."""
    tag = "train/loss"
    with ui_page(browser, "scalars-tooltip-rebuilt") as page:
        page.goto(f"{server.url}/#runFilter={SEEDS_01}&smoothing=0.6")
        chart = wait_drawn(page, tag, 3).locator(".chart")
        before = hover_step(page, chart, 100, SEED_STEPS[0], SEED_STEPS[-1])
        canvas = chart.locator("canvas").first.element_handle()
        page.evaluate("document.getElementById('theme').click()")  # a click without moving the pointer
        page.wait_for_function("old => !old.isConnected", arg=canvas)
        tooltip = page.locator("#overlay .tooltip")
        tooltip.wait_for(state="visible", timeout=5_000)
        assert [cell.strip() for cell in tooltip.locator("tbody tr td:nth-child(2)").all_inner_texts()] == [
            row["Run"] for row in before
        ]


def test_tooltip_text_overlaps_nothing(server: Server, browser: Browser) -> None:
    tag = "train/loss"
    with ui_page(browser, "scalars-tooltip-layout") as page:
        page.goto(f"{server.url}/#runFilter={SEEDS_01}&smoothing=0.6")
        chart = wait_drawn(page, tag, 3).locator(".chart")
        rows = hover_step(page, chart, 100, SEED_STEPS[0], SEED_STEPS[-1])
        assert len(rows) == 3
        tooltip = page.locator("#overlay .tooltip")
        boxes = text_boxes(tooltip, ".swatch")
        assert {box.text for box in boxes} >= {"Run", "Smoothed", *(row["Run"] for row in rows)}
        assert not overlapping(boxes), overlapping(boxes)
        frame = box_of(tooltip)
        assert all(box.inside(frame) for box in boxes), [box for box in boxes if not box.inside(frame)]


def test_moving_average_and_no_smoothing(server: Server, browser: Browser) -> None:
    tag = "eval/loss"
    run = SEED_RUNS[3]
    values = [point[2] for point in served(server, run, tag)]
    with ui_page(browser, "scalars-moving-average") as page:
        page.goto(f"{server.url}/#runFilter=^lr_0\\.01/&smoother=ma&window=5")
        chart = wait_drawn(page, tag, 1).locator(".chart")
        (row,) = hover_step(page, chart, 100, SEED_STEPS[0], SEED_STEPS[-1])
        index = list(SEED_STEPS).index(100)
        assert close(row["Smoothed"], sum(values[index - 4 : index + 1]) / 5)
        page.select_option("#smoother", "none")
        page.mouse.move(0, 0)
        (row,) = hover_step(page, chart, 100, SEED_STEPS[0], SEED_STEPS[-1])
        assert close(row["Smoothed"], values[index]) and close(row["Value"], values[index])
        assert "smoother=none" in page.url


def test_charts_are_grouped_by_prefix_and_filtered_by_regex(server: Server, browser: Browser) -> None:
    with ui_page(browser, "scalars-filters") as page:
        page.goto(f"{server.url}/#runFilter={SEEDS_01}")
        page.locator("article.card").first.wait_for()
        groups = {
            group.get_attribute("data-group"): sorted(
                tag or ""
                for tag in group.locator("article.card").evaluate_all("cards => cards.map(c => c.dataset.tag)")
            )
            for group in page.locator("details.group").all()
        }
        assert groups == {"eval": ["eval/loss"], "lr": ["lr"], "train": ["train/accuracy", "train/loss"]}
        assert page.locator("#run-count").inner_text().startswith("3 of ")

        page.fill("#tag-filter", "loss$")
        page.wait_for_function("() => document.querySelectorAll('article.card').length === 2")
        assert sorted(page.locator("article.card").evaluate_all("cards => cards.map(c => c.dataset.tag)")) == [
            "eval/loss",
            "train/loss",
        ]
        page.fill("#tag-filter", "(")
        assert page.locator(".error", has_text="not a valid regular expression").count() == 1

        # The link's runFilter is no filter: the box opened in regex mode.
        assert page.locator("#run-regex").get_attribute("aria-pressed") == "true"
        page.fill("#run-filter", "seed_0$")
        page.wait_for_function(
            """() => JSON.stringify([...document.querySelectorAll('#runs-table .tbody .trow')].map(r => r.dataset.run)
                .sort()) === '["lr_0.01/seed_0","lr_0.1/seed_0"]'"""
        )
        assert "runFilter=seed_0%24" in page.url


def test_select_all_matching_and_keyboard_selection(server: Server, browser: Browser) -> None:
    with ui_page(browser, "scalars-run-selector") as page:
        page.goto(f"{server.url}/#runsTable=0")  # the names list: its keyboard
        page.locator("#run-list .run").first.wait_for()
        total = len(loopback.get(f"{server.url}/data/runs").json())
        page.click("#run-regex")
        page.fill("#run-filter", "seed")
        page.click("#deselect-matching")
        assert page.locator("#run-count").inner_text().startswith("0 of ")
        page.click("#select-matching")
        assert page.locator("#run-count").inner_text().startswith("4 of ")
        page.fill("#run-filter", "")
        assert page.locator("#run-count").inner_text().startswith(f"{total} of {total} ")
        # Keyboard: focus the list, move to the second run, deselect it with space.
        page.focus("#run-list")
        page.keyboard.press("Home")
        page.keyboard.press("ArrowDown")
        second = page.locator("#run-list .run.active").get_attribute("data-run")
        assert page.locator("#run-list .run.active").get_attribute("aria-selected") == "true"
        page.keyboard.press("Space")
        assert page.locator("#run-list .run.active").get_attribute("aria-selected") == "false"
        assert second is not None and f"run={second}" not in page.url.replace("%2F", "/")


def test_downloads_hold_every_served_point(server: Server, browser: Browser) -> None:
    tag = "train/accuracy"
    expected = {run: served(server, run, tag) for run in SEED_RUNS[:3]}
    with ui_page(browser, "scalars-download") as page:
        page.goto(f"{server.url}/#runFilter={SEEDS_01}&smoother=none")
        found = wait_drawn(page, tag, 3)
        with page.expect_download() as csv_download:
            card_menu_item(found, "csv").click()
        with page.expect_download() as json_download:
            card_menu_item(found, "json").click()
        csv_text = Path(csv_download.value.path()).read_text()
        json_body: dict[str, Any] = json.loads(Path(json_download.value.path()).read_text())
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    by_run: dict[str, list[tuple[float, int, float]]] = {}
    for row in rows:
        by_run.setdefault(row["run"], []).append((float(row["wall_time"]), int(row["step"]), float(row["value"])))
        assert float(row["smoothed"]) == float(row["value"])
    assert by_run == expected
    assert json_body["tag"] == tag
    assert {run: [tuple(point) for point in points] for run, points in json_body["runs"].items()} == expected


def test_csv_download_holds_every_point_where_the_chart_is_downsampled(
    sampled_server: Server, browser: Browser
) -> None:
    every = served(sampled_server, LONG_RUN, LONG_TAG)
    assert len(every) == 1000  # the chart's series, downsampled by the server
    with ui_page(browser, "scalars-download-all") as page:
        page.goto(f"{sampled_server.url}/#runFilter=^long$&smoother=ema&smoothing=0.6")
        found = wait_drawn(page, LONG_TAG, 1)
        assert found.get_attribute("data-points") == "1000"
        with page.expect_download() as csv_download:
            card_menu_item(found, "csv").click()
        with page.expect_download() as json_download:
            card_menu_item(found, "json").click()
        rows = list(csv.DictReader(io.StringIO(Path(csv_download.value.path()).read_text())))
        json_body: dict[str, Any] = json.loads(Path(json_download.value.path()).read_text())
    assert [int(row["step"]) for row in rows] == list(range(LONG_STEPS))
    assert float(rows[SPIKE_STEP]["value"]) == SPIKE_VALUE
    smoothed = tb_ema([float(row["value"]) for row in rows], 0.6)
    assert [float(row["smoothed"]) for row in rows] == pytest.approx(smoothed, rel=1e-9)
    assert [point[1] for point in json_body["runs"][LONG_RUN]] == list(range(LONG_STEPS))


def test_a_spike_between_drawn_columns_stays_in_the_envelope(server: Server, browser: Browser) -> None:
    assert len(served(server, LONG_RUN, LONG_TAG)) == 6000  # more points than the chart has pixel columns
    with ui_page(browser, "scalars-envelope") as page:
        page.goto(f"{server.url}/#runFilter=^long$&tagFilter=^train/loss$&smoother=none")
        found = wait_drawn(page, LONG_TAG, 1)
        columns = int(found.locator(".chart").get_attribute("data-columns") or 0)
        assert 0 < columns < 6000
        # The spike's column averages it with its neighbours, so its line stays low; the envelope of the raw values
        # reaches the spike, near the top of the plot (the y-axis ends just above the largest value).
        over = found.locator(".u-over").bounding_box()
        canvas = found.locator("canvas").bounding_box()
        assert over is not None and canvas is not None
        pixels = np.asarray(Image.open(io.BytesIO(found.locator("canvas").screenshot())).convert("RGB"), np.int16)
        spike_x = round(over["x"] - canvas["x"] + (SPIKE_STEP / (6000 - 1)) * over["width"])
        top = round(over["y"] - canvas["y"])
        region = pixels[top : top + round(over["height"] * 0.1), spike_x - 3 : spike_x + 4]
        assert int((region.max(axis=2) - region.min(axis=2) > 40).sum()) > 0


def test_mean_and_std_over_the_selected_runs(server: Server, browser: Browser) -> None:
    tag = "train/loss"
    index = list(SEED_STEPS).index(50)
    values = [served(server, run, tag)[index][2] for run in SEED_RUNS[:3]]
    mean = sum(values) / 3
    std = math.sqrt(sum((value - mean) ** 2 for value in values) / 3)
    with ui_page(browser, "scalars-mean-std") as page:
        page.goto(f"{server.url}/#runFilter={SEEDS_01}&smoother=none")
        chart = wait_drawn(page, tag, 3).locator(".chart")
        page.check("#band")
        hover_step(page, chart, 50, SEED_STEPS[0], SEED_STEPS[-1])
        text = page.locator("#overlay .tooltip .band").inner_text()
    found = re.fullmatch(r"mean (\S+) ± std (\S+) over 3 runs", text)
    assert found, text
    assert close(found[1], mean) and close(found[2], std)


def test_state_survives_a_reload_and_the_theme_switches(server: Server, browser: Browser) -> None:
    with ui_page(browser, "scalars-dark", color_scheme="light") as page:
        page.goto(f"{server.url}/")
        page.locator("article.card").first.wait_for()
        page.fill("#tag-filter", "^train/")
        page.select_option("#x-axis", "relative")
        page.select_option("#tooltip-sort", "alphabetical")
        page.select_option("#card-size", "large")
        page.locator("#smoothing").fill("0.9")
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
        page.click("#theme")
        page.reload()
        page.locator("article.card").first.wait_for()
        assert page.input_value("#tag-filter") == "^train/"
        assert page.input_value("#x-axis") == "relative"
        assert page.input_value("#tooltip-sort") == "alphabetical"
        assert page.input_value("#card-size") == "large"
        assert page.input_value("#smoothing") == "0.9"
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert sorted(page.locator("article.card").evaluate_all("cards => cards.map(c => c.dataset.tag)")) == [
            "train/accuracy",
            "train/loss",
        ]


def test_names_are_shown_as_text(server: Server, browser: Browser) -> None:
    with ui_page(browser, "scalars-hostile") as page:
        page.goto(f"{server.url}/#runFilter=img")
        row = page.locator("#runs-table .tbody .trow").first
        assert row.locator(".shown-name").inner_text() == HOSTILE_RUN
        wait_drawn(page, "train/loss", 1)
        assert page.locator(".runs img, main img").count() == 0
        page.click("#runs-view")  # the names list
        assert page.locator("#run-list .run").first.inner_text().strip() == HOSTILE_RUN
        assert page.locator(".runs img, main img").count() == 0
        assert page.title() == "trainboard"


def test_new_points_and_runs_appear_without_reload(logdir: Path, server: Server, browser: Browser) -> None:
    with ui_page(browser, "scalars-live") as page:
        page.goto(f"{server.url}/#runFilter=^live$")
        page.wait_for_function("() => document.querySelector('#run-count').textContent.startsWith('0 of ')")
        with tensorboardX.SummaryWriter(str(logdir / "live")) as writer:
            for step in range(20):
                writer.add_scalar("train/loss", 1 / (step + 1), step)
        page.wait_for_function("() => document.querySelector('#run-count').textContent.startsWith('1 of ')")
        found = wait_drawn(page, "train/loss", 1)
        assert found.get_attribute("data-points") == "20"
        assert re.fullmatch(r"(\d+)/\1 files read, [\d,]+ new points", page.locator("#ingest-text").inner_text())
