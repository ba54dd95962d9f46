"""The runs table's group rows (issues 25 and 26) in Debian's Chromium on a real server over a generated logdir: twelve
runs in three lr groups with NaN and infinities in their series, and a derived metric. Each group row's mean ± std
(the population's) per column equals numpy's over the group's runs' summaries computed with pandas from every point
the store holds (non-finite values left out and counted, by the summaries' rules), and its 95 % interval of the mean
SciPy's (Student's t over the sample std); its colour is its band's in the
charts; it collapses and expands its runs; a header's click sorts the groups by the column's mean and the runs within
each group; its checkbox selects the group's runs."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Browser, Page
from scipy import stats  # type: ignore[import-untyped]

import trainboard
from tests import loopback
from tests.browser.ui import ui_page
from tests.hparams.logdirs import write_session
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

LRS = (0.1, 0.01, 0.001)
SEEDS = range(4)
STEPS = 40
# Where the series hold non-finite values: a NaN and an infinity inside a run's series (left out of its max and mean),
# a series that ends in +inf (its last is non-finite) or in NaN (its last is missing: a NaN is stored as no value).
INSIDE = "lr0.1_seed1"
ENDS_IN_INF = "lr0.01_seed2"
ENDS_IN_NAN = "lr0.001_seed3"
COLUMNS = ["lr", "last(val/acc)", "max(val/acc)", "mean(val/acc)", "max(gap)", "status"]
NUMBERS = COLUMNS[:-1]
GROUP_ROW = "#runs-table .tbody .group-row"
RUN_ROW = "#runs-table .tbody .trow[data-run]"


def write_logdir(root: Path) -> Path:
    generator = np.random.default_rng(7)
    for index, (lr, seed) in enumerate((lr, seed) for lr in LRS for seed in SEEDS):
        run = f"lr{lr}_seed{seed}"
        accuracy = 1 - np.exp(-np.arange(STEPS) * lr * 3) * 0.9 + generator.normal(0, 0.02, STEPS)
        loss = np.exp(-np.arange(STEPS) * lr * 2) + generator.normal(0, 0.01, STEPS)
        if run == INSIDE:
            accuracy[10], accuracy[20] = math.nan, math.inf
        if run == ENDS_IN_INF:
            accuracy[-1] = math.inf
        if run == ENDS_IN_NAN:
            accuracy[-1] = math.nan
        metrics = {
            ("", "val/acc"): accuracy.tolist(),
            ("", "train/loss"): loss.tolist(),
            ("", "val/loss"): (loss + 0.1 + generator.normal(0, 0.02, STEPS)).tolist(),
        }
        hparams: dict[str, object] = {"lr": lr, "seed": seed}
        write_session(root / run, hparams, trial_id=run, status="STATUS_SUCCESS", metrics=metrics, start_offset=index)
    return root


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = write_logdir(tmp_path_factory.mktemp("table-groups") / "logs")
    with trainboard_in_process(root, tmp_path_factory.mktemp("server")) as served:
        loopback.post(
            f"{served.url}/data/trainboard/definitions", json={"name": "gap", "expression": "val/loss - train/loss"}
        ).raise_for_status()
        yield served


def expected_summaries(server: Server) -> pd.DataFrame:
    """Each run's summary columns from every point the store holds, by the summaries' rules: max and mean over the
    finite values (none: missing); last the last point's value, a NaN stored as no value (missing), an infinity kept.
    The derived gap is val/loss - train/loss at the steps both have."""
    with trainboard.open(f"{server.url}/") as exp:
        points = exp.scalars(tags=["val/acc", "train/loss", "val/loss"])
    points = points.astype({"run": str, "tag": str}).sort_values(["run", "tag", "step"], kind="stable")
    series = {key: frame.set_index("step")["value"] for key, frame in points.groupby(["run", "tag"])}

    def finite(values: pd.Series) -> pd.Series:
        return values[np.isfinite(values)]

    rows = {}
    for run in points["run"].unique():
        accuracy = series[(run, "val/acc")]
        gap = (series[(run, "val/loss")] - series[(run, "train/loss")]).dropna()  # the steps both have
        last = accuracy.iloc[-1]
        rows[run] = {
            "lr": float(run.split("_")[0][2:]),
            "last(val/acc)": None if math.isnan(last) else last,
            "max(val/acc)": finite(accuracy).max(),
            "mean(val/acc)": finite(accuracy).mean(),
            "max(gap)": finite(gap).max(),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def group_of(run: str) -> str:
    return str(float(run.split("_")[0][2:]))


def shown(page: Page) -> list[str]:
    """The table's lines in order: `[group]` for a group's row, the run for a run's."""
    lines: list[str] = page.eval_on_selector_all(
        "#runs-table .tbody .trow",
        """rows => rows.sort((a, b) => a.dataset.index - b.dataset.index)
            .map(row => row.dataset.group !== undefined ? `[${row.dataset.group}]` : row.dataset.run)""",
    )
    return lines


def wait_for_lines(page: Page, lines: list[str]) -> None:
    page.wait_for_function(
        """lines => JSON.stringify([...document.querySelectorAll('#runs-table .tbody .trow')]
            .sort((a, b) => a.dataset.index - b.dataset.index)
            .map(row => row.dataset.group !== undefined ? `[${row.dataset.group}]` : row.dataset.run))
            === JSON.stringify(lines)""",
        arg=lines,
    )


def open_grouped(page: Page, server: Server, fragment: str = "") -> None:
    columns = "".join(f"&col={column}" for column in COLUMNS)
    page.goto(f"{server.url}/#dashboard=scalars&runsTable=1&groupBy=hparam:lr{columns}{fragment}")
    page.wait_for_function(f"() => document.querySelectorAll('{GROUP_ROW}').length === {len(LRS)}")


def test_group_rows_are_numpy_mean_and_std_of_the_store_points(server: Server, browser: Browser) -> None:
    summaries = expected_summaries(server)
    assert len(summaries) == len(LRS) * len(SEEDS)
    with ui_page(browser, "table-groups-values") as page:
        open_grouped(page, server)
        assert page.locator("#runs-table-count").inner_text().startswith("12 runs in 3 groups")
        for lr in LRS:
            name = str(lr)
            row = page.locator(f'{GROUP_ROW}[data-group="{name}"]')
            members = summaries[[group_of(run) == name for run in summaries.index]]
            assert row.get_attribute("data-runs") == str(len(members)) == "4"
            assert row.locator(".group-count").inner_text() == "4 runs"
            for column in NUMBERS:
                cell = row.locator(f'.td[data-column="{column}"]')
                values = members[column].dropna().to_numpy(dtype=float)
                kept = values[np.isfinite(values)]
                assert int(cell.get_attribute("data-finite") or -1) == len(kept), (name, column)
                assert int(cell.get_attribute("data-nonfinite") or -1) == len(values) - len(kept), (name, column)
                mean, std = (
                    float(cell.get_attribute("data-mean") or "nan"),
                    float(cell.get_attribute("data-std") or "nan"),
                )
                assert mean == pytest.approx(np.mean(kept), rel=1e-12, abs=1e-15), (name, column)
                assert std == pytest.approx(np.std(kept), rel=1e-9, abs=1e-12), (name, column)
                # The 95 % interval of the mean: Student's t with n - 1 degrees of freedom, the sample std (ddof=1).
                half = stats.t.ppf(0.975, len(kept) - 1) * np.std(kept, ddof=1) / math.sqrt(len(kept))
                low, high = (float(cell.get_attribute(f"data-{end}") or "nan") for end in ("low", "high"))
                assert low == pytest.approx(np.mean(kept) - half, rel=1e-9, abs=1e-15), (name, column)
                assert high == pytest.approx(np.mean(kept) + half, rel=1e-9, abs=1e-15), (name, column)
                title = cell.get_attribute("title") or ""
                assert "(population, n)" in title, title
                shown = re.search(r"95 % interval of the mean \[(\S+), (\S+)\]", title)
                assert shown is not None and (float(shown[1]), float(shown[2])) == (low, high), title
                assert f"Student's t, {len(kept) - 1} degrees of freedom, sample std" in title, title
            # A column of text says its values with their counts.
            assert row.locator('.td[data-column="status"]').inner_text() == "finished"
        # The non-finite values are said: lr=0.01's last(val/acc) has an infinity left out, lr=0.001's lacks a NaN.
        inf_cell = page.locator(f'{GROUP_ROW}[data-group="0.01"] .td[data-column="last(val/acc)"]')
        assert "1 NaN/inf" in inf_cell.inner_text()
        assert "1 non-finite left out" in (inf_cell.get_attribute("title") or "")
        nan_cell = page.locator(f'{GROUP_ROW}[data-group="0.001"] .td[data-column="last(val/acc)"]')
        assert "1 of 4 runs lack it" in (nan_cell.get_attribute("title") or "")
        # Each group's colour is its band's in the charts.
        page.wait_for_selector(".group-legend li[data-group]")
        for lr in LRS:
            swatch = page.locator(f'{GROUP_ROW}[data-group="{lr}"] .group-swatch')
            band = page.locator(f'.group-legend li[data-group="{lr}"] .swatch').first
            color = "el => getComputedStyle(el).backgroundColor"
            assert swatch.evaluate(color) == band.evaluate(color)


def test_groups_sort_by_the_mean_collapse_and_select(server: Server, browser: Browser) -> None:
    summaries = expected_summaries(server)
    with ui_page(browser, "table-groups-sort") as page:
        open_grouped(page, server)
        # No sort: the groups by name, each above its runs.
        names = sorted(str(lr) for lr in LRS)
        assert [line for line in shown(page) if line.startswith("[")] == [f"[{name}]" for name in names]
        header = page.locator('#runs-table .th[data-column="max(val/acc)"]')
        header.click()
        means = {
            str(lr): summaries[[group_of(r) == str(lr) for r in summaries.index]]["max(val/acc)"].mean() for lr in LRS
        }

        def expected(descending: bool) -> list[str]:
            lines = []
            for name in sorted(means, key=means.__getitem__, reverse=descending):
                runs = summaries[[group_of(run) == name for run in summaries.index]]["max(val/acc)"]
                lines += [f"[{name}]", *runs.sort_values(ascending=not descending).index]
            return lines

        wait_for_lines(page, expected(descending=False))
        header.click()
        wait_for_lines(page, expected(descending=True))

        # Collapsed, a group is its row alone; expanded again, its runs are back.
        first = expected(descending=True)[0][1:-1]
        page.locator(f'{GROUP_ROW}[data-group="{first}"] .group-toggle').click()
        wait_for_lines(
            page, [line for line in expected(descending=True) if line.startswith("[") or group_of(line) != first]
        )
        assert page.locator(f'{GROUP_ROW}[data-group="{first}"]').get_attribute("aria-expanded") == "false"
        page.locator(f'{GROUP_ROW}[data-group="{first}"] .group-toggle').click()
        wait_for_lines(page, expected(descending=True))

        # A group's checkbox takes its runs out of the selection and back.
        box = page.locator(f'{GROUP_ROW}[data-group="{first}"] input.select')
        assert box.is_checked()
        box.click()
        page.wait_for_function("() => document.querySelector('#runs-table-count').innerText.endsWith('8 selected')")
        assert not page.locator(f'{RUN_ROW}[data-run="lr{first}_seed0"] input.select').is_checked()
        box.click()
        page.wait_for_function("() => document.querySelector('#runs-table-count').innerText.endsWith('12 selected')")

        # Ungrouped, the table is its runs again.
        page.select_option("#group-by", "")
        page.wait_for_function(
            f"() => !document.querySelector('{GROUP_ROW}') && document.querySelectorAll('{RUN_ROW}').length === 12"
        )
