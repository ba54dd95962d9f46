"""No answer depends on the order in which ingest saw runs and files arrive (issue 13): stores of one logdir loaded
cold in parallel, run by run in shuffled orders (with and without a restart between passes) and file by file in a
shuffled order answer every TensorBoard, hparams and TS-VIS route alike, JSON object keys in the same order too (the
store's run ids follow ingest order; no answer may show it)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.differential.calls import Call
from tests.differential.compare import Answer, answer_difference
from tests.differential.routes import ROUTES, Listing, session_groups_request
from tests.differential.test_routes import without_ignored_keys
from tests.ingest.order_logdir import DIFFERING, write_order_logdir
from tests.ingest.order_stores import cold_load, files_one_at_a_time, runs_one_at_a_time, serving

REPORTED = 10
STATUSES = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]
AGGREGATIONS = ["AGGREGATION_AVG", "AGGREGATION_MEDIAN", "AGGREGATION_MIN", "AGGREGATION_MAX"]
LOSS = {"group": "", "tag": "loss"}


@dataclass(frozen=True, slots=True)
class Served:
    client: httpx.Client
    logdir: Path


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Served, Served]]]:
    """Copies of one logdir that arrived in different orders, each ingested as it arrived, with a cold parallel load
    of the same copy to compare it with (TensorBoard's projector lists runs in the order the filesystem lists their
    directories, which differs from copy to copy)."""
    root = tmp_path_factory.mktemp("ingest_order")
    source = write_order_logdir(root / "logs")
    arrivals: dict[str, Callable[[Path, Path], None]] = {
        "runs shuffled": lambda logdir, db: runs_one_at_a_time(source, logdir, db, seed=1, restart=False),
        "runs shuffled, a restart each pass": lambda logdir, db: runs_one_at_a_time(
            source, logdir, db, seed=2, restart=True
        ),
        "files shuffled": lambda logdir, db: files_one_at_a_time(source, logdir, db, seed=3),
    }
    with ExitStack() as stack:
        served = {}
        for index, (name, arrive) in enumerate(arrivals.items()):
            logdir = root / f"copy_{index}"
            arrive(logdir, root / f"copy_{index}.sqlite")
            cold_load(logdir, root / f"cold_{index}.sqlite")
            served[name] = tuple(
                Served(stack.enter_context(serving(logdir, root / f"{kind}_{index}.sqlite")), logdir)
                for kind in ("cold", "copy")
            )
        yield served  # type: ignore[misc]


def tsvis_calls(client: httpx.Client) -> list[Call]:
    """Every TS-VIS route over every run and tag that /api/getCategory lists, and every step of the media and
    embeddings."""
    calls = [Call("/api/init"), Call("/api/getCategory")]
    for run, components in client.get("/api/getCategory").json()["data"].items():
        if "hyperparm" in components:
            calls.append(Call("/api/hyperparm", (("run", run),)))
        for tag in components.get("graph", []):
            calls.append(Call("/api/graph", (("run", run), ("tag", tag))))
        kinds = [("scalar", tag) for tags in components.get("scalar", {}).values() for tag in tags]
        kinds += [
            (kind, tag)
            for group in ("media", "statistic")
            for kind, tags in components.get(group, {}).items()
            for tag in tags
        ]
        kinds += [("projector", tag) for tag in components.get("embedding", [])]
        for kind, tag in kinds:
            query = (("run", run), ("tag", tag))
            calls.append(Call(f"/api/{kind}", query))
            raw = {"image": "image_raw", "audio": "audio_raw", "projector": "projector_raw"}.get(kind)
            if raw:
                data = client.get(f"/api/{kind}", params=dict(query)).json()["data"][tag]
                steps = [point["step"] if isinstance(point, dict) else point for point in data]
                calls += [Call(f"/api/{raw}", (*query, ("step", str(step)))) for step in steps]
    return calls


def session_groups_calls(listing: Listing) -> list[Call]:
    """session_groups over every status set that changes a group's first session, every aggregation, and every
    column sorted either way."""
    base = session_groups_request(listing)
    columns = base["colParams"]
    requests = [
        {**base, "allowedStatuses": statuses}
        for statuses in ([*STATUSES], ["STATUS_RUNNING"], ["STATUS_FAILURE", "STATUS_RUNNING"])
    ]
    # Every session of these statuses reports the loss (TensorBoard refuses to aggregate a group that does not).
    ended = ["STATUS_FAILURE", "STATUS_RUNNING"]
    requests += [
        {**base, "allowedStatuses": ended, "aggregationType": kind, "aggregationMetric": LOSS} for kind in AGGREGATIONS
    ]
    for index, column in enumerate(columns):
        for order in ("ORDER_ASC", "ORDER_DESC"):
            sorted_by = [*columns[:index], {**column, "order": order}, *columns[index + 1 :]]
            requests.append({**base, "colParams": sorted_by})
    return [Call("/data/plugin/hparams/session_groups", body=json.dumps(request)) for request in requests]


def all_calls(client: httpx.Client) -> Iterator[tuple[str, list[Call], Callable[..., Any] | None]]:
    listing = Listing(client)
    for route in ROUTES:
        yield route.name, route.calls(listing), route.resolve
    yield "hparams/session_groups, every status, aggregation and order", session_groups_calls(listing), None
    yield "TS-VIS", tsvis_calls(client), None


def test_every_answer_is_independent_of_ingest_order(stores: dict[str, tuple[Served, Served]]) -> None:
    problems, count = [], 0
    for name, (cold, arrived) in stores.items():
        for route, calls, resolve in all_calls(cold.client):
            assert calls, f"the logdir must cover {route}"
            for call in calls:
                expected = without_ignored_keys(call, call.exchange(cold.client, "", resolve))
                assert expected.status == 200, f"{call}: {expected.status} {expected.body!r:.300}"
                count += 1
                actual = without_ignored_keys(call, call.exchange(arrived.client, "", resolve))
                found = answer_difference(expected, actual) or key_order_difference(expected.body, actual.body)
                if found:
                    problems.append(f"{name}: {call}: {found}")
    shown = "\n".join(problems[:REPORTED])
    assert not problems, f"{len(problems)} answers differ from a cold load's:\n{shown}"
    assert count > 3000


def test_a_group_takes_its_first_sessions_hparams_in_run_order(stores: dict[str, tuple[Served, Served]]) -> None:
    """TensorBoard gives a group the hparams of its first session of an allowed status in the logdir's run order:
    differ/a_first before a_first/nested, b_second and c_third, whatever order they were ingested in."""
    expected = {
        tuple(STATUSES): DIFFERING["a_first"][0],
        ("STATUS_UNKNOWN",): DIFFERING["a_first/nested"][0],
        ("STATUS_FAILURE", "STATUS_RUNNING"): DIFFERING["b_second"][0],
        ("STATUS_RUNNING",): DIFFERING["c_third"][0],
    }
    for name, both in stores.items():
        for served in both:
            for statuses, hparams in expected.items():
                request = {"allowedStatuses": list(statuses), "sliceSize": 1000}
                answer = served.client.post("/data/plugin/hparams/session_groups", json=request).json()
                groups = [group for group in answer["sessionGroups"] if group["name"] == "shared"]
                assert len(groups) == 1 and groups[0]["hparams"] == hparams, (name, statuses, groups)


def key_order_difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    """The first JSON object whose keys come in another order: clients list runs and tags in that order."""
    if isinstance(expected, Answer) and isinstance(actual, Answer):
        return key_order_difference(expected.body, actual.body, path)
    if isinstance(expected, dict) and isinstance(actual, dict):
        if list(expected) != list(actual):
            return f"{path}: keys in order {list(expected)[:8]} != {list(actual)[:8]}"
        pairs = [(f"{path}.{key}", expected[key], actual[key]) for key in expected]
    elif isinstance(expected, list) and isinstance(actual, list):
        pairs = [
            (f"{path}[{index}]", one, other) for index, (one, other) in enumerate(zip(expected, actual, strict=False))
        ]
    else:
        return None
    return next((found for where, one, other in pairs if (found := key_order_difference(one, other, where))), None)
