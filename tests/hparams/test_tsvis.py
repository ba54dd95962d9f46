"""TS-VIS hparams files (several sessions per file, metrics named by tag) served as TensorBoard 2.21 serves the same
sessions written in its own format (tests/tsvis/hparams.py says how they correspond)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hparams.conftest import Served
from tests.hparams.requests import STATUSES, assert_same, get, post, session_groups_request
from tests.hparams.test_experiment import same_inferred_experiment

pytestmark = pytest.mark.differential

EXAMPLES = settings(
    max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


def test_every_session_is_served(tsvis: Served) -> None:
    body = assert_same(
        tsvis, post("/data/plugin/hparams/session_groups", {"allowedStatuses": STATUSES, "sliceSize": 100})
    ).body
    names = [group["name"] for group in body["sessionGroups"]]
    assert body["totalSize"] == len(names) == 3 * 6 + 6 + 4 + 12, names
    assert "hp/hp2/mnist (2)" in names, "a repeated name in one file is a session of its own"
    with_metrics = [group for group in body["sessionGroups"] if group["metricValues"]]
    assert len(with_metrics) == 3 * 6, "every generated session has a value of a metric it names"


@pytest.mark.parametrize("request_json", [{}, {"includeMetrics": False}, {"hparamsLimit": 3}], ids=str)
def test_experiment_is_inferred(tsvis: Served, request_json: dict[str, object]) -> None:
    body = same_inferred_experiment(tsvis, request_json)
    if not request_json:
        assert {info["name"]["tag"] for info in body["metricInfos"]} == {"loss", "accuracy"}


@EXAMPLES
@given(data=st.data())
def test_generated_session_group_requests(tsvis: Served, data: st.DataObject) -> None:
    request = data.draw(session_groups_request(tsvis.shape))
    assert_same(tsvis, post("/data/plugin/hparams/session_groups", request))


@pytest.mark.parametrize("session", ["sweep_a/trial_0", "sweep_b/train/trial_2 (2)", "sweep_c/trial_1", "nothing"])
@pytest.mark.parametrize("tag", ["loss", "accuracy", "missing"])
def test_metric_evals(tsvis: Served, session: str, tag: str) -> None:
    request = {"sessionName": session, "metricName": {"group": "", "tag": tag}}
    assert_same(tsvis, post("/data/plugin/hparams/metric_evals", request))
    assert_same(tsvis, get("/data/plugin/hparams/metric_evals", request))


@pytest.mark.parametrize("response_format", ["csv", "json", "latex"])
def test_download(tsvis: Served, response_format: str) -> None:
    request = {"allowedStatuses": STATUSES, "sliceSize": 1000}
    assert_same(tsvis, get("/data/plugin/hparams/download_data", request, ("format", response_format)))
