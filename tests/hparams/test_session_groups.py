"""session_groups: generated ListSessionGroupsRequests, answered by trainboard exactly as by TensorBoard 2.21."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hparams.conftest import Served
from tests.hparams.requests import STATUSES, assert_same, get, post, session_groups_request

pytestmark = pytest.mark.differential

PATH = "/data/plugin/hparams/session_groups"
EXAMPLES = settings(
    max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


def all_groups(served: Served) -> Any:
    request = {"allowedStatuses": STATUSES, "sliceSize": 1000}
    return assert_same(served, post(PATH, request)).body


def test_every_session_of_every_writer_is_read(writers: Served) -> None:
    body = all_groups(writers)
    sessions = [session["name"] for group in body["sessionGroups"] for session in group["sessions"]]
    assert any(name.startswith("torch/") for name in sessions)
    assert any(name.startswith("tbx/") for name in sessions)
    assert any(len(group["sessions"]) > 1 for group in body["sessionGroups"]), "no repeated sessions"
    assert {session["status"] for group in body["sessionGroups"] for session in group["sessions"]} == set(STATUSES)


@EXAMPLES
@given(data=st.data())
def test_generated_requests_writers(writers: Served, data: st.DataObject) -> None:
    request = data.draw(session_groups_request(writers.shape))
    call = data.draw(st.sampled_from([post(PATH, request), get(PATH, request)]))
    assert_same(writers, call)


@EXAMPLES
@given(data=st.data())
def test_generated_requests_inferred(inferred: Served, data: st.DataObject) -> None:
    assert_same(inferred, post(PATH, data.draw(session_groups_request(inferred.shape))))
