"""Hypothesis strategies for the hparams API's requests over a logdir of known shape, and how to compare answers."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from tests.differential.calls import Call
from tests.differential.compare import Answer, answer_difference
from tests.hparams.conftest import Served
from tests.hparams.logdirs import OPTIMIZERS, Shape

STATUSES = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]
ORDERS = ["ORDER_UNSPECIFIED", "ORDER_ASC", "ORDER_DESC"]
AGGREGATIONS = ["AGGREGATION_AVG", "AGGREGATION_MEDIAN", "AGGREGATION_MIN", "AGGREGATION_MAX"]
REGEXPS = ["", "a", "^s", "m$", "ad|sg", "[a-m]+d", "_v2", "%", "label", "^label_1", ".", "A", r"\d", "o.*p", "(r|s)+"]
BOUNDS = [float("-inf"), -1.0, 0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 1.0, 2.0, 4.0, 1e9, float("inf")]
DISCRETE = [0.0, 0.25, 0.5, 1, 2, 3, 4, True, False, "adam", "sgd", "adagrad_v2", "label_3", "3.0", *OPTIMIZERS]


def number(value: float) -> float | str:
    """A float as proto JSON writes it: the infinities as strings."""
    return value if abs(value) != float("inf") else ("Infinity" if value > 0 else "-Infinity")


def filters(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    """A filter that suits a column of `kind` ("string", "bool", "number", "metric"), now and then one that does not."""
    regexp = st.builds(lambda pattern: {"filterRegexp": pattern}, st.sampled_from(REGEXPS))
    interval = st.builds(
        lambda low, high: {"filterInterval": {"minValue": number(low), "maxValue": number(high)}},
        st.sampled_from(BOUNDS),
        st.sampled_from(BOUNDS),
    )
    discrete = st.builds(lambda values: {"filterDiscrete": values}, st.lists(st.sampled_from(DISCRETE), max_size=4))
    suits = {"string": st.one_of(regexp, discrete), "bool": discrete, "number": st.one_of(interval, discrete)}
    nothing: st.SearchStrategy[dict[str, Any]] = st.just({})
    return st.one_of(nothing, nothing, nothing, suits.get(kind, interval), suits.get(kind, interval), regexp | discrete)


@st.composite
def column(draw: st.DrawFn, shape: Shape) -> dict[str, Any]:
    names: list[tuple[str, Any, str]] = [("hparam", name, kind) for name, kind in shape.hparams.items()]
    names += [("metric", metric, "metric") for metric in shape.metrics]
    unknown = [("hparam", "nope", "string"), ("metric", ("", "nope"), "metric")]
    which, name, kind = draw(st.one_of(st.sampled_from(names), st.sampled_from(names), st.sampled_from(unknown)))
    result: dict[str, Any] = {"hparam": name} if which == "hparam" else {"metric": {"group": name[0], "tag": name[1]}}
    result.update(draw(filters(kind)))
    if draw(st.booleans()):
        result["order"] = draw(st.sampled_from(ORDERS))
    for flag in ("missingValuesFirst", "includeInResult"):
        if draw(st.booleans()):
            result[flag] = draw(st.booleans())
    # Rarer: with several columns, excluding missing values soon leaves no group.
    if draw(st.integers(0, 3)) == 0:
        result["excludeMissingValues"] = draw(st.booleans())
    return result


@st.composite
def session_groups_request(draw: st.DrawFn, shape: Shape) -> dict[str, Any]:
    """A ListSessionGroupsRequest: any statuses, columns, aggregation and slice."""
    request: dict[str, Any] = {"experimentName": ""}
    every = st.just(STATUSES)
    request["allowedStatuses"] = draw(st.one_of(every, every, every, st.lists(st.sampled_from(STATUSES), max_size=4)))
    request["colParams"] = draw(st.lists(column(shape), max_size=5))
    if draw(st.booleans()):
        request["aggregationType"] = draw(st.sampled_from(AGGREGATIONS))
        # Mostly the metric every session reports: TensorBoard crashes on a group whose sessions all lack it.
        group, tag = draw(st.one_of(st.just(shape.metrics[0]), st.sampled_from(shape.metrics)))
        request["aggregationMetric"] = {"group": group, "tag": tag}
    request["startIndex"] = draw(st.one_of(st.just(0), st.integers(0, 5), st.integers(-3, 60)))
    request["sliceSize"] = draw(st.one_of(st.just(1000), st.just(1000), st.integers(0, 40)))
    if draw(st.booleans()):
        request["includeMetrics"] = draw(st.booleans())
    return request


def post(path: str, request: dict[str, Any]) -> Call:
    return Call(path, body=json.dumps(request))


def get(path: str, request: dict[str, Any], *extra: tuple[str, str]) -> Call:
    return Call(path, (("request", json.dumps(request)), *extra))


def assert_same(served: Served, call: Call) -> Answer:
    """trainboard answers as TensorBoard; where TensorBoard crashes (500) or answers an HTML error, trainboard answers
    a 4xx (the same status for HTML errors) in text/plain. Returns TensorBoard's answer."""
    expected, actual = call.exchange(served.tensorboard, ""), call.exchange(served.trainboard, "")
    if currently_in_test_context():
        event(f"TensorBoard answers {expected.status}")
        if expected.status == 200 and isinstance(expected.body, dict) and "sessionGroups" in expected.body:
            event("some session groups" if expected.body["sessionGroups"] else "no session groups")
            event("some groups in total" if expected.body["totalSize"] else "no groups in total")
    if expected.status == 500:
        assert 400 <= actual.status < 500 and actual.media_type == "text/plain", f"{call}: {actual}"
    elif expected.status >= 400 and expected.media_type == "text/html":
        assert (actual.status, actual.media_type) == (expected.status, "text/plain"), f"{call}: {actual}"
    else:
        difference = answer_difference(expected, actual)
        assert difference is None, f"{call}: {difference}"
    return expected
