"""The demo logdir has something for every dashboard: the real TensorBoard enables the same plugins on it as
trainboard, and trainboard's TS-VIS API lists every TS-VIS component."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from tests.servers import tensorboard_server, trainboard_server
from trainboard.demo import write_demo

PLUGINS = {
    "scalars",
    "custom_scalars",
    "images",
    "audio",
    "graphs",
    "distributions",
    "histograms",
    "text",
    "pr_curves",
    "hparams",
    "projector",
    "timeseries",
}
TSVIS_COMPONENTS = {"scalar", "media", "statistic", "graph", "hyperparm", "embedding", "exception", "custom"}


def enabled(client: httpx.Client) -> set[str]:
    listing = client.get("/data/plugins_listing").raise_for_status().json()
    return {name for name, plugin in listing.items() if plugin["enabled"]}


def test_the_demo_enables_every_dashboard_in_trainboard_and_in_tensorboard(tmp_path: Path) -> None:
    started = time.perf_counter()
    write_demo(tmp_path / "demo")
    assert time.perf_counter() - started < 5
    with (
        tensorboard_server(tmp_path / "demo", tmp_path) as reference,
        trainboard_server(tmp_path / "demo", tmp_path) as server,
        httpx.Client(base_url=reference.url, timeout=30) as tensorboard,
        httpx.Client(base_url=server.url, timeout=30) as ours,
    ):
        assert enabled(tensorboard) == enabled(ours) == PLUGINS
        # TensorBoard does not read TS-VIS's event files: the `tsvis` run is trainboard's alone.
        assert set(ours.get("/data/runs").json()) == {*tensorboard.get("/data/runs").json(), "tsvis"}
        sweep = [f"sweep/lr-{rate}/seed-{seed}" for rate in ("0.1", "0.03", "0.01") for seed in range(3)]
        assert set(tensorboard.get("/data/runs").json()) == {".", "eval", *sweep}
        for path in [f"/data/plugin/{plugin}/tags" for plugin in ("scalars", "images", "audio", "histograms", "text")]:
            assert tensorboard.get(path).json() == ours.get(path).json(), path
        for path in ("/data/plugin/pr_curves/tags", "/data/plugin/graphs/info"):
            assert tensorboard.get(path).json() == ours.get(path).json(), path
        request = {"allowedStatuses": ["STATUS_SUCCESS"], "startIndex": 0, "sliceSize": 100}
        answer = ours.post("/data/plugin/hparams/session_groups", json=request)
        assert answer.status_code == 200, answer.text
        groups = answer.json()["sessionGroups"]
        assert sorted((group["name"], len(group["sessions"])) for group in groups) == [
            ("lr-0.01", 3),
            ("lr-0.03", 3),
            ("lr-0.1", 3),
        ]
        layout = ours.get("/data/plugin/custom_scalars/layout").json()
        assert layout == tensorboard.get("/data/plugin/custom_scalars/layout").json()
        assert [category["title"] for category in layout["category"]] == ["Sweep"]
        assert ours.get("/data/plugin/projector/runs").json() == tensorboard.get("/data/plugin/projector/runs").json()
        categories = ours.get("/api/getCategory").json()["data"]
        assert set().union(*(run.keys() for run in categories.values())) == TSVIS_COMPONENTS
        assert categories["tsvis"]["exception"] == ["activations"]
        assert categories["eval"]["embedding"] == ["features"]
