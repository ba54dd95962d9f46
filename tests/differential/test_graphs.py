"""TensorBoard 2.21 and trainboard serve graphs and run metadata alike (pbtxt, byte for byte)."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest

from tests.differential.compare import assert_same_answer

pytestmark = pytest.mark.differential

Clients = tuple[httpx.Client, httpx.Client]


def test_info(differential_clients: Clients) -> None:
    tb, ours = differential_clients
    assert_same_answer(tb.get("/data/plugin/graphs/info"), ours.get("/data/plugin/graphs/info"))


@pytest.mark.parametrize("limits", [{}, {"limit_attr_size": 20, "large_attrs_key": "_too_large_attrs"}])
def test_every_run_graph(differential_clients: Clients, limits: dict[str, object]) -> None:
    tb, ours = differential_clients
    info = tb.get("/data/plugin/graphs/info").json()
    runs = [run for run, item in info.items() if item["run_graph"]]
    assert runs
    for run in runs:
        path = f"/data/plugin/graphs/graph?{urlencode({'run': run, **limits})}"
        assert_same_answer(tb.get(path), ours.get(path))


def test_every_run_metadata(differential_clients: Clients) -> None:
    tb, ours = differential_clients
    info = tb.get("/data/plugin/graphs/info").json()
    pairs = [(run, tag) for run, item in info.items() for tag, flags in item["tags"].items() if flags["profile"]]
    assert pairs
    for run, tag in pairs:
        path = f"/data/plugin/graphs/run_metadata?{urlencode({'run': run, 'tag': tag})}"
        assert_same_answer(tb.get(path), ours.get(path))


def test_unknown_graph_is_404(differential_clients: Clients) -> None:
    tb, ours = differential_clients
    assert tb.get("/data/plugin/graphs/graph?run=nope").status_code == 404
    assert ours.get("/data/plugin/graphs/graph?run=nope").status_code == 404
