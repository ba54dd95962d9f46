"""trainboard's own web UI, the hparams table's column filters, in Debian's Chromium on sessions written by
tensorboard's functions, torch and tensorboardX (string, boolean and numeric hparams): each filter typed into the
table keeps the session groups the HParams API keeps for the same filter."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests import loopback
from tests.browser.ui import ui_page
from tests.hparams.logdirs import write_writers_logdir
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("hparams-filters")
    write_writers_logdir(root / "logs", trials=12)
    with trainboard_in_process(root / "logs", root / "server") as served:
        yield served


def kept_by_api(server: Server, hparam: str, column_filter: dict[str, Any]) -> list[str]:
    request = {
        "experimentName": "",
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
        "colParams": [{"hparam": hparam, **column_filter}],
        "startIndex": 0,
        "sliceSize": 1000,
    }
    answer = loopback.post(f"{server.url}/data/plugin/hparams/session_groups", content=json.dumps(request))
    return sorted(group["name"] for group in answer.raise_for_status().json()["sessionGroups"])


@pytest.mark.parametrize(
    ("hparam", "typed", "column_filter"),
    [
        ("batch_norm", "true", {"filterDiscrete": [True]}),
        ("batch_norm", "^f", {"filterDiscrete": [False]}),
        ("lr", "..0.01", {"filterInterval": {"minValue": "-Infinity", "maxValue": 0.01}}),
        ("lr", "0.01..", {"filterInterval": {"minValue": 0.01, "maxValue": "Infinity"}}),
        ("optimizer", "^(adam|sgd)$", {"filterRegexp": "^(adam|sgd)$"}),
    ],
)
def test_a_typed_filter_keeps_what_the_api_keeps(
    server: Server, browser: Browser, hparam: str, typed: str, column_filter: dict[str, Any]
) -> None:
    everything = kept_by_api(server, hparam, {})
    expected = kept_by_api(server, hparam, column_filter)
    assert 0 < len(expected) < len(everything)
    with ui_page(browser, f"hparams-filter-{hparam}") as page:
        page.goto(f"{server.url}/#dashboard=hparams")
        rows = "() => [...document.querySelectorAll('#hparams-table tbody tr')].map(row => row.dataset.group).sort()"
        page.wait_for_function(f"count => ({rows})().length === count", arg=len(everything))
        field = page.locator(f"input.column-filter[data-column='h:{hparam}']")
        field.fill(typed)
        field.press("Enter")
        page.wait_for_function(f"expected => ({rows})().join('\\n') === expected.join('\\n')", arg=expected)
        assert page.locator("#hparams-count").inner_text().startswith(f"{len(expected)} of {len(expected)}")
