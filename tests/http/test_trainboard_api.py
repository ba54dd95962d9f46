"""trainboard's own routes on a real `trainboard --logdir` server (in the test process) over a torch sweep: the run
filter (answers equal to a Python evaluation of the filter over the values the route gives without one; errors as
400s with the position) and groups with bands; hostile input is a 4xx, never a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
import re2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.logdirs import write_sweep_logdir
from tests.servers import trainboard_in_process
from tests.store.test_run_filter import FILTERS, evaluate
from trainboard.store.run_filter import parse
from trainboard.store.run_values import RunValues

RUNS = "/data/trainboard/runs"
GROUPS = "/data/trainboard/groups/scalars"
GROUP_RUNS = "/data/trainboard/groups/runs"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    root = tmp_path_factory.mktemp("api")
    logdir = write_sweep_logdir(root / "logs", steps=60)
    with trainboard_in_process(logdir, root) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        yield client


def test_the_filter_route_answers_as_python_evaluates(client: httpx.Client) -> None:
    every = client.get(RUNS).raise_for_status().json()["runs"]
    assert len(every) == 19
    assert every[0]["run"] == "adam/lr0.001_seed0"  # walk order
    values = [RunValues(run["run"], run["hparams"], run["metrics"]) for run in every]
    for text in FILTERS:
        answer = client.get(RUNS, params={"filter": text}).raise_for_status().json()
        tree = parse(text, re2.compile)
        assert [run["run"] for run in answer["runs"]] == [v.run for v in values if evaluate(tree, v)], text
        assert answer["filter"] == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lr <", "at position 4: expected a value (a number, a word, a quoted string, true or false), found the end"),
        ("name ~ '(('", "at position 7: expected a valid regular expression"),
        ("(" * 100 + "a = 1" + ")" * 100, "expected at most 32 nested"),
        ("a = 1 or " * 600 + "a = 1", "longer than 4096 characters"),
        ("name ~ '" + "(a{1,500})" * 100 + "'", "over the bound of"),
        ("lr < 1 \x00", "NUL"),
    ],
)
def test_a_bad_filter_is_a_400_saying_where(client: httpx.Client, text: str, expected: str) -> None:
    for response in (
        client.get(RUNS, params={"filter": text}),
        client.get(GROUPS, params={"tag": "acc", "by": "dir:0", "filter": text}),
        client.post(GROUPS, data={"tag": "acc", "by": "dir:0", "filter": text}),
    ):
        assert response.status_code == 400, response.text
        assert expected in response.text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([*"ab_`'\"()~=!<>.-1e ", "and ", "or ", "not ", "name"]), max_size=30).map("".join))
def test_any_filter_text_is_an_answer_or_a_400(client: httpx.Client, text: str) -> None:
    response = client.get(RUNS, params={"filter": text})
    assert response.status_code in (200, 400), response.text


def test_groups_route_answers_columns(client: httpx.Client) -> None:
    params = {"tag": "acc", "by": "hparam:lr", "band": "minmax", "filter": 'optimizer = "adam"'}
    got = client.get(GROUPS, params=params).raise_for_status().json()
    posted = client.post(GROUPS, data=params).raise_for_status().json()
    assert got == posted
    assert [group["name"] for group in got["groups"]] == ["0.001", "0.01", "0.1"]
    group = got["groups"][2]
    assert group["runs"] == ["adam/lr0.1_seed0", "adam/lr0.1_seed1", "adam/lr0.1_seed2"]
    assert group["step"] == list(range(60))
    lows, highs = np.array(group["low"]), np.array(group["high"])
    assert np.all(lows <= np.array(group["mean"])) and np.all(np.array(group["mean"]) <= highs)
    assert np.all(highs - lows > 0)
    # Only the runs asked for.
    one = client.get(GROUPS, params={**params, "runs": "adam/lr0.1_seed1"}).raise_for_status().json()
    assert [g["runs"] for g in one["groups"]] == [["adam/lr0.1_seed1"]]
    assert one["groups"][0]["low"] == one["groups"][0]["high"] == one["groups"][0]["mean"]


@pytest.mark.parametrize(
    "params",
    [
        {"by": "dir:0"},
        {"tag": "acc"},
        {"tag": "acc", "by": "nothing"},
        {"tag": "acc", "by": "dir:99999"},
        {"tag": "acc", "by": "regex:(a+)+$(", "band": "std"},
        {"tag": "acc", "by": "dir:0", "band": "median"},
        {"tag": "acc", "by": "regex:" + "x" * 40_000},
    ],
)
def test_bad_group_parameters_are_400s(client: httpx.Client, params: dict[str, str]) -> None:
    assert client.get(GROUPS, params=params).status_code == 400
    assert client.post(GROUPS, data=params).status_code == 400


def test_an_unknown_tag_has_no_groups(client: httpx.Client) -> None:
    answer = client.get(GROUPS, params={"tag": "nope", "by": "dir:0"}).raise_for_status().json()
    assert answer["groups"] == []


def test_group_runs_are_the_chart_groups_of_every_run(client: httpx.Client) -> None:
    """The runs table's groups: every run the filter keeps, named and split as the chart's groups of a tag they all
    have. `hparam:acc` names a tag, not a hyperparameter: no run has it (the table's column `acc` would be the tag's
    last value)."""
    for by in ("hparam:lr", "hparam:optimizer", "regex:_(seed\\d)", "dir:0", "hparam:nothing", "hparam:acc"):
        params = {"by": by, "filter": "lr > 0.001"}
        members = client.get(GROUP_RUNS, params=params).raise_for_status().json()
        chart = client.get(GROUPS, params={**params, "tag": "acc"}).raise_for_status().json()
        assert members["by"] == by
        assert members["groups"] == [{"name": group["name"], "runs": group["runs"]} for group in chart["groups"]]
        kept = client.get(RUNS, params={"filter": "lr > 0.001"}).raise_for_status().json()["runs"]
        assert sorted(run for group in members["groups"] for run in group["runs"]) == sorted(r["run"] for r in kept)
    assert [group["name"] for group in client.get(GROUP_RUNS, params={"by": "hparam:nothing"}).json()["groups"]] == [
        "(none)"
    ]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"by": "nothing"},
        {"by": "regex:(a+)+$("},
        {"by": "dir:0", "filter": "lr <"},
        {"by": "regex:" + "x" * 40_000},
    ],
)
def test_bad_group_runs_parameters_are_400s(client: httpx.Client, params: dict[str, str]) -> None:
    assert client.get(GROUP_RUNS, params=params).status_code == 400


def test_filters_work_below_an_experiment_path(client: httpx.Client, tmp_path: Path) -> None:
    experiments = client.get("/data/experiments").raise_for_status().json()
    base = f"/experiment/{experiments[0]['id']}"
    here = client.get(f"{base}{RUNS}", params={"filter": "lr = 0.1"}).raise_for_status().json()
    assert here == client.get(RUNS, params={"filter": "lr = 0.1"}).raise_for_status().json()
    assert len(here["runs"]) == 6


def test_with_a_regex_fallback_text_that_is_no_filter_is_an_answer(client: httpx.Client) -> None:
    answer = client.get(RUNS, params={"filter": "seed[12]$", "fallback": "regex"}).raise_for_status().json()
    assert answer == {
        "filter": "seed[12]$",
        "mode": "regex",
        "reason": "filter: at position 4: expected a field, a value, an operator or a parenthesis, found '['",
        "runs": None,
    }
    kept = client.get(RUNS, params={"filter": "lr = 0.1", "fallback": "regex"}).raise_for_status().json()
    assert kept["mode"] == "filter" and len(kept["runs"]) == 6
    assert client.get(RUNS, params={"filter": "lr = 0.1", "fallback": "glob"}).status_code == 400


def test_with_errors_answered_a_bad_filter_says_where(client: httpx.Client) -> None:
    answer = client.get(RUNS, params={"filter": "val/acc < ", "errors": "answer"}).raise_for_status().json()
    assert answer == {
        "filter": "val/acc < ",
        "mode": "invalid",
        "error": "at position 10: expected a value (a number, a word, a quoted string, true or false), found the end",
        "position": 10,
        "expected": "a value (a number, a word, a quoted string, true or false)",
        "runs": None,
    }
    too_long = client.get(RUNS, params={"filter": "a = 1 or " * 500, "errors": "answer"}).raise_for_status().json()
    assert too_long["mode"] == "invalid" and too_long["position"] is None and "longer than" in too_long["error"]
    kept = client.get(RUNS, params={"filter": "val/acc > 0 and optimizer = sgd", "errors": "answer"}).json()
    assert kept["mode"] == "filter" and kept["runs"]
    assert {entry["hparams"]["optimizer"] for entry in kept["runs"]} == {"sgd"}
    assert client.get(RUNS, params={"filter": "val/acc <"}).status_code == 400
    assert client.get(RUNS, params={"filter": "lr = 0.1", "errors": "raise"}).status_code == 400
