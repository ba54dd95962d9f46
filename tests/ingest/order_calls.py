"""Every call worth comparing between two servers of the same logdir: the differential suite's routes over every run
and tag, session_groups over every status set, aggregation and order, and TS-VIS's routes; and a comparison of JSON
key order, which clients show runs and tags in."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from tests.differential.calls import Call
from tests.differential.compare import Answer, answer_difference
from tests.differential.routes import ROUTES, Listing, session_groups_request
from tests.differential.test_routes import without_ignored_keys

STATUSES = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]
AGGREGATIONS = ["AGGREGATION_AVG", "AGGREGATION_MEDIAN", "AGGREGATION_MIN", "AGGREGATION_MAX"]
LOSS = {"group": "", "tag": "loss"}


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
        try:
            calls = route.calls(listing)
        except (KeyError, httpx.HTTPStatusError):
            calls = []  # a logdir without the plugin's data: its listing lacks what the calls are made from
        yield route.name, calls, route.resolve
    yield "hparams/session_groups, every status, aggregation and order", session_groups_calls(listing), None
    yield "TS-VIS", tsvis_calls(client), None


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


def differences(reference: httpx.Client, other: httpx.Client, covering: bool = True) -> tuple[int, list[str]]:
    """How many calls `reference` answered (each must be a 200), and every call `other` answers otherwise (content
    or JSON key order; what differs between stores by design, as in the differential suite, left out). With
    `covering`, a route without calls is a problem: the logdir must cover every plugin."""
    count, problems = 0, []
    for route, calls, resolve in all_calls(reference):
        if covering and not calls:
            problems.append(f"{route}: no call (the logdir does not cover it)")
        for call in calls:
            expected = without_ignored_keys(call, call.exchange(reference, "", resolve))
            if expected.status != 200:
                problems.append(f"{call}: the reference answers {expected.status} {expected.body!r:.300}")
            count += 1
            actual = without_ignored_keys(call, call.exchange(other, "", resolve))
            found = answer_difference(expected, actual) or key_order_difference(expected.body, actual.body)
            if found:
                problems.append(f"{call}: {found}")
    return count, problems
