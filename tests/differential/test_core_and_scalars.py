"""TensorBoard 2.21 and trainboard on the same logdir answer the core and scalars routes alike."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest

from tests.differential.compare import assert_same_answer
from tests.differential.differences import ENVIRONMENT_IGNORED_KEYS

pytestmark = pytest.mark.differential


@pytest.fixture
def clients(differential_clients: tuple[httpx.Client, httpx.Client]) -> tuple[httpx.Client, httpx.Client]:
    return differential_clients


def both(clients: tuple[httpx.Client, httpx.Client], path: str) -> tuple[httpx.Response, httpx.Response]:
    tb, ours = clients
    return tb.get(path), ours.get(path)


@pytest.mark.parametrize("prefix", ["", "/experiment/defaultExperimentId"])
@pytest.mark.parametrize(
    "route", ["/data/runs", "/data/logdir", "/data/plugins_listing", "/data/experiments", "/data/plugin/scalars/tags"]
)
def test_listing_routes(clients: tuple[httpx.Client, httpx.Client], prefix: str, route: str) -> None:
    assert_same_answer(*both(clients, prefix + route))


def test_environment(clients: tuple[httpx.Client, httpx.Client]) -> None:
    assert_same_answer(*both(clients, "/data/environment"), ignore_keys=ENVIRONMENT_IGNORED_KEYS)


def test_every_scalar_series_as_json_and_csv(clients: tuple[httpx.Client, httpx.Client]) -> None:
    tags = clients[0].get("/data/plugin/scalars/tags").json()
    assert sum(len(by_tag) for by_tag in tags.values()) >= 8
    for run, by_tag in tags.items():
        for tag in by_tag:
            query = urlencode({"run": run, "tag": tag})
            assert_same_answer(*both(clients, f"/data/plugin/scalars/scalars?{query}"))
            assert_same_answer(*both(clients, f"/data/plugin/scalars/scalars?{query}&format=csv"))


def test_scalars_multirun(clients: tuple[httpx.Client, httpx.Client]) -> None:
    tb, ours = clients
    form = {"tag": "loss", "runs": ["train", "eval/torch", "restarted", "old_version", "missing"]}
    assert_same_answer(
        tb.post("/data/plugin/scalars/scalars_multirun", data=form),
        ours.post("/data/plugin/scalars/scalars_multirun", data=form),
    )


@pytest.mark.parametrize(
    "query",
    ["run=nope&tag=loss", "run=train&tag=nope", "tag=loss", "run=train"],
)
def test_scalar_errors(clients: tuple[httpx.Client, httpx.Client], query: str) -> None:
    assert_same_answer(*both(clients, f"/data/plugin/scalars/scalars?{query}"))
