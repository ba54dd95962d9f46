"""trainboard's own web UI, its other dashboards (histograms, distributions, images, audio, text), in Debian's
Chromium on the full logdir (tensorboardX, torch and TensorBoard's own writers): each shows what the API serves."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page

from tests import loopback
from tests.browser.ui import as_number, hparams_experiment, session_groups, ui_page
from tests.servers import Server

pytestmark = pytest.mark.browser


def api(server: Server, path: str, **params: str) -> Any:
    return loopback.get(f"{server.url}/data/plugin/{path}", params=params).raise_for_status().json()


def filled_card(page: Page, run: str, tag: str) -> Locator:
    card = page.locator(f'article.card[data-run="{run}"][data-tag="{tag}"]')
    card.scroll_into_view_if_needed()
    page.wait_for_function(
        "([run, tag]) => [...document.querySelectorAll('article.card')].some(c => c.dataset.run === run &&"
        " c.dataset.tag === tag && c.dataset.filled)",
        arg=[run, tag],
    )
    return card


def slide_to(card: Locator, index: int) -> None:
    card.locator(".step-slider").fill(str(index))


def test_histograms_draw_every_served_step(full_trainboard: Server, browser: Browser) -> None:
    tags = api(full_trainboard, "histograms/tags")
    with ui_page(browser, "histograms") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=histograms")
        for run, by_tag in tags.items():
            for tag in by_tag:
                points = api(full_trainboard, "histograms/histograms", run=run, tag=tag)
                card = filled_card(page, run, tag)
                assert card.locator(".card-body").get_attribute("data-steps") == str(len(points))
                assert card.locator(".readout").inner_text() == (
                    f"{len(points)} steps, {points[0][1]} to {points[-1][1]}"
                )
        page.select_option("#histogram-mode", "overlay")
        assert "histogramMode=overlay" in page.url


# The alpha of a canvas's pixels at CSS-pixel spots: painted (above 0) or not. The axes draw lines at whole pixels
# plus a half.
PAINTED = """(canvas, spots) => {
  const scale = canvas.width / canvas.getBoundingClientRect().width;
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  return spots.map(([x, y]) => pixels[(Math.floor(y * scale) * canvas.width + Math.floor(x * scale)) * 4 + 3]);
}"""


def even_bins(buckets: list[list[float]], low: float, high: float, bins: int = 30) -> list[float]:
    """TensorBoard's even bins over [low, high], each bucket's count shared by how much of its width falls in each."""
    counts = [0.0] * bins
    width = (high - low) / bins

    def bin_of(x: float) -> int:
        return min(bins - 1, max(0, math.floor((x - low) / width)))

    for left, right, count in buckets:
        if not right > left:
            counts[bin_of(left)] += count
            continue
        for index in range(bin_of(left), bin_of(right) + 1):
            overlap = min(right, low + (index + 1) * width) - max(left, low + index * width)
            if overlap > 0:
                counts[index] += count * overlap / (right - left)
    return counts


def test_histogram_axes_and_hover_readout(full_trainboard: Server, browser: Browser) -> None:
    tags = api(full_trainboard, "histograms/tags")
    run = sorted(tags)[0]
    tag = sorted(tags[run])[0]
    points = api(full_trainboard, "histograms/histograms", run=run, tag=tag)
    steps = [point[1] for point in points]
    assert len(steps) > 2
    low = min(left for point in points for left, _, _ in point[2])
    high = max(right for point in points for _, right, _ in point[2])
    with ui_page(browser, "histogram-axes") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=histograms&runFilter=^{run}$")
        canvas = filled_card(page, run, tag).locator("canvas.histogram")
        left, top, right, bottom = json.loads(canvas.get_attribute("data-plot-box") or "null")
        # Value ticks below the plot, round values inside the served range, painted where they are said to be.
        values = json.loads(canvas.get_attribute("data-value-ticks") or "[]")
        assert len(values) > 2
        assert all(low <= value <= high for value, _ in values)
        places = [x for _, x in values]
        assert places == sorted(places) and all(left <= x <= right for x in places)
        for (value, x), (next_value, next_x) in zip(values, values[1:], strict=False):
            assert (next_x - x) / (next_value - value) == pytest.approx((right - left) / (high - low), rel=1e-6)
        # A step axis on the right: whole steps within the served ones, the first on top.
        step_ticks = json.loads(canvas.get_attribute("data-step-ticks") or "[]")
        assert len(step_ticks) >= 2
        assert all(steps[0] <= step <= steps[-1] and step == int(step) for step, _ in step_ticks)
        assert [y for _, y in step_ticks] == sorted(y for _, y in step_ticks)
        spots = [[round(x) + 0.5, bottom + 2] for _, x in values] + [[right + 6, round(y) + 0.5] for _, y in step_ticks]
        assert all(canvas.evaluate(PAINTED, spots))

        # Pointing near the first step's baseline, then the last's: the readout names that step, the even bin under
        # the pointer and its count, as shared out from the served buckets.
        readout = filled_card(page, run, tag).locator(".histogram-hover")
        box = canvas.bounding_box()
        assert box is not None
        for y, step_index in ((top + (bottom - top) / 2 + 1, 0), (bottom - 1, len(steps) - 1)):
            x = left + (right - left) * 0.45
            page.mouse.move(0, 0)
            page.wait_for_function("r => r.dataset.step === undefined", arg=readout.element_handle())
            page.mouse.move(box["x"] + x, box["y"] + y)
            page.wait_for_function("r => r.dataset.step !== undefined", arg=readout.element_handle())
            found = readout.evaluate("r => ({...r.dataset})")
            assert int(found["step"]) == steps[step_index]
            index = int(found["bin"])
            width = (high - low) / 30
            assert float(found["left"]) == pytest.approx(low + index * width)
            assert float(found["right"]) == pytest.approx(low + (index + 1) * width)
            assert float(found["left"]) <= low + (x - left) / (right - left) * (high - low) <= float(found["right"])
            expected = even_bins(points[step_index][2], low, high)[index]
            assert float(found["count"]) == pytest.approx(expected, rel=1e-9, abs=1e-9)
            assert readout.inner_text().startswith(f"step {steps[step_index]}: ")
            assert "count" in readout.inner_text()


def test_distributions_show_the_served_median(full_trainboard: Server, browser: Browser) -> None:
    run, tag = "train", "weights"
    points = api(full_trainboard, "distributions/distributions", run=run, tag=tag)
    median = points[-1][2][4][1]
    with ui_page(browser, "distributions") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=distributions&runFilter=^train$")
        card = filled_card(page, run, tag)
        label = card.locator(".plot").get_attribute("aria-label") or ""
        assert label.startswith(f"{tag} of {run}: median at the last step ")
        assert as_number(label.rsplit(" ", 1)[1]) == pytest.approx(median, rel=1e-5)
        assert card.locator(".card-body").get_attribute("data-steps") == str(len(points))


def test_images_step_slider_and_every_sample(full_trainboard: Server, browser: Browser) -> None:
    run, tag = ".", "tb/samples"
    samples = api(full_trainboard, "images/tags")[run][tag]["samples"]
    assert samples > 1
    served = [api(full_trainboard, "images/images", run=run, tag=tag, sample=str(i)) for i in range(samples)]
    with ui_page(browser, "images") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=images&runFilter=^\\.$")
        card = filled_card(page, run, tag)
        for index in (len(served[0]) - 1, 0):
            slide_to(card, index)
            step = served[0][index]["step"]
            assert card.locator(".step").inner_text() == f"step {step} ({index + 1} of {len(served[0])})"
            images = card.locator("img")
            assert images.count() == samples
            sources = images.evaluate_all("images => images.map(image => image.getAttribute('src'))")
            assert sources == [f"data/plugin/images/individualImage?{points[index]['query']}" for points in served]
            page.wait_for_function(
                "card => [...card.querySelectorAll('img')].every(image => image.complete && image.naturalWidth > 0)",
                arg=card.element_handle(),
            )


def test_audio_players_play_the_served_clips(full_trainboard: Server, browser: Browser) -> None:
    run, tag = ".", "tb/voices"
    samples = api(full_trainboard, "audio/tags")[run][tag]["samples"]
    served = [api(full_trainboard, "audio/audio", run=run, tag=tag, sample=str(i)) for i in range(samples)]
    with ui_page(browser, "audio") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=audio&runFilter=^\\.$")
        card = filled_card(page, run, tag)
        sources = card.locator("audio").evaluate_all("players => players.map(player => player.getAttribute('src'))")
        assert sources == [f"data/plugin/audio/individualAudio?{points[-1]['query']}" for points in served]
        clip = loopback.get(f"{full_trainboard.url}/{sources[0]}")
        assert clip.status_code == 200 and clip.headers["content-type"] == "audio/wav"


def test_text_is_rendered_markdown_without_scripts(full_trainboard: Server, browser: Browser) -> None:
    run, tag = "train", "notes/text_summary"
    served = api(full_trainboard, "text/text", run=run, tag=tag)
    with ui_page(browser, "text") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=text&runFilter=^train$")
        card = filled_card(page, run, tag)
        assert card.locator(".text-body").inner_text().strip() == f"step {served[-1]['step']}"
        slide_to(card, 0)
        body = card.locator(".text-body")
        cells = body.locator("table table td").all_inner_texts()
        assert cells == ["loss", "0.25", "acc", "0.9"]
        assert body.locator("strong").inner_text() == "bold"
        assert 'alert("not sanitised")' in body.inner_text()  # shown as text, escaped by the server
        assert page.locator("main script").count() == 0


def test_pr_curves_follow_the_step_slider(full_trainboard: Server, browser: Browser) -> None:
    run, tag = "train", "pr"
    points = api(full_trainboard, "pr_curves/pr_curves", run=run, tag=tag)[run]
    with ui_page(browser, "pr-curves") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=pr_curves&runFilter=^train$")
        page.wait_for_selector(f'article.pr-card[data-tag="{tag}"][data-filled]')
        row = page.locator(f'article.pr-card[data-tag="{tag}"] .pr-run-row[data-run="{run}"]')
        for index in (len(points) - 1, 0):
            row.locator(".step-slider").fill(str(index))
            point = points[index]
            assert row.get_attribute("data-step") == str(point["step"])
            readout = row.locator(".pr-readout").inner_text()
            precision, recall = (as_number(word.rstrip(",")) for word in readout.split()[1:4:2])
            assert precision == pytest.approx(point["precision"][0], rel=1e-5)
            assert recall == pytest.approx(point["recall"][0], rel=1e-5)


def test_hparams_table_sorts_and_filters_through_the_api(full_trainboard: Server, browser: Browser) -> None:
    experiment = hparams_experiment(full_trainboard.url)
    names = [info["name"] for info in experiment["hparamInfos"]]
    assert "lr" in names
    ascending = session_groups(full_trainboard.url, experiment, {"lr": {"order": "ORDER_ASC"}})
    descending = session_groups(full_trainboard.url, experiment, {"lr": {"order": "ORDER_DESC"}})
    small = session_groups(
        full_trainboard.url, experiment, {"lr": {"filterInterval": {"minValue": 0, "maxValue": 0.1}}}
    )
    with ui_page(browser, "hparams") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=hparams")
        table = page.locator("#hparams-table")
        table.locator("tbody tr").first.wait_for()

        def shown() -> list[str]:
            names: list[str] = table.locator("tbody tr").evaluate_all("rows => rows.map(row => row.dataset.group)")
            return names

        assert sorted(shown()) == sorted(group["name"] for group in ascending)
        lr = page.locator("button.sort[data-column='h:lr']")
        lr.click()
        page.wait_for_function("() => document.querySelector('th[aria-sort=\"ascending\"]')")
        page.wait_for_function(
            "names => [...document.querySelectorAll('#hparams-table tbody tr')].map(r => r.dataset.group).join() =="
            " names.join()",
            arg=[group["name"] for group in ascending],
        )
        lr.click()
        page.wait_for_function(
            "names => [...document.querySelectorAll('#hparams-table tbody tr')].map(r => r.dataset.group).join() =="
            " names.join()",
            arg=[group["name"] for group in descending],
        )
        cells = table.locator("tbody tr").first.locator("td").all_inner_texts()
        assert as_number(cells[1 + names.index("lr")]) == descending[0]["hparams"]["lr"]
        page.fill("input.column-filter[data-column='h:lr']", "0..0.1")
        page.press("input.column-filter[data-column='h:lr']", "Enter")
        page.wait_for_function(
            "count => document.querySelectorAll('#hparams-table tbody tr').length === count", arg=len(small)
        )
        assert sorted(shown()) == sorted(group["name"] for group in small)
        assert len(small) < len(ascending)


def test_hparams_parallel_coordinates_and_scatter_matrix(full_trainboard: Server, browser: Browser) -> None:
    experiment = hparams_experiment(full_trainboard.url)
    groups = session_groups(full_trainboard.url, experiment)
    hparams = [info["name"] for info in experiment["hparamInfos"]]
    metrics = [info["name"] for info in experiment["metricInfos"]]
    with ui_page(browser, "hparams-pictures") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=hparams")
        lines = page.locator("#hparams-parallel polyline.group-line")
        lines.first.wait_for(state="attached")
        shown = sorted(lines.evaluate_all("lines => lines.map(line => line.dataset.group)"))
        assert shown == sorted(group["name"] for group in groups)
        axes = page.locator("#hparams-parallel g.axis").evaluate_all("axes => axes.map(axis => axis.dataset.column)")
        assert len(axes) == len(hparams) + len(metrics)

        cells = page.locator("#hparams-matrix svg.scatter")
        assert cells.count() == len(hparams) * len(metrics)
        for index, metric in enumerate(metrics):
            cell = cells.nth(index * len(hparams) + hparams.index("lr"))
            having = [
                group
                for group in groups
                if "lr" in group["hparams"]
                and any(
                    value["name"] == metric and math.isfinite(float(value["value"])) for value in group["metricValues"]
                )
            ]
            assert cell.locator("circle").count() == len(having)

        # Brush the lr axis from its top to below its middle: the table keeps the groups the API's interval keeps.
        area = page.locator("#hparams-parallel g.axis[data-column='h:lr'] rect.brush-area").bounding_box()
        assert area is not None
        page.mouse.move(area["x"] + area["width"] / 2, area["y"] + 1)
        page.mouse.down()
        page.mouse.move(area["x"] + area["width"] / 2, area["y"] + area["height"] * 0.6, steps=5)
        page.mouse.up()
        page.wait_for_function("() => document.querySelector(\"input.column-filter[data-column='h:lr']\").value")
        interval = page.input_value("input.column-filter[data-column='h:lr']")
        low, high = (float(bound) for bound in interval.split(".."))
        kept = session_groups(
            full_trainboard.url, experiment, {"lr": {"filterInterval": {"minValue": low, "maxValue": high}}}
        )
        assert 0 < len(kept) < len(groups)
        assert all(low <= group["hparams"]["lr"] <= high for group in kept)
        page.wait_for_function(
            "names => [...document.querySelectorAll('#hparams-table tbody tr')].map(r => r.dataset.group).sort().join()"
            " == names.join()",
            arg=sorted(group["name"] for group in kept),
        )
        assert page.locator("#hparams-parallel polyline.group-line").count() == len(kept)


def test_custom_scalars_follow_the_layout(full_trainboard: Server, browser: Browser) -> None:
    layout = api(full_trainboard, "custom_scalars/layout")
    titles = [chart["title"] for category in layout["category"] for chart in category["chart"]]
    run = "train"
    loss = api(full_trainboard, "custom_scalars/scalars", run=run, tag="loss")["tag_to_events"]["loss"]
    grouped = api(full_trainboard, "custom_scalars/scalars", run=run, tag="scalars/.*")["tag_to_events"]
    with ui_page(browser, "custom-scalars") as page:
        page.goto(f"{full_trainboard.url}/#dashboard=custom_scalars&runFilter=^train$&smoother=none")
        cards = page.locator("article.card[data-chart]")
        cards.first.wait_for()
        assert cards.evaluate_all("cards => cards.map(card => card.dataset.chart)") == titles
        losses = page.locator("article.card[data-chart='losses']")
        # The lines are loaded again when the run list arrives: those of the last drawing are the ones to check.
        page.wait_for_function(
            "lines => document.querySelector(\"article.card[data-chart='losses']\")?.dataset.lines === lines",
            arg=str(1 + len([tag for tag, rows in grouped.items() if rows])),
        )
        over = losses.locator(".u-over").bounding_box()
        assert over is not None
        page.mouse.move(over["x"] + 1, over["y"] + over["height"] / 2)
        tooltip = page.locator("#overlay .tooltip")
        tooltip.wait_for(state="visible")
        row = tooltip.locator("tr", has=page.locator("td.run", has_text=f"{run}: loss"))
        assert as_number(row.locator("td.value").inner_text()) == pytest.approx(loss[0][2], rel=1e-5)
        assert row.locator("td.step").inner_text() == str(loss[0][1])
