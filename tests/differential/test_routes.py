"""TensorBoard 2.21 and the candidate (trainboard) serving the same logdir answer every route alike: every run and tag
that TensorBoard lists, at the root and under /experiment/defaultExperimentId/, and the same errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.differential.calls import Call, TensorBoardAnswers
from tests.differential.compare import Answer, answer, answer_difference, first_difference
from tests.differential.differences import DIFFERENT_BODIES, HTML_ERRORS, IGNORED_KEYS, TENSORBOARD_CRASHES
from tests.differential.routes import ROUTES, Listing, Route
from tests.protobuf_floor import printed_alike
from tests.servers import Server

pytestmark = pytest.mark.differential

Clients = tuple[httpx.Client, httpx.Client]
PREFIXES = {"root": "", "experiment": "/experiment/defaultExperimentId"}
REPORTED = 10


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
@pytest.mark.parametrize("route", ROUTES, ids=str)
def test_route(
    route: Route,
    prefix: str,
    listing: Listing,
    tensorboard_answers: TensorBoardAnswers,
    differential_clients: Clients,
    candidate: Server,
) -> None:
    _, ours = differential_clients
    calls = route.calls(listing)
    assert calls, f"TensorBoard lists nothing for {route}: the full logdir must cover it"
    problems, answers = [], []
    for call in calls:
        expected = tensorboard_answers.exchange(call, prefix, route.resolve)
        assert expected.status == 200, f"TensorBoard answers {call} with {expected.status}: {expected.body!r:.300}"
        assert all(blob.status == 200 for blob in blobs(expected.body)), f"TensorBoard fails a blob of {call}"
        # A store server's client is at its experiment already: both prefixes name that experiment there.
        actual = call.exchange(ours, "" if candidate.experiment_path else prefix, route.resolve)
        if candidate.experiment_path:
            actual = Answer(
                actual.status, actual.content_type, served_at(actual.body, candidate.experiment_path, prefix)
            )
        answers.append(actual)
        if candidate.protobuf_floor:
            expected, actual = (
                Answer(side.status, side.content_type, printed_alike(call.path, side.body))
                for side in (expected, actual)
            )
        found = answer_difference(*(without_ignored_keys(call, side) for side in (expected, actual)))
        if found:
            problems.append(f"{call}: {found}")
    shown = "\n".join(problems[:REPORTED])
    assert not problems, f"{len(problems)} of {len(calls)} calls differ:\n{shown}{crash_log(candidate, answers)}"


def served_at(body: Any, experiment_path: str, prefix: str) -> Any:
    """A store server's JSON as served under `prefix`: the paths it names (the projector's module_path in the plugins
    listing) begin with its experiment's path where TensorBoard's begin with the prefix it was asked under."""
    if isinstance(body, str) and body.startswith(experiment_path + "/"):
        return prefix + body.removeprefix(experiment_path)
    if isinstance(body, dict):
        return {key: served_at(value, experiment_path, prefix) for key, value in body.items()}
    if isinstance(body, list):
        return [served_at(value, experiment_path, prefix) for value in body]
    return body


def without_ignored_keys(call: Call, side: Answer) -> Answer:
    if call.path in DIFFERENT_BODIES:
        return Answer(side.status, side.content_type, None)
    ignored = IGNORED_KEYS.get(call.path, {})
    if not ignored or not isinstance(side.body, dict):
        return side
    return Answer(side.status, side.content_type, {k: v for k, v in side.body.items() if k not in ignored})


def blobs(body: Any) -> Iterator[Answer]:
    """The answers fetched in place of blob tokens, anywhere in a resolved body."""
    if isinstance(body, Answer):
        yield body
    elif isinstance(body, dict):
        for value in body.values():
            yield from blobs(value)
    elif isinstance(body, list):
        for value in body:
            yield from blobs(value)


def crash_log(candidate: Server, answers: list[Answer]) -> str:
    """The end of the candidate's output when it answered 5xx (its traceback), else nothing."""
    if all(reply.status < 500 for reply in answers):
        return ""
    return f"\n--- the candidate's output:\n{candidate.output()}"


def requests_form(*requests: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return (("requests", json.dumps(list(requests))),)


ERROR_CALLS = (
    # Unknown runs and tags.
    Call("/data/plugin/scalars/scalars", (("run", "nope"), ("tag", "loss"))),
    Call("/data/plugin/scalars/scalars", (("run", "train"), ("tag", "nope"))),
    Call("/data/plugin/scalars/scalars_multirun", form=(("tag", "loss"), ("runs", "train"), ("runs", "nope"))),
    Call("/data/plugin/histograms/histograms", (("run", "nope"), ("tag", "weights"))),
    Call("/data/plugin/distributions/distributions", (("run", "train"), ("tag", "nope"))),
    Call("/data/plugin/images/images", (("run", "nope"), ("tag", "batch"))),
    Call("/data/plugin/images/images", (("run", "train"), ("tag", "batch"), ("sample", "5"))),
    Call("/data/plugin/audio/audio", (("run", "train"), ("tag", "nope"))),
    Call("/data/plugin/text/text", (("run", "nope"), ("tag", "notes/text_summary"))),
    Call("/data/plugin/graphs/graph", (("run", "nope"),)),
    Call("/data/plugin/graphs/graph", (("run", "train"), ("tag", "nope"))),
    Call("/data/plugin/graphs/run_metadata", (("run", "train"), ("tag", "nope"))),
    Call("/data/plugin/pr_curves/pr_curves", (("run", "nope"), ("tag", "pr"))),
    Call("/data/plugin/pr_curves/pr_curves", (("run", "train"), ("run", "eval/a"), ("tag", "pr"))),
    Call("/data/plugin/custom_scalars/scalars", (("run", "nope"), ("tag", "loss"))),
    Call("/data/plugin/timeseries/timeSeries", form=requests_form({"plugin": "scalars", "tag": "nope"})),
    Call(
        "/data/plugin/timeseries/timeSeries",
        form=requests_form({"plugin": "images", "tag": "batch", "run": "nope", "sample": 0}),
    ),
    Call(
        "/data/plugin/hparams/metric_evals",
        body=json.dumps({"experimentName": "", "sessionName": "train/hparams", "metricName": {"tag": "nope"}}),
    ),
    Call("/data/plugin/nope/tags"),
    Call("/data/nope"),
    # Missing and malformed parameters.
    Call("/data/plugin/scalars/scalars"),
    Call("/data/plugin/scalars/scalars", (("run", "train"),)),
    Call("/data/plugin/scalars/scalars", (("run", "train"), ("tag", "loss"), ("format", "xml"))),
    Call("/data/plugin/histograms/histograms"),
    Call("/data/plugin/images/images", (("run", "train"), ("tag", "batch"), ("sample", "x"))),
    Call("/data/plugin/images/individualImage"),
    Call("/data/plugin/images/individualImage", (("blob_key", "garbage"),)),
    Call("/data/plugin/audio/individualAudio", (("blob_key", "garbage"),)),
    Call("/data/plugin/text/text"),
    Call("/data/plugin/graphs/graph"),
    Call("/data/plugin/graphs/graph", (("run", "train"), ("limit_attr_size", "x"), ("large_attrs_key", "k"))),
    Call("/data/plugin/graphs/graph", (("run", "train"), ("limit_attr_size", "10"))),
    Call("/data/plugin/graphs/graph", (("run", "train"), ("conceptual", "true"))),
    Call("/data/plugin/pr_curves/pr_curves"),
    Call("/data/plugin/custom_scalars/scalars", (("run", "train"), ("tag", "("))),
    Call("/data/plugin/timeseries/timeSeries", form=()),
    Call("/data/plugin/timeseries/timeSeries", (("requests", "garbage"),)),
    Call("/data/plugin/timeseries/imageData"),
    Call("/data/plugin/timeseries/imageData", (("imageId", "garbage"),)),
    Call("/data/plugin/hparams/experiment"),
    Call("/data/plugin/hparams/session_groups", body="not json"),
    Call("/data/plugin/mesh/data", (("run", "train"), ("tag", "tetra"), ("content_type", "nope"))),
    Call("/data/plugin/projector/info", (("run", "nope"),)),
    Call("/data/plugin/projector/tensor", (("run", "train"), ("name", "nope"))),
)


@pytest.mark.parametrize("call", ERROR_CALLS, ids=str)
def test_unknown_names_and_bad_parameters(
    call: Call, tensorboard_answers: TensorBoardAnswers, differential_clients: Clients, candidate: Server
) -> None:
    expected, actual = tensorboard_answers.exchange(call, ""), call.exchange(differential_clients[1], "")
    key = str(call)
    if key in TENSORBOARD_CRASHES:
        assert expected.status == 500, f"TensorBoard no longer crashes on {key}: update differences.py"
        if actual != expected:
            assert 400 <= actual.status < 500, (
                f"{key}: {actual.status} {actual.body!r:.300}{crash_log(candidate, [actual])}"
            )
            assert actual.media_type == "text/plain", f"{key}: {actual.content_type}"
    elif key in HTML_ERRORS:
        assert expected.media_type == "text/html", f"TensorBoard's error for {key} is no HTML: update differences.py"
        if actual != expected:
            assert (actual.status, actual.media_type) == (expected.status, "text/plain"), f"{key}: {actual}"
    else:
        assert expected.status != 500, f"TensorBoard crashes on {key}: list it in differences.TENSORBOARD_CRASHES"
        assert expected.status < 400 or expected.media_type != "text/html", f"list {key} in differences.HTML_ERRORS"
        difference = answer_difference(expected, actual)
        assert difference is None, f"{key}: {difference}{crash_log(candidate, [actual])}"


# Seed 000's tag types and the TensorBoard plugin whose tag listing holds each.
TAG_TYPES = {
    "scalars": "scalars",
    "histograms": "histograms",
    "compressedHistograms": "distributions",
    "images": "images",
    "audio": "audio",
}


def test_runs_by_type_agrees_with_tensorboards_listings(
    request: pytest.FixtureRequest, listing: Listing, differential_clients: Clients
) -> None:
    """Seed 000's /data/runs, a dictionary of tag types per run, has no TensorBoard 2.21 counterpart; trainboard
    serves it at /data/runs_by_type, which must agree with the tag listings of TensorBoard's plugins."""
    if request.config.getoption("candidate") == "tensorboard":
        pytest.skip("TensorBoard 2.21 has no /data/runs_by_type")
    graphs = listing.json("/data/plugin/graphs/info")
    expected: dict[str, dict[str, Any]] = {}
    for run in listing.json("/data/runs"):
        by_type: dict[str, Any] = {kind: [] for kind in TAG_TYPES}
        for kind, plugin in TAG_TYPES.items():
            by_type[kind] = sorted(tag for tag_run, tag, _ in listing.tags(plugin) if tag_run == run)
        graph = graphs.get(run, {"run_graph": False, "tags": {}})
        by_type["graph"] = graph["run_graph"]
        by_type["run_metadata"] = sorted(tag for tag, kinds in graph["tags"].items() if kinds["profile"])
        expected[run] = by_type
    got = answer(differential_clients[1].get("/data/runs_by_type"))
    assert (got.status, got.media_type) == (200, "application/json"), got
    actual = {
        run: {kind: sorted(tags) if isinstance(tags, list) else tags for kind, tags in by_type.items()}
        for run, by_type in got.body.items()
    }
    difference = first_difference(expected, actual)
    assert difference is None, difference
