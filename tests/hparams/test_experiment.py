"""experiment and metric_evals, from an experiment summary and inferred, answered as by TensorBoard 2.21."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.calls import Call
from tests.hparams.conftest import Served
from tests.hparams.requests import STATUSES, assert_same, get, post

pytestmark = pytest.mark.differential

EXPERIMENT = "/data/plugin/hparams/experiment"
REQUESTS = [
    {},
    {"experimentName": ""},
    {"includeMetrics": False},
    {"includeMetrics": True, "hparamsLimit": 2},
    {"hparamsLimit": 0},
    {"hparamsLimit": -1},
    {"hparams_limit": 100, "include_metrics": True},
]


def sorted_string_domains(body: Any) -> Any:
    """TensorBoard lists an inferred string domain in its set's order, which varies from process to process."""
    if not isinstance(body, dict):
        return body
    infos = [
        {**info, "domainDiscrete": sorted(info["domainDiscrete"])} if info.get("type") == "DATA_TYPE_STRING" else info
        for info in body.get("hparamInfos", [])
    ]
    return {**body, "hparamInfos": infos}


@pytest.mark.parametrize("request_json", REQUESTS, ids=str)
def test_experiment_from_the_summary(writers: Served, request_json: dict[str, Any]) -> None:
    assert_same(writers, post(EXPERIMENT, request_json))
    assert_same(writers, get(EXPERIMENT, request_json))


def test_the_summary_is_served(writers: Served) -> None:
    body = assert_same(writers, post(EXPERIMENT, {})).body
    assert [info["name"] for info in body["hparamInfos"]][:2] == ["batch_norm", "dropout"]
    assert {info["name"]["tag"] for info in body["metricInfos"]} == {"loss", "accuracy", "hparam/accuracy", "hparam/f1"}


def same_inferred_experiment(served: Served, request_json: dict[str, Any]) -> Any:
    """TensorBoard's answer, the same as trainboard's up to the order of string domains."""
    call = post(EXPERIMENT, request_json)
    expected, actual = call.exchange(served.tensorboard, ""), call.exchange(served.trainboard, "")
    assert (expected.status, expected.content_type) == (actual.status, actual.content_type)
    assert sorted_string_domains(actual.body) == sorted_string_domains(expected.body)
    return sorted_string_domains(expected.body)


@pytest.mark.parametrize("request_json", REQUESTS, ids=str)
def test_inferred_experiment(inferred: Served, request_json: dict[str, Any]) -> None:
    same_inferred_experiment(inferred, request_json)


def test_inference_finds_types_domains_and_metric_groups(inferred: Served) -> None:
    body = same_inferred_experiment(inferred, {"hparamsLimit": 0})
    infos = {info["name"]: info for info in body["hparamInfos"]}
    assert infos["optimizer"]["type"] == "DATA_TYPE_STRING"
    assert infos["batch_norm"]["domainDiscrete"] == [False, True]
    assert infos["lr"]["type"] == "DATA_TYPE_FLOAT64" and "domainInterval" in infos["lr"]
    assert infos["mixed"]["type"] == "DATA_TYPE_STRING" and "1.0" in infos["mixed"]["domainDiscrete"]
    groups = {(info["name"]["group"], info["name"]["tag"]) for info in body["metricInfos"]}
    assert {("", "loss"), ("validation", "accuracy"), ("deeper/eval", "accuracy"), ("", "nested_only")} <= groups
    assert not any(tag == "stray" for _, tag in groups), "a run that is no session has no metrics"


@pytest.mark.parametrize("logdir", ["writers", "inferred"])
def test_metric_evals_of_every_session_and_metric(logdir: str, request: pytest.FixtureRequest) -> None:
    served: Served = request.getfixturevalue(logdir)
    experiment = served.tensorboard.post(EXPERIMENT, content="{}").raise_for_status().json()
    groups = assert_same(
        served, post("/data/plugin/hparams/session_groups", {"allowedStatuses": STATUSES, "sliceSize": 1000})
    ).body["sessionGroups"]
    calls = [
        post(
            "/data/plugin/hparams/metric_evals",
            {"experimentName": "", "sessionName": session["name"], "metricName": info["name"]},
        )
        for group in groups
        for session in group["sessions"]
        for info in experiment["metricInfos"]
    ]
    statuses = [assert_same(served, call).status for call in calls]
    assert 200 in statuses and 404 in statuses, "both values and missing metrics"


BAD_CALLS = [
    Call(EXPERIMENT),
    Call(EXPERIMENT, body="{"),
    Call(EXPERIMENT, body='{"nope": 1}'),
    Call(EXPERIMENT, body='{"hparamsLimit": "x"}'),
    Call("/data/plugin/hparams/session_groups", body='{"colParams": [{}]}'),
    Call("/data/plugin/hparams/session_groups", body='{"colParams": [{"hparam": "lr", "order": 7}]}'),
    Call("/data/plugin/hparams/session_groups", body='{"colParams": [{"hparam": "lr", "filterRegexp": "("}]}'),
    Call(
        "/data/plugin/hparams/session_groups",
        body='{"allowedStatuses": [1], "colParams": [{"hparam": "optimizer", "filterRegexp": "(a+)+$"}]}',
    ),
    Call("/data/plugin/hparams/session_groups", body='{"allowedStatuses": [1], "aggregationType": 9}'),
    Call("/data/plugin/hparams/metric_evals", body='{"sessionName": "nope", "metricName": {"tag": "loss"}}'),
    Call("/data/plugin/hparams/metric_evals", body='{"sessionName": 5}'),
    Call("/data/plugin/hparams/download_data", (("format", "csv"),), body="{}"),
    Call("/data/plugin/hparams/download_data", (("format", "csv"), ("columnsVisibility", "x")), body="{}"),
    Call("/data/plugin/hparams/download_data", (("format", "xml"), ("columnsVisibility", "[]")), body="{}"),
]


@pytest.mark.parametrize("call", BAD_CALLS, ids=str)
def test_bad_requests(writers: Served, call: Call) -> None:
    """Malformed requests are 4xx text/plain answers where TensorBoard answers 400 in HTML or crashes."""
    assert_same(writers, call)


def test_a_request_that_is_no_json_object_is_refused(writers: Served) -> None:
    """TensorBoard's protobuf parser reads `[]` as an empty request and answers it; trainboard refuses it."""
    call = Call("/data/plugin/hparams/session_groups", body="[]")
    assert call.exchange(writers.tensorboard, "").status == 200
    refused = call.exchange(writers.trainboard, "")
    assert (refused.status, refused.media_type) == (400, "text/plain"), refused
