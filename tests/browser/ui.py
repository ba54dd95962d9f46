"""What the tests of trainboard's own web UI share: a logdir of scalar runs written by tensorboardX, Chromium pages that
fail the test on any console error, and screenshots kept under test-artifacts/ui/."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import tensorboardX
from playwright.sync_api import Browser, ConsoleMessage, FloatRect, Locator, Page, sync_playwright

from tests import loopback

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_MS = 30_000
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "ui"

# Three seeds of one experiment and a second experiment, each with these tags; one long run with a spike.
SEED_RUNS = ("lr_0.1/seed_0", "lr_0.1/seed_1", "lr_0.1/seed_2", "lr_0.01/seed_0")
SEED_TAGS = ("train/loss", "train/accuracy", "eval/loss", "lr")
SEED_STEPS = range(0, 200, 2)
LONG_RUN, LONG_TAG, LONG_STEPS = "long", "train/loss", 6000
SPIKE_STEP, SPIKE_VALUE = 3001, 500.0
# A run whose name is markup: it must show as text and never run.
HOSTILE_RUN = '<img src=x onerror="document.title=1">'


def seed_value(tag: str, run_index: int, step: int) -> float:
    rng = np.random.default_rng(run_index * 1000 + step)
    noise = float(rng.normal(0, 0.05))
    if tag == "lr":
        return 0.1 * 0.99**step
    if tag == "train/accuracy":
        return 1 - math.exp(-step / 50) + noise
    return math.exp(-step / 60) + run_index * 0.1 + noise


def write_scalar_logdir(root: Path) -> Path:
    for index, run in enumerate(SEED_RUNS):
        with tensorboardX.SummaryWriter(str(root / run)) as writer:
            for step in SEED_STEPS:
                for tag in SEED_TAGS:
                    writer.add_scalar(tag, seed_value(tag, index, step), step, walltime=1_700_000_000 + step * 3.0)
    with tensorboardX.SummaryWriter(str(root / LONG_RUN)) as writer:
        for step in range(LONG_STEPS):
            value = SPIKE_VALUE if step == SPIKE_STEP else 1 + math.sin(step / 300)
            writer.add_scalar(LONG_TAG, value, step, walltime=1_700_000_000 + step)
    with tensorboardX.SummaryWriter(str(root / HOSTILE_RUN)) as writer:
        for step in range(5):
            writer.add_scalar("train/loss", 1.0 / (step + 1), step)
    return root


@dataclass
class Console:
    """Console errors and uncaught exceptions of a page."""

    errors: list[str] = field(default_factory=list)
    # Parts of messages the test causes on purpose (a refused request it makes).
    expected: tuple[str, ...] = ()

    def message(self, message: ConsoleMessage) -> None:
        if any(part in message.text for part in self.expected):
            return
        # Chromium's software GL notes a performance cost when a screenshot reads a WebGL canvas back: not the page's.
        if message.type == "warning" and "GPU stall due to ReadPixels" in message.text:
            return
        # The index page preloads the scalars' tags for the default dashboard; a page opened on another dashboard
        # (#dashboard=hparams) that lives longer than a few seconds, as on a loaded machine, gets Chromium's hint.
        if message.type == "warning" and "was preloaded using link preload but not used" in message.text:
            return
        if message.type in ("error", "warning"):
            self.errors.append(f"{message.type}: {message.text}")

    def exception(self, error: Exception) -> None:
        self.errors.append(f"exception: {error}")


@contextmanager
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def ui_page(
    browser: Browser,
    name: str,
    *,
    color_scheme: Literal["light", "dark"] = "light",
    expected_errors: tuple[str, ...] = (),
) -> Iterator[Page]:
    """A fresh page; on leaving, its screenshot is saved as `name`.png and it must have logged no console error (but
    those containing one of `expected_errors`)."""
    context = browser.new_context(
        viewport={"width": 1400, "height": 1000}, accept_downloads=True, color_scheme=color_scheme
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    console = Console(expected=expected_errors)
    page.on("console", console.message)
    page.on("pageerror", console.exception)
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
        context.close()
    assert not console.errors, console.errors


def settled_box(page: Page, element: Locator) -> FloatRect:
    """The element's box, in view, once it stays put: cards above it may still be drawing and growing, and groups of
    tags may still be coming, which moves it (even out of view, after it was scrolled into view)."""
    box = None
    while True:
        element.scroll_into_view_if_needed()
        page.wait_for_timeout(150)
        again = element.bounding_box()
        if again == box and box is not None:
            return box
        box = again


def tb_ema(values: list[float], weight: float) -> list[float]:
    """TensorBoard's smoothing (its scalar card's), written from its description: debiased EMA, NaN passes."""
    finite = [value for value in values if math.isfinite(value)]
    if all(value == values[0] for value in values):
        return list(values)
    last, count, out = 0.0, 0, []
    for value in values:
        if not math.isfinite(value):
            out.append(value)
            continue
        last = last * weight + (1 - weight) * value
        count += 1
        out.append(last / (1 - weight**count))
    assert finite
    return out


def as_number(text: str) -> float:
    return float(text.replace("−", "-"))


def click_tab(page: Page, dashboard: str) -> None:
    """Shows `dashboard` by its tab, through the "More" menu when the tab does not fit in the header's row."""
    tab = page.locator(f"#tab-{dashboard}")
    if not tab.is_visible():
        page.click("#tabs-more")
    tab.click()


def card_menu_item(card: Locator, item: str) -> Locator:
    """The button of class `item` in the card's "⋯" menu (its downloads, reset zoom), the menu opened."""
    card.locator("button.more-actions").click()
    return card.page.locator(f"#overlay .menu button.{item}")


def hparams_experiment(url: str) -> dict[str, Any]:
    """The hparams plugin's experiment (its hparams and metrics) as the server at `url` answers it."""
    answer: dict[str, Any] = (
        loopback.post(f"{url}/data/plugin/hparams/experiment", content="{}").raise_for_status().json()
    )
    return answer


def session_groups(
    url: str, experiment: dict[str, Any], hparam_params: Mapping[str, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The session groups of every status, with every hparam and metric of `experiment` as a column; `hparam_params`
    adds to the columns of the hparams it names (an order, a filter)."""
    columns: list[dict[str, Any]] = [
        {"hparam": info["name"], "includeInResult": True, **(hparam_params or {}).get(info["name"], {})}
        for info in experiment["hparamInfos"]
    ]
    columns += [{"metric": info["name"], "includeInResult": True} for info in experiment["metricInfos"]]
    request = {
        "experimentName": "",
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
        "colParams": columns,
        "startIndex": 0,
        "sliceSize": 1000,
    }
    response = loopback.post(f"{url}/data/plugin/hparams/session_groups", content=json.dumps(request))
    groups: list[dict[str, Any]] = response.raise_for_status().json()["sessionGroups"]
    return groups
