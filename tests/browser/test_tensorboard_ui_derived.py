"""A derived metric through TensorBoard's own web UI (--ui tensorboard) in Debian's Chromium: once defined over
trainboard's HTTP API, its tag has a card in TensorBoard's scalars dashboard like a logged tag's, drawn from values
equal to pandas' over the logdir as TensorBoard's own event reader reads it."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tensorboardX
from playwright.sync_api import Browser, Response
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from tests import loopback
from tests.browser.ui import ARTIFACTS
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
RUNS = ("sweep/a", "sweep/b")
NAME, EXPRESSION = "gap", "train/loss - val/loss"
# val/loss is logged every VAL_EVERY steps: gap has a point at those steps only (exact alignment).
STEPS, VAL_EVERY = 200, 10


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tb-derived") / "logs"
    for index, run in enumerate(RUNS):
        with tensorboardX.SummaryWriter(str(root / run)) as writer:
            for step in range(STEPS):
                writer.add_scalar("train/loss", math.exp(-step / 50) + 0.1 * index, step, walltime=1e9 + step)
                if step % VAL_EVERY == 0:
                    writer.add_scalar("val/loss", 1.1 * math.exp(-step / 60), step, walltime=1e9 + step)
    return root


@pytest.fixture
def server(logdir: Path, tmp_path: Path) -> Iterator[Server]:
    with trainboard_in_process(logdir, tmp_path, "--ui=tensorboard") as server:
        yield server


def expected_gap(logdir: Path, run: str) -> pd.Series:
    """train/loss - val/loss by step, from the run's event files as TensorBoard's EventAccumulator reads them."""
    events = EventAccumulator(str(logdir / run), size_guidance={"scalars": 0})
    events.Reload()
    tag = {name: pd.Series({e.step: e.value for e in events.Scalars(name)}) for name in ("train/loss", "val/loss")}
    return (tag["train/loss"] - tag["val/loss"]).dropna()


def test_a_derived_metric_has_a_card_in_tensorboards_scalars_dashboard(
    server: Server, logdir: Path, browser: Browser
) -> None:
    defined = loopback.post(f"{server.url}/data/trainboard/definitions", json={"name": NAME, "expression": EXPRESSION})
    assert defined.raise_for_status().json()["name"] == NAME
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    # What TensorBoard's UI was answered for the derived tag's card (a multipart form names the tag).
    answers: list[dict[str, list[list[float]]]] = []

    def note(response: Response) -> None:
        asked = response.request.post_data or ""
        if response.url.endswith("/data/plugin/scalars/scalars_multirun") and f'"tag"\r\n\r\n{NAME}\r\n' in asked:
            answers.append(response.json())

    page.on("response", note)
    try:
        page.goto(f"{server.url}/#scalars", timeout=TIMEOUT_MS)
        card = page.locator("tf-scalar-card", has=page.get_by_text(f"tag: {NAME}", exact=True))
        card.wait_for(timeout=TIMEOUT_MS)
        # A line per run: Plottable's SVG paths, each through every point (a command per point).
        points = "paths => paths.map(path => (path.getAttribute('d') || '').split(/[ML]/).length - 1)"
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while sum(n >= STEPS // VAL_EVERY for n in card.locator("path").evaluate_all(points)) < len(RUNS):
            assert time.monotonic() < deadline, card.locator("path").evaluate_all(points)
            time.sleep(0.2)
    finally:
        page.screenshot(path=str(ARTIFACTS / "tensorboard-derived.png"), full_page=True)
        page.context.close()
    assert answers and answers[-1].keys() == set(RUNS)
    for run in RUNS:
        expected = expected_gap(logdir, run)
        rows = answers[-1][run]
        assert [step for _, step, _ in rows] == expected.index.tolist()
        np.testing.assert_allclose([value for _, _, value in rows], expected.to_numpy(), rtol=1e-12)
        assert len(rows) == STEPS // VAL_EVERY
