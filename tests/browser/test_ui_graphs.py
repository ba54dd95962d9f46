"""trainboard's own web UI, its graphs dashboard, in Debian's Chromium: computation graphs of GraphDefs that torch's
add_graph, tensorboardX and TS-VIS's samples wrote, structure graphs (a TS-VIS structure graph file, a OneFlow one,
modules collapsed from a torch graph), and a torch graph of a few thousand nodes. What the page shows (nodes, edges,
groups, the side panel) is what /api/graph serves."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from playwright.sync_api import Browser, Page
from torch.utils.tensorboard import SummaryWriter

from tests import loopback
from tests.browser.ui import ui_page
from tests.servers import Server, trainboard_in_process
from tests.tsvis.logdirs import FIXTURES, write_graph_runs

pytestmark = pytest.mark.browser

# A module whose name is markup: it must show as text and never run.
HOSTILE = "<img src=x onerror=alert(1)>"
STAGES, BLOCKS = 20, 10


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.norm(self.linear(x))) + x


def write_large_run(path: Path) -> None:
    """STAGES x BLOCKS blocks in nested Sequentials (a few thousand nodes), and a module whose name is markup."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(*(torch.nn.Sequential(*(Block() for _ in range(BLOCKS))) for _ in range(STAGES)))
    model.add_module(HOSTILE, torch.nn.ReLU())
    with SummaryWriter(str(path)) as writer:
        writer.add_graph(model, torch.zeros(2, 8))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("graphs") / "logs"
    # Run "." holds TS-VIS's sample GraphDef, run1 a structure graph file; oneflow a OneFlow structure graph file.
    shutil.copytree(FIXTURES / "logs", root)
    shutil.copytree(FIXTURES / "hp" / "log", root / "oneflow")
    write_graph_runs(root)  # torch_graph (torch's add_graph), graphdef (scopes that are ops, control edges)
    write_large_run(root / "large")
    with trainboard_in_process(root, tmp_path_factory.mktemp("graphs-store")) as server:
        yield server


def served(server: Server, run: str, kind: str) -> list[Any]:
    body = loopback.get(f"{server.url}/api/graph", params={"run": run, "tag": kind}).raise_for_status().json()
    assert body["code"] == 200, body
    net: list[Any] = json.loads(body["data"])["net"]
    return net


def preorder(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [found for node in nodes for found in [node, *preorder(node["sub_net"])]]


def boxes(nodes: list[dict[str, Any]], opened: set[str]) -> list[dict[str, Any]]:
    """The nodes drawn as boxes when the `opened` groups are open."""
    found = []
    for node in nodes:
        if node["sub_net"] and node["uid"] in opened:
            found += boxes(node["sub_net"], opened)
        else:
            found.append(node)
    return found


def edges(shown: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The served edges between the boxes: the API gives an edge at every level of the scopes it crosses."""
    uids = {node["uid"] for node in shown}
    return sorted(
        (node["uid"], target["id"])
        for node in shown
        for target in node["targets"]
        if target["id"] in uids and target["id"] != node["uid"]
    )


def summary(net: list[dict[str, Any]], shown: int) -> str:
    nodes = preorder(net)
    ops = sum(1 for node in nodes if not node["sub_net"])
    return f"{len(nodes):,} nodes ({ops:,} ops, {len(nodes) - ops:,} groups), {shown:,} shown"


def open_graph(page: Page, server: Server, run: str, kind: str, net: list[dict[str, Any]]) -> None:
    page.goto(f"{server.url}/#dashboard=graphs&graphRun={run}&graphKind={kind}")
    wait_for_summary(page, summary(net, len(net)))


def wait_for_summary(page: Page, text: str) -> None:
    page.wait_for_function("text => document.querySelector('#graph-summary')?.textContent === text", arg=text)


def shown_nodes(page: Page) -> list[str]:
    uids: list[str] = page.locator("#graph-canvas .nodes > g").evaluate_all("nodes => nodes.map(n => n.dataset.uid)")
    return uids


def shown_edges(page: Page) -> list[tuple[str, str]]:
    pairs = page.locator("#graph-canvas path.edge").evaluate_all(
        "paths => paths.map(p => [p.dataset.source, p.dataset.target])"
    )
    return sorted((source, target) for source, target in pairs)


def open_groups(page: Page) -> list[str]:
    uids: list[str] = page.locator("#graph-canvas .cluster").evaluate_all("groups => groups.map(g => g.dataset.uid)")
    return uids


def node(page: Page, uid: str) -> Any:
    return page.locator(f'#graph-canvas .nodes > g[data-uid="{uid}"]')


def assert_panel_attributes(page: Page, attrs: dict[str, Any]) -> None:
    """The panel shows the served attributes: a string as served, anything else as JSON."""
    rows = page.locator("#graph-attrs tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.attr, r.querySelector('td').textContent])"
    )
    assert [key for key, _ in rows] == list(attrs)
    for key, text in rows:
        assert (text if isinstance(attrs[key], str) else json.loads(text)) == attrs[key], key


def panel_links(page: Page, which: str) -> list[tuple[str, str]]:
    items = page.locator(f"#graph-{which} li[data-uid]").evaluate_all(
        "items => items.map(i => [i.dataset.uid, i.querySelector('.shape')?.textContent ?? ''])"
    )
    return [(uid, shape) for uid, shape in items]


def test_computation_graph_groups_open_and_close(server: Server, browser: Browser) -> None:
    run = "graphdef"
    net = served(server, run, "c_graph")
    graphdef = loopback.get(f"{server.url}/data/plugin/graphs/graph", params={"run": run}).raise_for_status().text
    # Every NodeDef TensorBoard serves is an op here (an op that is also a scope has its stand-in "(name)" inside).
    assert len(re.findall(r"^node \{", graphdef, re.M)) == sum(1 for node in preorder(net) if not node["sub_net"])
    with ui_page(browser, "graphs-computation") as page:
        open_graph(page, server, run, "c_graph", net)
        assert shown_nodes(page) == [node["uid"] for node in net]
        assert shown_edges(page) == edges(net)
        top = {item["uid"] for item in net}
        controls = [target for item in net for target in item["targets"] if target["id"] in top - {item["uid"]}]
        assert page.locator("#graph-canvas path.edge.control").count() == sum(
            1 for target in controls if target["control"] == "true"
        )

        node(page, "layer").click()
        expected = boxes(net, {"layer"})
        wait_for_summary(page, summary(net, len(expected)))
        assert open_groups(page) == ["layer"]
        assert sorted(shown_nodes(page)) == sorted(item["uid"] for item in expected)
        assert shown_edges(page) == edges(expected)
        assert "layer/(layer)" in shown_nodes(page)

        # The open group's title closes it, by keyboard too.
        page.locator('#graph-canvas .cluster-title[data-uid="layer"]').focus()
        page.keyboard.press("Enter")
        wait_for_summary(page, summary(net, len(net)))
        assert open_groups(page) == []

        node(page, "split").click()
        split = next(item for item in preorder(net) if item["uid"] == "split")
        assert page.locator("#graph-panel .node-name").inner_text() == "split"
        assert page.locator("#graph-panel .node-op").inner_text() == split["op"]
        assert_panel_attributes(page, split["attrs"])
        assert page.locator("#graph-output-shapes li").all_inner_texts() == split["attrs"]["_output_shapes"]
        leaves = {item["uid"]: item for item in preorder(net) if not item["sub_net"]}
        outputs = [(target["id"], target["info"]) for target in split["targets"] if target["id"] in leaves]
        inputs = [
            (item["uid"], target["info"])
            for item in leaves.values()
            for target in item["targets"]
            if target["id"] == "split"
        ]
        assert panel_links(page, "outputs") == outputs
        assert panel_links(page, "inputs") == inputs
        assert "selected" in (node(page, "split").get_attribute("class") or "")

        # An input in the panel is revealed: its group opens.
        page.locator('#graph-inputs li[data-uid="layer/(layer)"] button').click()
        wait_for_summary(page, summary(net, len(boxes(net, {"layer"}))))
        assert "selected" in (node(page, "layer/(layer)").get_attribute("class") or "")
        assert page.locator("#graph-panel .node-name").inner_text() == "layer/(layer)"


def test_search_reveals_a_nested_node(server: Server, browser: Browser) -> None:
    run = "torch_graph"
    net = served(server, run, "c_graph")
    query = "running_var.5"
    matches = [item for item in preorder(net) if query in item["uid"].lower()]
    assert len(matches) == 1
    found = matches[0]
    ancestors = found["uid"].split("/")[:-1]
    scopes = ["/".join(ancestors[: depth + 1]) for depth in range(len(ancestors))]
    with ui_page(browser, "graphs-search") as page:
        open_graph(page, server, run, "c_graph", net)
        page.fill("#graph-search", "RUNNING_VAR")
        everywhere = [item["uid"] for item in preorder(net) if "running_var" in item["uid"].lower()]
        results = page.locator("#graph-results button.result")
        assert results.evaluate_all("buttons => buttons.map(b => b.dataset.uid)") == everywhere
        assert page.locator("#graph-results li.count").inner_text() == f"{len(everywhere)} matches"

        page.fill("#graph-search", query)
        page.press("#graph-search", "Enter")
        wait_for_summary(page, summary(net, len(boxes(net, set(scopes)))))
        assert open_groups(page) == scopes
        assert "selected" in (node(page, found["uid"]).get_attribute("class") or "")
        assert page.locator("#graph-panel .node-name").inner_text() == found["uid"]
        assert page.locator("#graph-panel .node-op").inner_text() == found["op"] == "prim::GetAttr"
        assert_panel_attributes(page, found["attrs"])
        assert node(page, found["uid"]).is_visible()
        assert page.evaluate("() => document.activeElement.dataset.uid") == found["uid"]

        page.click("#graph-collapse")
        wait_for_summary(page, summary(net, len(net)))


def test_keyboard_opens_groups_pans_and_zooms(server: Server, browser: Browser) -> None:
    run = "torch_graph"
    net = served(server, run, "c_graph")
    with ui_page(browser, "graphs-keyboard", color_scheme="dark") as page:
        open_graph(page, server, run, "c_graph", net)
        node(page, "Sequential").focus()
        page.keyboard.press("Enter")
        wait_for_summary(page, summary(net, len(boxes(net, {"Sequential"}))))
        assert open_groups(page) == ["Sequential"]
        canvas = page.locator("#graph-canvas")
        scale = float(canvas.get_attribute("data-scale") or 0)
        canvas.focus()
        page.keyboard.press("+")
        assert float(canvas.get_attribute("data-scale") or 0) == pytest.approx(scale * 1.25, rel=1e-2)
        view = canvas.get_attribute("viewBox")
        page.keyboard.press("ArrowRight")
        assert canvas.get_attribute("viewBox") != view
        page.keyboard.press("0")
        view = canvas.get_attribute("viewBox") or ""
        # Dragging pans and selects nothing (the group opened is still the one selected).
        assert page.locator("#graph-panel .node-name").inner_text() == "Sequential"
        box = canvas.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + 20, box["y"] + 20)
        page.mouse.down()
        page.mouse.move(box["x"] + 120, box["y"] + 80, steps=5)
        page.mouse.up()
        moved = [float(part) for part in (canvas.get_attribute("viewBox") or "").split()]
        before = [float(part) for part in view.split()]
        assert moved[0] < before[0] and moved[1] < before[1]
        assert page.locator("#graph-panel .node-name").inner_text() == "Sequential"


def test_structure_graphs_render(server: Server, browser: Browser) -> None:
    models = served(server, "run1", "s_graph")
    assert len(models) > 1
    largest = max(range(len(models)), key=lambda index: len(preorder(models[index])))
    with ui_page(browser, "graphs-structure") as page:
        open_graph(page, server, "run1", "s_graph", models[0])
        assert page.locator("#graph-kind option").all_inner_texts() == ["Structure"]
        assert page.locator("#graph-model option").count() == len(models)
        page.select_option("#graph-model", value=str(largest))
        net = models[largest]
        wait_for_summary(page, summary(net, len(net)))
        assert shown_nodes(page) == [item["uid"] for item in net]
        assert shown_edges(page) == edges(net)
        # The last layer is far below the first: the search brings it into view.
        layer = net[-1]
        assert [item for item in preorder(net) if layer["uid"].lower() in item["uid"].lower()] == [layer]
        page.fill("#graph-search", layer["uid"])
        page.press("#graph-search", "Enter")
        assert node(page, layer["uid"]).is_visible()
        assert page.locator("#graph-panel .node-op").inner_text() == layer["op"]
        assert_panel_attributes(page, layer["attrs"])

        # A torch run has no structure graph file: its modules, collapsed from its computation graph.
        (modules,) = served(server, "torch_graph", "s_graph")
        page.select_option("#graph-run", value="torch_graph")
        page.select_option("#graph-kind", value="s_graph")
        wait_for_summary(page, summary(modules, len(modules)))
        assert "graphKind=s_graph" in page.url
        node(page, "Sequential").click()
        wait_for_summary(page, summary(modules, len(boxes(modules, {"Sequential"}))))
        assert sorted(shown_nodes(page)) == sorted(item["uid"] for item in boxes(modules, {"Sequential"}))


def test_a_large_graph_stays_usable(server: Server, browser: Browser) -> None:
    run = "large"
    net = served(server, run, "c_graph")
    assert len(preorder(net)) > 3000
    deep = f"Sequential/Sequential[{STAGES - 1}]/Block[{BLOCKS - 1}]/LayerNorm[norm]"
    with ui_page(browser, "graphs-large") as page:
        start = time.monotonic()
        open_graph(page, server, run, "c_graph", net)
        node(page, "Sequential").click()
        wait_for_summary(page, summary(net, len(boxes(net, {"Sequential"}))))
        page.fill("#graph-search", deep)
        page.press("#graph-search", "Enter")
        scopes = ["Sequential", f"Sequential/Sequential[{STAGES - 1}]", deep.rsplit("/", 1)[0]]
        wait_for_summary(page, summary(net, len(boxes(net, set(scopes)))))
        # Generous for a loaded 2-core machine; about 3 s when it is idle.
        assert time.monotonic() - start < 30
        assert open_groups(page) == scopes
        assert page.locator("#graph-panel .node-name").inner_text() == deep

        # Markup in a name shows as text.
        hostile = next(item for item in preorder(net) if HOSTILE in item["uid"])
        page.fill("#graph-search", HOSTILE)
        page.press("#graph-search", "Enter")
        assert page.locator("#graph-panel .node-name").inner_text() == hostile["uid"]
        assert page.locator("main img").count() == 0


def test_structure_graph_files_alone_show_the_tab(tmp_path: Path, browser: Browser) -> None:
    """TensorBoard's listing sees no graph in a logdir of TS-VIS structure graph files alone; the tab shows still."""
    shutil.copytree(FIXTURES / "hp" / "log", tmp_path / "logs" / "oneflow")
    with trainboard_in_process(tmp_path / "logs", tmp_path / "store") as alone:
        listing = loopback.get(f"{alone.url}/data/plugins_listing").raise_for_status().json()
        assert listing["graphs"]["enabled"] is False
        models = served(alone, "oneflow", "s_graph")
        with ui_page(browser, "graphs-structure-alone") as page:
            page.goto(f"{alone.url}/")
            page.click("#tab-graphs")
            wait_for_summary(page, summary(models[0], len(models[0])))
            assert page.locator("#graph-run option").all_inner_texts() == ["oneflow"]
            assert shown_nodes(page) == [item["uid"] for item in models[0]]
