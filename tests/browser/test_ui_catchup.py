"""trainboard's own web UI where it caught up with TensorBoard 2.21, in Debian's Chromium on the demo logdir (images,
PR curves, hparams, an embedding with two metadata columns, text), two tensorboardX runs of one PR curve tag and a
torch `add_graph` run: each control changes what is drawn as TensorBoard's does, to the values the API serves."""

from __future__ import annotations

import io
import json
import math
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest
import tensorboardX
from PIL import Image
from playwright.sync_api import Browser, Page
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.compat.proto import graph_pb2

from tests import loopback
from tests.browser.ui import ui_page
from tests.logdirs import write_torch_run
from tests.servers import Server, trainboard_in_process
from trainboard.demo import write_demo

pytestmark = pytest.mark.browser

PR_RUNS = ("pr/a", "pr/b")
PR_STEPS = (0, 5, 10)
THEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("catchup") / "logs"
    write_demo(root)
    rng = np.random.default_rng(5)
    for run in PR_RUNS:
        with tensorboardX.SummaryWriter(str(root / run)) as writer:
            for step in PR_STEPS:
                labels = rng.integers(0, 2, size=60)
                predictions = np.clip(labels * 0.4 + rng.random(60) * 0.6, 0, 1)
                writer.add_pr_curve("pr", labels, predictions, step, num_thresholds=11)
    write_torch_run(root / "torch")
    return root


@pytest.fixture(scope="module")
def server(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with trainboard_in_process(logdir, tmp_path_factory.mktemp("trainboard")) as found:
        yield found


def get(server: Server, path: str, **params: str) -> Any:
    return loopback.get(f"{server.url}/{path}", params=params).raise_for_status().json()


def post(server: Server, path: str, body: dict[str, Any]) -> Any:
    return loopback.post(f"{server.url}/{path}", json=body).raise_for_status().json()


def mean_brightness(png: bytes) -> float:
    return float(np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.float64).mean())


@pytest.mark.parametrize("theme", THEMES)
def test_images_brightness_contrast_actual_size_and_enlarge(server: Server, browser: Browser, theme: str) -> None:
    run, tag = "sweep/lr-0.1/seed-0", "samples"
    with ui_page(browser, f"catchup-images-{theme}", color_scheme=theme) as page:  # type: ignore[arg-type]
        page.goto(f"{server.url}/#dashboard=images&runFilter=^sweep/lr-0\\.1/seed-0$")
        image = page.locator(f'article.card[data-run="{run}"][data-tag="{tag}"] img').first
        image.wait_for()
        page.wait_for_function("() => document.querySelector('.samples img').complete")
        plain = mean_brightness(image.screenshot())
        page.locator(".image-brightness").fill("2")
        brighter = mean_brightness(image.screenshot())
        assert brighter > plain + 10
        page.locator(".image-brightness").fill("1")
        page.locator(".image-contrast").fill("0")
        flat = np.asarray(Image.open(io.BytesIO(image.screenshot())).convert("L"))
        # No contrast: every pixel the same grey (the border aside).
        assert np.ptp(flat[2:-2, 2:-2]) <= 2
        page.locator(".image-reset").click()
        assert mean_brightness(image.screenshot()) == pytest.approx(plain, abs=1)

        natural = page.evaluate(
            "() => [document.querySelector('.samples img').naturalWidth, "
            "document.querySelector('.samples img').naturalHeight]"
        )
        served = Image.open(io.BytesIO(loopback.get(f"{server.url}/{image.get_attribute('src')}").content))
        assert tuple(natural) == served.size
        assert image.bounding_box()["width"] != natural[0]  # type: ignore[index]
        page.locator(".image-actual-size").check()
        box = image.bounding_box()
        assert box is not None and (round(box["width"]) - 2, round(box["height"]) - 2) == served.size

        image.click()
        enlarged = page.locator("dialog.image-dialog[open] img.enlarged")
        enlarged.wait_for()
        zoom = int(enlarged.get_attribute("data-zoom") or "0")
        assert zoom >= 1
        shown = enlarged.bounding_box()
        assert shown is not None and (round(shown["width"]), round(shown["height"])) == (
            served.size[0] * zoom,
            served.size[1] * zoom,
        )
        assert f"{served.size[0]} × {served.size[1]} px" in page.locator("dialog.image-dialog .caption").inner_text()
        page.screenshot(path=str(Path("test-artifacts/ui") / f"catchup-images-enlarged-{theme}.png"))
        page.keyboard.press("Escape")
        page.wait_for_function("() => !document.querySelector('dialog.image-dialog')")


@pytest.mark.parametrize("theme", THEMES)
def test_pr_curves_every_run_on_one_chart_with_a_slider_each(server: Server, browser: Browser, theme: str) -> None:
    served = {run: get(server, "data/plugin/pr_curves/pr_curves", run=run, tag="pr")[run] for run in PR_RUNS}
    with ui_page(browser, f"catchup-pr-curves-{theme}", color_scheme=theme) as page:  # type: ignore[arg-type]
        page.goto(f"{server.url}/#dashboard=pr_curves&runFilter=^pr/")
        page.wait_for_selector('article.pr-card[data-tag="pr"][data-filled]')
        assert page.locator("article.pr-card").count() == 1
        card = page.locator('article.pr-card[data-tag="pr"]')
        assert json.loads(card.locator(".plot").get_attribute("data-runs") or "") == list(PR_RUNS)

        def readout(run: str, index: int) -> str:
            point = served[run][index]
            return f"precision {point['precision'][0]:.6g}, recall {point['recall'][0]:.6g} at the lowest threshold"

        for run in PR_RUNS:
            row = card.locator(f'.pr-run-row[data-run="{run}"]')
            assert row.get_attribute("data-step") == str(PR_STEPS[-1])
            assert row.locator(".pr-readout").inner_text() == readout(run, -1)
        first = card.locator(f'.pr-run-row[data-run="{PR_RUNS[0]}"]')
        first.locator(".step-slider").fill("0")
        assert first.get_attribute("data-step") == str(PR_STEPS[0])
        assert first.locator(".pr-readout").inner_text() == readout(PR_RUNS[0], 0)
        # The other run's curve stays at its own step.
        assert card.locator(f'.pr-run-row[data-run="{PR_RUNS[1]}"]').get_attribute("data-step") == str(PR_STEPS[-1])


def metric_evals(server: Server, session: str, tag: str) -> list[list[float]]:
    body = {"experimentName": "", "sessionName": session, "metricName": {"group": "", "tag": tag}}
    return [[row[1], row[2]] for row in post(server, "data/plugin/hparams/metric_evals", body)]


@pytest.mark.parametrize("theme", THEMES)
def test_hparams_row_expands_into_its_metric_charts(server: Server, browser: Browser, theme: str) -> None:
    experiment = post(server, "data/plugin/hparams/experiment", {"experimentName": ""})
    metrics = [info["displayName"] or info["name"]["tag"] for info in experiment["metricInfos"]]
    with ui_page(browser, f"catchup-hparams-expanded-{theme}", color_scheme=theme) as page:  # type: ignore[arg-type]
        page.goto(f"{server.url}/#dashboard=hparams")
        row = page.locator('#hparams-table tbody tr[data-group="lr-0.1"]').first
        row.locator("button.expand").click()
        expanded = page.locator("#hparams-table tr.expanded-row")
        page.wait_for_selector("#hparams-table tr.expanded-row .expanded-metrics[data-filled]")
        charts = expanded.locator("figure.metric-chart")
        assert [charts.nth(i).get_attribute("data-metric") for i in range(charts.count())] == metrics
        for index, info in enumerate(experiment["metricInfos"]):
            chart = charts.nth(index)
            sessions = json.loads(chart.get_attribute("data-sessions") or "")
            assert sessions == [f"sweep/lr-0.1/seed-{seed}" for seed in range(3)]
            points = json.loads(chart.get_attribute("data-points") or "")
            assert points == [metric_evals(server, session, info["name"]["tag"]) for session in sessions]
            assert chart.locator("canvas").count() >= 1
        expanded.scroll_into_view_if_needed()
        row.locator("button.expand").click()
        assert page.locator("#hparams-table tr.expanded-row").count() == 0


def test_hparams_log_scale_ticks_at_one_two_and_five_times_powers_of_ten(server: Server, browser: Browser) -> None:
    with ui_page(browser, "catchup-hparams-log") as page:
        page.goto(f"{server.url}/#dashboard=hparams")
        axis = page.locator('#hparams-parallel g.axis[data-column="h:lr"]')
        axis.wait_for()
        assert axis.get_attribute("data-scale") == "linear"
        page.select_option('select.column-scale[data-column="h:lr"]', "log")
        axis = page.locator('#hparams-parallel g.axis[data-column="h:lr"]')
        assert axis.get_attribute("data-scale") == "log"
        ticks = axis.locator("text:not(.axis-title)")
        labels = [ticks.nth(i).text_content() for i in range(ticks.count())]
        assert labels == ["0.01", "0.02", "0.05", "0.1"]
        ys = [(ticks.nth(i).bounding_box() or {"y": math.nan})["y"] for i in range(ticks.count())]
        # 0.01 at the bottom, 0.1 at the top, each tick where log10 puts it.
        fractions = [(ys[0] - y) / (ys[0] - ys[-1]) for y in ys]
        assert fractions == pytest.approx([0, math.log10(2), math.log10(5), 1], abs=1e-3)
        # In the scatter plots, lr 0.03 sits where log10 puts it between 0.01 and 0.1, not where linear would.
        cell = page.locator('#hparams-matrix svg.scatter[data-hparam="h:lr"]').first
        xs = {
            dot.get_attribute("data-group"): float(dot.get_attribute("cx") or "")
            for dot in cell.locator("circle").all()
        }
        fraction = (xs["lr-0.03"] - xs["lr-0.01"]) / (xs["lr-0.1"] - xs["lr-0.01"])
        assert fraction == pytest.approx(math.log10(3), abs=1e-3)
        # A column with a value at or below zero offers no log scale.
        assert page.locator('select.column-scale[data-column="h:seed"] option[value="log"]').is_disabled()


@pytest.mark.parametrize("theme", THEMES)
def test_embeddings_colour_label_and_search_by_metadata(server: Server, browser: Browser, theme: str) -> None:
    rows = loopback.get(
        f"{server.url}/data/plugin/projector/metadata", params={"run": "eval", "name": "features:00000"}
    ).text.splitlines()
    header, cells = rows[0].split("\t"), [row.split("\t") for row in rows[1:]]
    classes = [row[0] for row in cells]
    with ui_page(browser, f"catchup-embeddings-{theme}", color_scheme=theme) as page:  # type: ignore[arg-type]
        page.goto(f"{server.url}/#dashboard=embeddings")
        page.wait_for_selector('.dashboard.embeddings[data-state="drawn"]')
        assert [o.inner_text() for o in page.locator("#embedding-colour option").all()] == header
        page.select_option("#embedding-colour", "class")
        entries = page.locator("#embedding-legend li")
        assert sorted(entries.nth(i).get_attribute("data-value") or "" for i in range(entries.count())) == sorted(
            set(classes)
        )
        counts = {
            entries.nth(i).get_attribute("data-value"): int(entries.nth(i).locator(".count").inner_text())
            for i in range(entries.count())
        }
        assert counts == {value: classes.count(value) for value in set(classes)}
        page.select_option("#embedding-colour", "index")
        assert page.locator('#embedding-legend [data-kind="gradient"]').count() == 1
        page.select_option("#embedding-colour", "class")

        page.select_option("#embedding-search-column", "class")
        page.fill("#embedding-search", "i")
        expected = sum("i" in value for value in classes)
        assert page.locator("#embedding-matches").get_attribute("data-matches") == str(expected)
        assert page.locator("#embedding-matches").inner_text() == f"{expected} of {len(classes)} match"
        page.check("#embedding-search-regex")
        page.fill("#embedding-search", "^(cat|dog)$")
        expected = sum(re.fullmatch("cat|dog", value) is not None for value in classes)
        assert page.locator("#embedding-matches").get_attribute("data-matches") == str(expected)
        page.select_option("#embedding-search-column", "index")
        page.fill("#embedding-search", "^1")
        assert page.locator("#embedding-matches").get_attribute("data-matches") == str(
            sum(row[1].startswith("1") for row in cells)
        )

        page.select_option("#embedding-label", "index")
        page.locator("canvas.embedding-plot").focus()
        page.keyboard.press("ArrowRight")
        picked = page.locator("#embedding-picked")
        index = int(picked.get_attribute("data-index") or "-1")
        assert picked.get_attribute("data-label") == cells[index][1]
        page.select_option("#embedding-label", "class")
        assert picked.get_attribute("data-label") == cells[index][0]


def output_shapes(logdir: Path) -> dict[str, list[str]]:
    """Each node's `_output_shapes` in the torch run's GraphDef, as TensorBoard writes them on edges: "1×4"."""
    for file in sorted((logdir / "torch").glob("events.out.tfevents.*")):
        for event in EventFileLoader(str(file)).Load():
            if event.HasField("graph_def"):
                graph = graph_pb2.GraphDef.FromString(event.graph_def)
                return {
                    node.name: [
                        "×".join(str(dim.size) for dim in shape.dim) for shape in node.attr["_output_shapes"].list.shape
                    ]
                    for node in graph.node
                    if "_output_shapes" in node.attr
                }
    raise AssertionError("no graph in the torch run")


def open_every_group(page: Page) -> None:
    while page.locator("#graph-canvas .node.group").count():
        page.locator("#graph-canvas .node.group").first.dispatch_event("click")


@pytest.mark.parametrize("theme", THEMES)
def test_graph_shapes_on_edges_and_export(server: Server, browser: Browser, logdir: Path, theme: str) -> None:
    shapes = output_shapes(logdir)
    with ui_page(browser, f"catchup-graph-{theme}", color_scheme=theme) as page:  # type: ignore[arg-type]
        page.goto(f"{server.url}/#dashboard=graphs&graphRun=torch&graphKind=c_graph")
        page.wait_for_selector("#graph-canvas .node")
        open_every_group(page)
        page.check("#graph-shapes")
        labels = page.locator("#graph-canvas .edge-shape")
        assert labels.count() > 0
        checked = 0
        for label in labels.all():
            source = label.get_attribute("data-source") or ""
            if source in shapes:
                assert label.text_content() == ", ".join(shapes[source])
                checked += 1
        assert checked == len({label.get_attribute("data-source") for label in labels.all()} & shapes.keys()) > 0
        drawn = {text.text_content() for text in page.locator("#graph-canvas .node text.label").all()}

        with page.expect_download() as download_info:
            page.click("#graph-export-svg")
        document = ElementTree.fromstring(Path(download_info.value.path()).read_text())
        texts = {"".join(item.itertext()) for item in document.iter("{http://www.w3.org/2000/svg}text")}
        assert drawn <= texts
        width, height = int(document.get("width") or "0"), int(document.get("height") or "0")
        assert width > 0 and height > 0

        with page.expect_download() as download_info:
            page.click("#graph-export-png")
        png = Path(download_info.value.path()).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        image = Image.open(io.BytesIO(png))
        assert image.size == (width, height)
        # Not blank: the boxes and labels are in it.
        assert len(np.unique(np.asarray(image.convert("RGB")).reshape(-1, 3), axis=0)) > 10
        image.save(Path("test-artifacts/ui") / f"catchup-graph-export-{theme}.png")


@pytest.mark.parametrize("theme", THEMES)
def test_text_markdown_toggle_shows_the_raw_text(server: Server, browser: Browser, theme: str) -> None:
    run = "sweep/lr-0.1/seed-0"
    raw = get(server, "data/plugin/text/text", run=run, tag="notes", markdown="false")[0]["text"]
    with ui_page(browser, f"catchup-text-{theme}", color_scheme=theme) as page:  # type: ignore[arg-type]
        page.goto(f"{server.url}/#dashboard=text&runFilter=^sweep/lr-0\\.1/seed-0$")
        card = page.locator(f'article.card[data-run="{run}"][data-tag="notes"]')
        card.locator(".text-body table").wait_for()
        page.uncheck("#text-markdown")
        page.wait_for_selector('article.card .card-body[data-markdown="false"] pre.raw-text')
        assert card.locator(".text-body table").count() == 0
        assert card.locator("pre.raw-text").text_content() == raw
        page.check("#text-markdown")
        card.locator(".text-body table").wait_for()
