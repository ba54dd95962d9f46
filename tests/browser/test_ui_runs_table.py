"""The runs table of trainboard's own web UI (issue 25, items 6 and 7) in Debian's Chromium, on eight runs with hparams
(lr, optimizer) and two scalar tags: sorting on the server by a header's click, the filter box driving the rows,
selection by checkbox, shift-range and "Only" driving the charts, hover linked both ways (a row highlights its run's
lines in every chart; a hovered line marks its row), differences among the selected runs, notes, labels and stars
edited in place and in bulk (kept by the server), columns picked and kept, and saved views (saved, opened by URL,
renamed, deleted)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests import loopback
from tests.browser.ui import ui_page
from tests.hparams.logdirs import write_session
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

# lr, optimizer and the last val/acc of each run: the sort's expected orders follow from these.
RUNS = {
    f"run{index}": (lr, optimizer, acc)
    for index, (lr, optimizer, acc) in enumerate(
        [
            (0.1, "adam", 0.70),
            (0.01, "adam", 0.90),
            (0.001, "sgd", 0.60),
            (0.1, "sgd", 0.80),
            (0.01, "sgd", 0.95),
            (0.001, "adam", 0.50),
            (0.03, "adam", 0.85),
            (0.003, "sgd", 0.65),
        ]
    )
}
TABLE = "#runs-table .tbody .trow"


def write_logdir(root: Path) -> Path:
    for index, (run, (lr, optimizer, acc)) in enumerate(RUNS.items()):
        metrics = {("", "val/acc"): [acc / 2, acc], ("", "train/loss"): [1.0, 1 - acc]}
        hparams = {"lr": lr, "optimizer": optimizer}
        write_session(root / run, hparams, trial_id=run, status="STATUS_SUCCESS", metrics=metrics, start_offset=index)
    return root


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = write_logdir(tmp_path_factory.mktemp("runs-table") / "logs")
    with trainboard_in_process(root, tmp_path_factory.mktemp("server")) as served:
        yield served


def shown_runs(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        TABLE, "rows => rows.sort((a, b) => a.dataset.index - b.dataset.index).map(row => row.dataset.run)"
    )


def wait_for_rows(page: Page, runs: list[str]) -> None:
    page.wait_for_function(
        f"""() => JSON.stringify([...document.querySelectorAll('{TABLE}')]
            .sort((a, b) => a.dataset.index - b.dataset.index).map(row => row.dataset.run)) === '{_json(runs)}'"""
    )


def _json(runs: list[str]) -> str:
    return "[" + ",".join(f'"{run}"' for run in runs) + "]"


def open_table(page: Page, server: Server, fragment: str = "") -> None:
    """The page with the columns asked: the table is the run picker without being asked for."""
    page.goto(f"{server.url}/#col=lr&col=optimizer&col=last(val/acc){fragment}")
    page.wait_for_selector(TABLE)


def test_a_header_click_sorts_on_the_server_and_the_filter_drives_the_rows(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-table-sort") as page:
        sorts: list[str] = []
        page.on(
            "request",
            lambda request: (
                sorts.append(request.url) if "runs_table" in request.url and "sort=" in request.url else None
            ),
        )
        open_table(page, server)
        wait_for_rows(page, sorted(RUNS))
        header = page.locator('#runs-table .th[data-column="last(val/acc)"]')
        header.click()
        by_acc = sorted(RUNS, key=lambda run: RUNS[run][2])
        wait_for_rows(page, by_acc)
        assert header.get_attribute("aria-sort") == "ascending"
        header.click()
        wait_for_rows(page, by_acc[::-1])
        assert header.get_attribute("aria-sort") == "descending"
        assert "sort=-last" in page.evaluate("location.hash")
        assert any("sort=-last%28val%2Facc%29" in url for url in sorts)  # the server sorted

        page.fill("#run-filter", "optimizer = sgd and max(val/acc) > 0.62")
        kept = [run for run in by_acc[::-1] if RUNS[run][1] == "sgd" and RUNS[run][2] > 0.62]
        wait_for_rows(page, kept)
        assert page.locator("#runs-table-count").inner_text().startswith(f"{len(kept)} runs")

        # A regex on names becomes the language's `name ~`.
        page.fill("#run-filter", "")
        page.click("#run-regex")
        page.fill("#run-filter", "run[12]$")
        wait_for_rows(page, ["run1", "run2"])  # still by val/acc, descending


def test_selection_by_checkbox_shift_range_and_only_drives_the_charts(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-table-selection") as page:
        open_table(page, server)
        wait_for_rows(page, sorted(RUNS))
        card = "article.card"
        page.wait_for_function(f"() => document.querySelector('{card}')?.dataset.runs === '{len(RUNS)}'")
        page.locator(f'{TABLE}[data-run="run3"]').hover()  # "Only" shows on the hovered row
        page.locator(f'{TABLE}[data-run="run3"] .only').click()
        page.wait_for_function(f"() => document.querySelector('{card}')?.dataset.runs === '1'")
        assert page.locator(f"{TABLE}.selected").evaluate_all("rows => rows.map(row => row.dataset.run)") == ["run3"]
        assert page.evaluate("location.hash").count("run=") == 1

        page.locator(f'{TABLE}[data-run="run1"] input.select').click()
        page.locator(f'{TABLE}[data-run="run6"] input.select').click(modifiers=["Shift"])
        expected = ["run1", "run2", "run3", "run4", "run5", "run6"]
        page.wait_for_function(f"() => document.querySelector('{card}')?.dataset.runs === '{len(expected)}'")
        assert page.locator(f"{TABLE}.selected").evaluate_all("rows => rows.map(row => row.dataset.run)") == expected

        page.locator(f'{TABLE}[data-run="run2"] input.select').click()  # off
        page.wait_for_function(f"() => document.querySelector('{card}')?.dataset.runs === '{len(expected) - 1}'")
        page.click("#bulk-hide")  # every selected run hidden
        page.wait_for_function("() => document.querySelectorAll('#runs-table .tbody .trow.selected').length === 0")


def test_hover_links_rows_and_lines_both_ways(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-table-hover") as page:
        open_table(page, server)
        page.wait_for_function(
            f"() => document.querySelectorAll('article.card[data-runs=\"{len(RUNS)}\"]').length >= 2"
        )
        page.locator(f'{TABLE}[data-run="run4"]').hover()
        # Every chart drawn highlights the hovered row's run.
        page.wait_for_function(
            """() => { const marked = [...document.querySelectorAll('[data-highlight]')];
                return marked.length >= 2 && marked.every(chart => chart.dataset.highlight === 'run4'); }"""
        )
        page.mouse.move(0, 0)
        page.wait_for_function("() => !document.querySelector('[data-highlight]')")

        # A line hovered in a chart marks its run's row: the top line at the last step is the best val/acc's.
        card = page.locator("article.card").filter(has_text="val/acc").first
        card.scroll_into_view_if_needed()
        plot = card.locator(".u-over").first
        box = plot.bounding_box()
        assert box is not None
        best = max(RUNS, key=lambda run: RUNS[run][2])
        page.mouse.move(box["x"] + box["width"] - 2, box["y"] + 2)
        page.wait_for_function(
            "(run) => [...document.querySelectorAll('#runs-table .trow.line-hovered')].map(r => r.dataset.run)"
            ".join() === run",
            arg=best,
        )


def test_differences_only_shows_the_columns_that_differ(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-table-differences") as page:
        open_table(page, server, "&run=run0&run=run6")
        wait_for_rows(page, sorted(RUNS))
        page.click("#show-differences")
        page.wait_for_selector("#differences .differences-table")
        columns = page.eval_on_selector_all("#differences tbody tr", "rows => rows.map(row => row.dataset.column)")
        # Both are adam runs with another lr and other values: optimizer is the same, so not shown.
        assert "optimizer" not in columns
        assert {"lr", "last(val/acc)", "last(train/loss)"} <= set(columns)
        heads = page.eval_on_selector_all("#differences thead th", "cells => cells.map(cell => cell.textContent)")
        assert heads == ["column", "run0", "run6"]
        lr_row = page.locator('#differences tr[data-column="lr"] td').all_inner_texts()
        assert lr_row == ["0.1", "0.03"]


def test_notes_labels_and_stars_are_edited_and_kept_by_the_server(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-table-notes") as page:
        open_table(page, server, "&run=run2&run=run5")
        wait_for_rows(page, sorted(RUNS))
        notes = page.locator(f'{TABLE}[data-run="run7"] .notes')
        notes.dblclick()
        page.fill("#runs-table textarea.edit", "diverged <script>x</script> at step 10")
        page.keyboard.press("Control+Enter")
        page.wait_for_function(
            "() => document.querySelector('#runs-table .trow[data-run=\"run7\"] .notes')?.textContent"
            " === 'diverged <script>x</script> at step 10'"
        )
        page.locator(f'{TABLE}[data-run="run7"] .labels').dblclick()
        page.fill("#runs-table input.edit", "baseline, bad")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => document.querySelectorAll('#runs-table .trow[data-run=\"run7\"] .label').length === 2"
        )
        page.locator(f'{TABLE}[data-run="run7"] .name').dblclick()
        page.fill("#runs-table input.edit", "the diverged one")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => document.querySelector('#runs-table .trow[data-run=\"run7\"] .shown-name')?.textContent"
            " === 'the diverged one'"
        )
        page.locator(f'{TABLE}[data-run="run7"] .star').click()
        page.wait_for_function(
            "() => document.querySelector('#runs-table .trow[data-run=\"run7\"] .star')?.ariaPressed === 'true'"
        )
        # Bulk: the two selected runs labelled and starred at once.
        page.fill("#bulk-label", "sweep-a")
        page.click("#bulk-add-label")
        page.click("#bulk-star")
        page.wait_for_function(
            "() => document.querySelector('#runs-table .trow[data-run=\"run5\"] .star')?.ariaPressed === 'true'"
        )
    kept = loopback.get(f"{server.url}/data/trainboard/run_metadata").json()["runs"]
    assert kept["run7"]["notes"] == "diverged <script>x</script> at step 10"
    assert sorted(kept["run7"]["labels"]) == ["bad", "baseline"]
    assert kept["run7"]["display_name"] == "the diverged one"
    assert kept["run7"]["starred"] is True
    for run in ("run2", "run5"):
        assert kept[run]["labels"] == ["sweep-a"] and kept[run]["starred"] is True

    # Kept across a reload: the table shows them again.
    with ui_page(browser, "runs-table-notes-reloaded") as page:
        open_table(page, server)
        page.wait_for_function(
            "() => document.querySelector('#runs-table .trow[data-run=\"run7\"] .shown-name')?.textContent"
            " === 'the diverged one'"
        )
    loopback.post(
        f"{server.url}/data/trainboard/run_metadata",
        json={
            "runs": list(RUNS),
            "display_name": "",
            "notes": "",
            "starred": False,
            "remove_labels": ["sweep-a", "bad", "baseline"],
        },
    ).raise_for_status()


def test_a_rows_colour_is_a_swatch_that_opens_the_one_colour_picker(server: Server, browser: Browser) -> None:
    """No row holds a colour input (each made a row several times dearer to build): its swatch opens the page's one
    picker, and the colour chosen is the run's, kept by the server."""
    with ui_page(browser, "runs-table-colour") as page:
        open_table(page, server)
        wait_for_rows(page, sorted(RUNS))
        assert page.locator("#runs-table input[type=color]").count() == 0
        page.locator(f'{TABLE}[data-run="run2"] button.run-swatch').click()
        page.locator("#run-color-picker").fill("#123456")
        page.wait_for_function(
            "() => getComputedStyle(document.querySelector('#runs-table .trow[data-run=\"run2\"] .run-swatch'))"
            ".backgroundColor === 'rgb(18, 52, 86)'"
        )
        # Only that run's colour changed.
        assert (
            page.locator(f'{TABLE}[data-run="run3"] .run-swatch').evaluate(
                "swatch => getComputedStyle(swatch).backgroundColor"
            )
            != "rgb(18, 52, 86)"
        )
    kept = loopback.get(f"{server.url}/data/trainboard/run_metadata").json()["runs"]
    assert kept["run2"]["color"] == "#123456"
    loopback.post(f"{server.url}/data/trainboard/run_metadata", json={"runs": ["run2"], "color": ""}).raise_for_status()


def test_columns_are_picked_reordered_and_kept_per_experiment(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-table-columns") as page:
        open_table(page, server)
        page.click("#pick-columns")
        page.fill("#add-column", "max(train/loss)")
        page.keyboard.press("Enter")
        page.wait_for_selector('#runs-table .th[data-column="max(train/loss)"]')
        page.click('#column-picker li[data-column="lr"] .hide-column')
        page.wait_for_function("() => !document.querySelector('#runs-table .th[data-column=\"lr\"]')")
        page.click('#column-picker li[data-column="max(train/loss)"] button[title="Left"]')
        heads = page.eval_on_selector_all("#runs-table .th[data-column]", "cells => cells.map(c => c.dataset.column)")
        assert heads[heads.index("name") + 1 :][:3] == ["optimizer", "max(train/loss)", "last(val/acc)"]
        # The rows asked again with the columns in their new order: run0's max(train/loss) is its first point, 1.
        page.wait_for_function(
            "() => document.querySelectorAll('#runs-table .trow[data-run=\"run0\"] .td')[2]?.textContent === '1'"
        )
        # Kept for the experiment: a page opened without columns in its URL shows them.
        page.goto(f"{server.url}/#runsTable=1")
        page.reload()
        page.wait_for_selector('#runs-table .th[data-column="max(train/loss)"]')
        page.evaluate("localStorage.clear()")


def test_saved_views_are_saved_opened_by_url_renamed_and_deleted(server: Server, browser: Browser) -> None:
    with ui_page(browser, "runs-table-views") as page:
        open_table(page, server, "&sort=-lr&run=run1&run=run4&smoothing=0.3")
        page.fill("#run-filter", "optimizer = adam")
        page.click("#views summary")
        page.fill("#view-name", "adam by lr")
        page.click("#save-view")
        page.wait_for_selector('#view-list li[data-view="adam by lr"]')
        views = loopback.get(f"{server.url}/data/trainboard/views").json()["views"]
        view_id = next(view["id"] for view in views if view["name"] == "adam by lr")

        # Opened by its URL from the names list: the filter, sort, selection, smoothing and the table come back.
        page.click("#runs-view")
        page.wait_for_selector("#run-list", state="visible")
        assert "runsTable=0" in page.url
        page.goto(f"{server.url}/#view={view_id}")
        page.wait_for_function("() => location.hash.includes('sort=-lr')")
        hash_ = page.evaluate("decodeURIComponent(location.hash)")
        for part in ("runFilter=optimizer+=+adam", "run=run1", "run=run4", "smoothing=0.3"):
            assert part in hash_.replace("%20", "+"), hash_
        assert "runsTable" not in hash_  # the default: the table
        page.wait_for_selector("#runs-table", state="visible")
        adam = sorted((run for run in RUNS if RUNS[run][1] == "adam"), key=lambda run: -RUNS[run][0])
        page.wait_for_function(
            "(n) => document.querySelector('#runs-table-count')?.textContent.startsWith(n + ' runs')", arg=len(adam)
        )

        if not page.locator("#views").evaluate("views => views.open"):
            page.click("#views summary")
        page.click('#view-list li[data-view="adam by lr"] .rename-view')
        page.fill("#view-list .rename-input", "adam sweep")
        page.keyboard.press("Enter")
        page.wait_for_selector('#view-list li[data-view="adam sweep"]')
        page.click('#view-list li[data-view="adam sweep"] .delete-view')
        page.wait_for_selector("#view-list li.muted")
    assert loopback.get(f"{server.url}/data/trainboard/views").json()["views"] == []
