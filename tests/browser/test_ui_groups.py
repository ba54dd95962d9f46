"""Groups with bands and the run filter language in trainboard's own web UI, on a torch sweep in Debian's Chromium:
the filter box says which mode it is in and keeps the runs the server keeps; grouping by a regex capture draws each
group's mean and band (its pixels in the group's colour) with a legend listing the group's runs; light and dark
screenshots (test-artifacts/ui/groups-*.png)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Literal

import numpy as np
import pytest
import tensorboardX
from playwright.sync_api import Browser, Page

from tests import loopback
from tests.browser.ui import ARTIFACTS, ui_page
from tests.browser.visuals import coloured, pixels
from tests.logdirs import write_sweep_logdir
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("groups")
    logdir = write_sweep_logdir(root / "logs", seeds=4, steps=80)
    with trainboard_in_process(logdir, root) as server:
        yield server


def shown_runs(page: Page) -> str:
    return page.locator("#run-count").inner_text()


def problem_under_the_box(page: Page) -> str:
    return page.locator("#run-filter-problem").inner_text()


def test_the_filter_box_takes_the_language_and_regexes(server: Server, browser: Browser) -> None:
    with ui_page(browser, "groups-filter") as page:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(f"{server.url}/")
        page.wait_for_function("() => document.querySelector('#run-count')?.textContent.includes('of 25')")
        # Tag names with / and bare words need no quotes.
        page.fill("#run-filter", "lr < 0.01 and optimizer = sgd")
        page.wait_for_function("() => document.querySelector('#run-count').textContent.startsWith('4 ')")
        assert page.locator("#run-filter-mode").inner_text() == "Filter on hparams & metrics"
        assert shown_runs(page) == "4 of 25 runs shown (4 matching)"
        # The runs table (the server's filter) keeps the same runs as the charts.
        page.wait_for_function(
            """names => JSON.stringify([...document.querySelectorAll('#runs-table .tbody .trow')]
                .sort((a, b) => a.dataset.index - b.dataset.index).map(row => row.dataset.run)) === names""",
            arg=json.dumps([f"sgd/lr0.001_seed{seed}" for seed in range(4)], separators=(",", ":")),
        )
        every = loopback.get(f"{server.url}/data/trainboard/runs").json()["runs"]
        threshold = sorted(run["metrics"]["val/acc"] for run in every if "val/acc" in run["metrics"])[10]
        quoted = {"filter": f"`val/acc` < {threshold!r}"}
        expected = loopback.get(f"{server.url}/data/trainboard/runs", params=quoted).json()["runs"]
        assert len(expected) == 10
        page.fill("#run-filter", f"val/acc < {threshold!r}")
        page.wait_for_function(f"() => document.querySelector('#run-count').textContent.startsWith('{len(expected)} ')")
        page.locator("article.card").first.wait_for()

        # Half-typed: the runs of the last good filter stay, the problem shows with its place.
        page.fill("#run-filter", "val/acc <")
        page.wait_for_function("() => document.querySelector('#run-filter-problem').dataset.position === '9'")
        assert (
            problem_under_the_box(page)
            == "val/acc <  at 9: expected a value (a number, a word, a quoted string, true or false), found the end"
        )
        assert shown_runs(page) == f"{len(expected)} of 25 runs shown ({len(expected)} matching)"
        assert page.locator("article.card").count() > 0
        # A regex is no filter: said so, never taken as a regex behind the user's back.
        page.fill("#run-filter", "seed[12]$")
        page.wait_for_function("() => document.querySelector('#run-filter-problem').dataset.position === '4'")
        assert "at 4: expected a field, a value, an operator or a parenthesis, found '['" in problem_under_the_box(page)
        assert page.locator("#run-filter-problem mark").inner_text() == "[12]$"
        assert page.locator("#run-filter-mode").get_attribute("data-mode") == "filter"
        assert shown_runs(page) == f"{len(expected)} of 25 runs shown ({len(expected)} matching)"

        # The regex mode is chosen, shown, and kept in the URL.
        assert page.locator("#run-regex").get_attribute("aria-pressed") == "false"
        page.click("#run-regex")
        assert page.locator("#run-regex").get_attribute("aria-pressed") == "true"
        assert page.locator("#run-filter-mode").inner_text() == "Regex on run names"
        assert shown_runs(page) == "12 of 25 runs shown (12 matching)"
        assert problem_under_the_box(page) == ""
        assert "runRegex=1" in page.url
        page.fill("#run-filter", "seed[12")
        assert "not a valid regular expression" in problem_under_the_box(page)
        assert shown_runs(page) == "12 of 25 runs shown (12 matching)"
        page.click("#run-regex")
        page.fill("#run-filter", "lr = 0.1")
        page.wait_for_function("() => document.querySelector('#run-count').textContent.startsWith('8 ')")


@pytest.mark.parametrize("width", [1024, 1280, 1920])
def test_the_placeholders_are_not_cut(server: Server, browser: Browser, width: int) -> None:
    with ui_page(browser, f"groups-placeholder-{width}") as page:
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{server.url}/")
        page.locator("#runs-table .tbody .trow").first.wait_for()
        for _ in range(2):  # the filter language's, then the regex mode's
            room, needed, placeholder = page.locator("#run-filter").evaluate(
                """input => {
                  const style = getComputedStyle(input);
                  const context = document.createElement("canvas").getContext("2d");
                  context.font = `${style.fontSize} ${style.fontFamily}`;
                  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
                  // A search box keeps room at its end for its clear button.
                  return [input.clientWidth - padding - 16, context.measureText(input.placeholder).width,
                          input.placeholder];
                }"""
            )
            assert needed <= room, f"{placeholder!r} needs {needed:.0f} px, has {room:.0f}"
            page.click("#run-regex")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_groups_draw_mean_and_band_with_a_legend(
    server: Server, browser: Browser, theme: Literal["light", "dark"]
) -> None:
    with ui_page(browser, f"groups-{theme}", color_scheme=theme) as page:
        page.goto(f"{server.url}/#tagFilter=%5Eacc%24")
        card = page.locator("article.card[data-tag='acc']")
        page.wait_for_function("() => document.querySelector(\"article.card[data-tag='acc']\")?.dataset.runs === '24'")
        page.select_option("#group-by", "regex")
        page.fill("#group-argument", r"^(\w+)/lr[\d.]+_seed")
        page.press("#group-argument", "Enter")
        page.wait_for_function("() => document.querySelector(\"article.card[data-tag='acc']\")?.dataset.groups === '2'")
        legend = card.locator(".group-legend li")
        assert legend.evaluate_all("items => items.map(item => item.dataset.group)") == ["adam", "sgd"]
        adam = legend.nth(0).inner_text()
        assert "mean ± std" in adam and "12 runs: adam/lr0.001_seed0, adam/lr0.001_seed1" in adam
        assert legend.nth(0).get_attribute("data-points") == "80"
        assert "baseline" not in legend.nth(1).inner_text()
        plot = card.locator(".group-chart .plot")
        image = pixels(plot)
        swatches = legend.locator(".swatch").evaluate_all(
            "items => items.map(item => getComputedStyle(item).backgroundColor)"
        )
        for swatch in swatches:
            red, green, blue = (int(part) for part in swatch[4:-1].split(","))
            # Where the groups meet, the later line covers the earlier: each still shows along tens of pixels.
            near = np.abs(image - np.array([red, green, blue])).sum(axis=2) < 40
            assert near.sum() > 30, f"the group's mean line in {swatch} is hardly drawn"
        # The band: faint pixels of the group's hue, well more than the lines alone paint.
        tinted = image.max(axis=2) - image.min(axis=2) > 20
        assert tinted.sum() > 3 * coloured(image).sum() > 1000
        page.screenshot(path=str(ARTIFACTS / f"groups-card-{theme}.png"))

        # Min-max bands and a filter together: the groups follow the shown runs.
        page.select_option("#group-band", "minmax")
        page.fill("#run-filter", "lr = 0.1")
        page.wait_for_function("() => document.querySelector('#run-filter-mode').dataset.mode === 'filter'")
        page.wait_for_function(
            "() => document.querySelector(\"article.card[data-tag='acc'] .group-legend li\")"
            "?.textContent.includes('4 runs')"
        )
        assert "mean, min–max" in legend.nth(0).inner_text()
        # Back to runs: the runs' chart returns.
        page.select_option("#group-by", "")
        page.wait_for_function("() => !document.querySelector(\"article.card[data-tag='acc'] .group-chart\")")
        card.locator(".chart canvas").first.wait_for(state="visible")
        assert card.get_attribute("data-groups") is None


def test_a_group_chart_of_small_values_writes_its_ticks_apart(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> None:
    """Values about 1e-4 (an update ratio): the groups' chart writes its y ticks as the runs' chart does, each its own
    number, not "0" four times."""
    root = tmp_path_factory.mktemp("small-groups")
    for run in ("a/seed0", "a/seed1", "b/seed0"):
        with tensorboardX.SummaryWriter(str(root / "logs" / run)) as writer:
            for step in range(50):
                writer.add_scalar("update_ratio", 1e-4 * (1 + step / 50) * (2 if run.startswith("b") else 1), step)
    with trainboard_in_process(root / "logs", root) as server, ui_page(browser, "groups-small-values") as page:
        page.goto(f"{server.url}/#groupBy=regex:%5E(%5Cw)%2F")
        plot = page.locator("article.card[data-tag='update_ratio'] .group-chart .uplot")
        plot.wait_for()
        page.wait_for_function("plot => plot.dataset.yTicks", arg=plot.element_handle())
        ticks = (plot.get_attribute("data-y-ticks") or "").split(" ")
        assert len(ticks) >= 3 and len(set(ticks)) == len(ticks), ticks
        assert sorted(float(tick) for tick in ticks) == [float(tick) for tick in ticks]
