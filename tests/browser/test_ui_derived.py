"""Derived metrics, a tag as the x axis and the compare panel in trainboard's own web UI, on a torch sweep in Debian's
Chromium: a metric defined in the Metrics dialog gets a card whose every point (its CSV download) equals pandas'
over the logdir as TensorBoard's EventAccumulator reads it, and a refused expression is marked where it fails; a tag
chosen as x draws in Scalars and Time Series (a non-monotonic one in step order, and said); the compare panel shows
the numbers of /data/trainboard/compare. Screenshots light and dark at 1280 and 1920 px
(test-artifacts/ui/derived-*.png)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Browser, Locator, Page
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from tests import loopback
from tests.browser.ui import ARTIFACTS, card_menu_item, click_tab, ui_page
from tests.browser.visuals import coloured, pixels
from tests.logdirs import write_sweep_logdir
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

RUN = "adam/lr0.1_seed1"
COMPARED = {"a": "lr = 0.1", "b": "lr = 0.01 and optimizer = adam and seed < 2", "metric": "max(val/acc)"}
# A refused expression's message names the character at fault (from 0).
UNKNOWN = ("acc - nope/x", 6)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    logdir = write_sweep_logdir(tmp_path / "logs", seeds=3, steps=60)
    with trainboard_in_process(logdir, tmp_path) as server:
        yield server, logdir


def logged(logdir: Path, run: str, tag: str) -> pd.Series:
    events = EventAccumulator(str(logdir / run), size_guidance={"scalars": 0})
    events.Reload()
    return pd.Series({event.step: event.value for event in events.Scalars(tag)})


def define(page: Page, name: str, expression: str) -> None:
    page.fill("#definition-name", name)
    page.fill("#definition-expression", expression)
    page.click(".definition-form button.define")


def scalar_card(page: Page, tag: str) -> Locator:
    return page.locator(f"article.card[data-tag='{tag}']")


def test_a_metric_defined_in_the_ui_has_a_card_with_pandas_values(
    server: tuple[Server, Path], browser: Browser
) -> None:
    url, logdir = server[0].url, server[1]
    with ui_page(browser, "derived-define", expected_errors=("400 (Bad Request)",)) as page:
        page.goto(f"{url}/#tagFilter=gap")
        page.locator("#definitions-button").click()
        page.locator(".definition-list li.empty").wait_for()
        # Refused: the message, and the expression up to the character at fault, marked.
        define(page, "bad", UNKNOWN[0])
        page.locator("#definition-problem mark").wait_for()
        assert page.locator("#definition-problem").get_attribute("data-position") == str(UNKNOWN[1])
        assert "nope/x" in page.locator("#definition-problem .message").inner_text()
        assert page.locator("#definition-problem mark").inner_text() == UNKNOWN[0][UNKNOWN[1]]
        define(page, "gap", "acc - val/acc")
        page.locator(".definition-list li[data-name='gap']").wait_for()
        assert page.locator("#definition-problem").inner_text() == ""
        assert loopback.get(f"{url}/data/trainboard/definitions").json()["definitions"] == [
            {"name": "gap", "expression": "acc - val/acc", "align": "exact"}
        ]
        page.locator(".definitions-dialog .close").click()
        card = scalar_card(page, "gap")
        card.wait_for()
        page.wait_for_function("card => Number(card.dataset.runs) > 0", arg=card.element_handle())
        with page.expect_download() as download:
            card_menu_item(card, "csv").click()
        table = pd.read_csv(Path(download.value.path()))
        runs = sorted(set(table["run"]))
        assert RUN in runs and "baseline" not in runs  # the baseline logs no acc
        for run in runs:
            expected = (logged(logdir, run, "acc") - logged(logdir, run, "val/acc")).dropna()
            mine = table[table["run"] == run]
            assert mine["step"].tolist() == expected.index.tolist()
            np.testing.assert_allclose(mine["value"].to_numpy(), expected.to_numpy(), rtol=1e-12)
        # Removed in the dialog: its card goes.
        page.locator("#definitions-button").click()
        page.locator(".definition-list li[data-name='gap'] button.remove").click()
        page.locator(".definition-list li.empty").wait_for()
        page.locator(".definitions-dialog .close").click()
        card.wait_for(state="detached")


def test_a_tag_as_the_x_axis_draws_in_scalars_and_time_series(server: tuple[Server, Path], browser: Browser) -> None:
    url = server[0].url
    loopback.post(f"{url}/data/trainboard/definitions", json={"name": "seen", "expression": "cumsum(abs(loss))"})
    with ui_page(browser, "derived-x-axis") as page:
        page.goto(f"{url}/#tagFilter=^acc$|val/acc")
        card = scalar_card(page, "acc")
        card.wait_for()
        # seen only grows: the chart draws as on steps, its x the against route's.
        with page.expect_response(lambda response: "/data/trainboard/scalars/against" in response.url) as answer:
            page.select_option("#x-axis", "tag:seen")
        assert "x=tag" in page.url and "xTag=seen" in page.url
        runs = answer.value.json()["runs"]
        assert runs and all(series["monotonic"] for series in runs.values())
        page.wait_for_function("card => card.dataset.xTag === 'seen'", arg=card.element_handle())
        assert card.get_attribute("data-monotonic") is None
        assert int(card.get_attribute("data-points") or 0) == sum(len(series["x"]) for series in runs.values())
        assert coloured(pixels(card.locator(".chart .plot"))).sum() > 100
        # loss as x: it falls and rises with noise, so the lines follow their steps and the card says so.
        page.select_option("#x-axis", "tag:loss")
        card.locator(".ordered-chart .x-note").wait_for()
        assert "loss is not monotonic" in card.locator(".x-note").inner_text()
        assert card.get_attribute("data-monotonic") == "false"
        assert coloured(pixels(card.locator(".ordered-chart .plot"))).sum() > 100
        # The card's download has the x column (the server's).
        with page.expect_download() as download:
            card_menu_item(card, "csv").click()
        table = pd.read_csv(Path(download.value.path()))
        assert list(table.columns) == ["run", "tag", "step", "wall_time", "value", "x"]
        # Back to steps: the usual chart.
        page.select_option("#x-axis", "step")
        card.locator(".ordered-chart").wait_for(state="detached")
        assert card.get_attribute("data-x-tag") is None
        # Time Series has the same choice.
        click_tab(page, "timeseries")
        page.select_option("#ts-x-axis", "tag:seen")
        series_card = page.locator(".dashboard.timeseries article.card[data-tag='acc']").first
        series_card.wait_for()
        page.wait_for_function("card => card.dataset.xTag === 'seen'", arg=series_card.element_handle())
        assert coloured(pixels(series_card.locator(".chart .plot"))).sum() > 100


def test_the_compare_panel_shows_the_servers_numbers(server: tuple[Server, Path], browser: Browser) -> None:
    url = server[0].url
    answer = loopback.get(f"{url}/data/trainboard/compare", params=COMPARED).raise_for_status().json()
    with ui_page(browser, "derived-compare", expected_errors=("400 (Bad Request)",)) as page:
        page.goto(f"{url}/")
        page.click("#compare-button")
        page.fill("#compare-a", COMPARED["a"])
        page.fill("#compare-b", COMPARED["b"])
        page.fill("#compare-metric", COMPARED["metric"])
        page.click(".compare-form button.compare")
        table = page.locator(".compare-table")
        table.wait_for()

        def value(selector: str, attribute: str = "data-value") -> float:
            return float(table.locator(selector).get_attribute(attribute) or "nan")

        for side in ("a", "b"):
            assert value(f"tr[data-side={side}] .n") == answer[side]["n"]
            assert value(f"tr[data-side={side}] .mean") == answer[side]["mean"]
            assert value(f"tr[data-side={side}] .interval", "data-low") == answer[side]["low"]
            assert value(f"tr[data-side={side}] .interval", "data-high") == answer[side]["high"]
        assert value("tr[data-side=difference] .mean") == answer["difference"]["estimate"]
        assert value("tr[data-side=difference] .interval", "data-low") == answer["difference"]["low"]
        assert float(page.locator(".compare-tests .p-value").get_attribute("data-value") or "nan") == answer["p_value"]
        assert (
            float(page.locator(".compare-tests .cohens-d").get_attribute("data-value") or "nan") == answer["cohens_d"]
        )
        # b has 2 runs: the server's warning is shown.
        assert answer["warnings"] and page.locator(".compare-panel .warning").all_inner_texts() == answer["warnings"]
        # A metric no run has: the server's message.
        page.fill("#compare-metric", "max(")
        page.click(".compare-form button.compare")
        page.locator(".compare-result .error").wait_for()


def test_a_groups_band_may_be_the_95_percent_interval_of_the_mean(
    server: tuple[Server, Path], browser: Browser
) -> None:
    url = server[0].url
    with ui_page(browser, "derived-groups-ci") as page:
        page.goto(f"{url}/#tagFilter=^acc$&groupBy=hparam:lr")
        legend = page.locator("article.card[data-tag='acc'] .group-legend li")
        legend.first.wait_for()
        with page.expect_response(lambda response: "/data/trainboard/groups/scalars" in response.url) as answer:
            page.select_option("#group-band", "ci")
        assert "band=ci" in (answer.value.request.post_data or "") and "groupBand=ci" in page.url
        expected = loopback.get(
            f"{url}/data/trainboard/groups/scalars", params={"tag": "acc", "by": "hparam:lr", "band": "ci"}
        ).json()
        assert answer.value.json()["groups"] == expected["groups"]
        page.wait_for_function(
            "() => document.querySelector('.group-legend li .band-kind').textContent.includes('95%')"
        )
        assert all("mean, 95% CI of the mean" in text for text in legend.all_inner_texts())


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 1920])
def test_screenshots(
    server: tuple[Server, Path], browser: Browser, theme: Literal["light", "dark"], width: int
) -> None:
    """The dialog over the page, then the compare panel and a card against a tag (looked at by eye)."""
    url = server[0].url
    loopback.post(f"{url}/data/trainboard/definitions", json={"name": "gap", "expression": "acc - val/acc"})
    with ui_page(browser, f"derived-{theme}-{width}", color_scheme=theme, expected_errors=("400",)) as page:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{url}/#tagFilter=gap|^acc$&x=tag&xTag=seen")
        page.locator("#definitions-button").click()
        define(page, "bad", UNKNOWN[0])
        page.locator("#definition-problem mark").wait_for()
        define(page, "seen", "cumsum(abs(loss))")
        page.locator(".definition-list li[data-name='seen']").wait_for()
        page.screenshot(path=str(ARTIFACTS / f"derived-dialog-{theme}-{width}.png"))
        page.locator(".definitions-dialog .close").click()
        page.click("#compare-button")
        page.fill("#compare-a", COMPARED["a"])
        page.fill("#compare-b", COMPARED["b"])
        page.fill("#compare-metric", COMPARED["metric"])
        page.click(".compare-form button.compare")
        page.locator(".compare-table").wait_for()
        scalar_card(page, "gap").wait_for()
        page.wait_for_timeout(500)
