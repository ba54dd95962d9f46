"""trainboard alone: answers follow new sessions as they land, and hostile requests get a 4xx, never a 5xx."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from tests.hparams.conftest import Served
from tests.hparams.logdirs import LOSS, write_session
from tests.servers import trainboard_in_process

SESSION_GROUPS = "/data/plugin/hparams/session_groups"
ALL = {"allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"], "sliceSize": 100}


def session_names(client: httpx.Client) -> list[str]:
    body = client.post(SESSION_GROUPS, content=json.dumps(ALL)).raise_for_status().json()
    return [session["name"] for group in body["sessionGroups"] for session in group["sessions"]]


def test_a_new_session_appears_once_ingested(tmp_path: Path) -> None:
    """Answers are remembered between requests, but never past the arrival of new data."""
    logdir = tmp_path / "logs"
    write_session(logdir / "first", {"lr": 0.1}, trial_id="first", status="STATUS_SUCCESS", metrics={LOSS: [1.0]})
    with (
        trainboard_in_process(logdir, tmp_path / "server", "--reload_interval=0.2") as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        assert session_names(client) == ["first"]
        assert session_names(client) == ["first"]
        write_session(logdir / "second", {"lr": 0.2}, trial_id="second", status=None, metrics={LOSS: [2.0, 0.5]})
        deadline = time.monotonic() + 30
        while session_names(client) != ["first", "second"]:
            assert time.monotonic() < deadline, f"the new session never appeared: {session_names(client)}"
            time.sleep(0.2)
        groups = client.post(SESSION_GROUPS, content=json.dumps(ALL)).json()["sessionGroups"]
        assert groups[1]["metricValues"][0]["value"] == 0.5, "the last value of the new session's metric"


HOSTILE_BODIES = [
    "x" * (2 << 20),
    "[" * 100_000 + "]" * 100_000,
    json.dumps({"colParams": [{"hparam": "optimizer", "filterDiscrete": [[[[[[[[[[]]]]]]]]]]}]}),
    json.dumps({"colParams": [{"hparam": "optimizer", "filterRegexp": "(x+x+)+y" * 50}], **ALL}),
    json.dumps({"colParams": [{"hparam": "optimizer", "filterRegexp": "(a)\\1"}], **ALL}),
    json.dumps({"startIndex": 2**31, "sliceSize": 1}),
    json.dumps({"sliceSize": -(2**31), **{k: v for k, v in ALL.items() if k != "sliceSize"}}),
    "\x00",
    "",
]


@pytest.mark.parametrize("body", HOSTILE_BODIES, ids=lambda body: repr(body[:40]))
@pytest.mark.parametrize("route", ["experiment", "session_groups", "metric_evals", "download_data"])
def test_hostile_bodies(writers: Served, route: str, body: str) -> None:
    started = time.monotonic()
    response = writers.trainboard.post(
        f"/data/plugin/hparams/{route}?format=csv&columnsVisibility=[true]", content=body
    )
    assert response.status_code < 500, f"{response.status_code}: {response.text[:300]}"
    assert time.monotonic() - started < 10
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("text/plain")
