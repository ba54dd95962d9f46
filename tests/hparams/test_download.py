"""download_data as CSV, JSON and LaTeX: generated requests and column choices, answered as by TensorBoard 2.21."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential.calls import Call
from tests.hparams.conftest import Served
from tests.hparams.requests import STATUSES, assert_same, get, session_groups_request

pytestmark = pytest.mark.differential

PATH = "/data/plugin/hparams/download_data"
FORMATS = ["csv", "json", "latex"]


@pytest.mark.parametrize("response_format", FORMATS)
@pytest.mark.parametrize("logdir", ["writers", "inferred"])
def test_every_column_of_every_group(logdir: str, response_format: str, request: pytest.FixtureRequest) -> None:
    served: Served = request.getfixturevalue(logdir)
    query = (("format", response_format), ("columnsVisibility", json.dumps([True] * 20)))
    body = json.dumps({"allowedStatuses": STATUSES, "sliceSize": 1000})
    answer = assert_same(served, Call(PATH, query, body=body))
    assert answer.status == 200
    if response_format == "latex":
        assert b"\\begin{tabular}" in answer.body and b"NaN" in answer.body


@settings(max_examples=120, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_downloads(writers: Served, data: st.DataObject) -> None:
    request = data.draw(session_groups_request(writers.shape))
    response_format = data.draw(st.sampled_from(FORMATS))
    visible = data.draw(st.lists(st.booleans(), max_size=12))
    extra = (("format", response_format), ("columnsVisibility", json.dumps(visible)))
    assert_same(writers, get(PATH, request, *extra))
