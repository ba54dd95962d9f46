"""Every route TensorBoard 2.21's HTTP API and web UI use, each with the calls that cover every run and tag that
TensorBoard lists for the logdir, and how to resolve the opaque blob tokens in its answers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from tests.differential.calls import Call, Fetch, Resolve

# Small enough that the graphs of the test logdir have attributes above it.
LIMIT_ATTR_SIZE = "16"


@dataclass(frozen=True, slots=True)
class Listing:
    """TensorBoard's own listings (runs, tags, layouts), fetched once and kept."""

    client: httpx.Client
    cache: dict[str, Any] = field(default_factory=dict)

    def json(self, path: str) -> Any:
        if path not in self.cache:
            self.cache[path] = self.client.get(path).raise_for_status().json()
        return self.cache[path]

    def tags(self, plugin: str) -> Iterator[tuple[str, str, Any]]:
        """(run, tag, info) for every tag of `plugin`, in TensorBoard's order; `info` is None for plain tag lists."""
        for run, tags in self.json(f"/data/plugin/{plugin}/tags").items():
            for tag in tags:
                yield run, tag, tags[tag] if isinstance(tags, dict) else None


@dataclass(frozen=True, slots=True)
class Route:
    name: str
    calls: Callable[[Listing], list[Call]]
    resolve: Resolve | None = None

    def __str__(self) -> str:
        return self.name


def fixed(*calls: Call) -> Callable[[Listing], list[Call]]:
    return lambda listing: list(calls)


def series(plugin: str, path: str, *extra: tuple[str, str]) -> Callable[[Listing], list[Call]]:
    """One call of `path` per (run, tag) that /data/plugin/<plugin>/tags lists."""
    return lambda listing: [Call(path, (("run", run), ("tag", tag), *extra)) for run, tag, _ in listing.tags(plugin)]


def sampled(plugin: str) -> Callable[[Listing], list[Call]]:
    """One call per (run, tag, sample) of the images or audio plugin."""
    path = f"/data/plugin/{plugin}/{plugin}"
    return lambda listing: [
        Call(path, (("run", run), ("tag", tag), ("sample", str(sample))))
        for run, tag, info in listing.tags(plugin)
        for sample in range(info["samples"])
    ]


def runs_by_tag(listing: Listing, plugin: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for run, tag, _ in listing.tags(plugin):
        found.setdefault(tag, []).append(run)
    return found


def scalars_multirun(listing: Listing) -> list[Call]:
    return [
        Call("/data/plugin/scalars/scalars_multirun", form=(("tag", tag), *(("runs", run) for run in runs)))
        for tag, runs in runs_by_tag(listing, "scalars").items()
    ]


def pr_curves(listing: Listing) -> list[Call]:
    """Each series alone, and each tag over all its runs at once (the dashboard's request)."""
    path = "/data/plugin/pr_curves/pr_curves"
    alone = [Call(path, (("run", run), ("tag", tag))) for run, tag, _ in listing.tags("pr_curves")]
    together = [
        Call(path, (*(("run", run) for run in runs), ("tag", tag)))
        for tag, runs in runs_by_tag(listing, "pr_curves").items()
        if len(runs) > 1
    ]
    return alone + together


def graphs(listing: Listing) -> list[Call]:
    calls = []
    for run, info in listing.json("/data/plugin/graphs/info").items():
        if info["run_graph"]:
            calls.append(Call("/data/plugin/graphs/graph", (("run", run),)))
            calls.append(
                Call(
                    "/data/plugin/graphs/graph",
                    (("run", run), ("limit_attr_size", LIMIT_ATTR_SIZE), ("large_attrs_key", "_too_large_attrs")),
                )
            )
        for tag, kinds in info["tags"].items():
            if kinds["op_graph"]:
                calls.append(Call("/data/plugin/graphs/graph", (("run", run), ("tag", tag))))
            if kinds["conceptual_graph"]:
                calls.append(Call("/data/plugin/graphs/graph", (("run", run), ("tag", tag), ("conceptual", "true"))))
    return calls


def run_metadata(listing: Listing) -> list[Call]:
    return [
        Call("/data/plugin/graphs/run_metadata", (("run", run), ("tag", tag)))
        for run, info in listing.json("/data/plugin/graphs/info").items()
        for tag, kinds in info["tags"].items()
        if kinds["profile"]
    ]


def custom_scalars(listing: Listing) -> list[Call]:
    """Every run with scalars against every tag or tag regex the layout names, as the dashboard asks."""
    patterns: list[str] = []
    for category in listing.json("/data/plugin/custom_scalars/layout")["category"]:
        for chart in category["chart"]:
            patterns += chart.get("multiline", {}).get("tag", [])
            for margin in chart.get("margin", {}).get("series", []):
                patterns += [margin["value"], margin["lower"], margin["upper"]]
    runs = listing.json("/data/plugin/scalars/tags")
    return [
        Call("/data/plugin/custom_scalars/scalars", (("run", run), ("tag", pattern)))
        for run in runs
        for pattern in dict.fromkeys(patterns)
    ]


def time_series_requests(listing: Listing) -> list[dict[str, Any]]:
    """What the Time Series dashboard asks for: scalars by tag, histograms and images by run and tag."""
    tags = listing.json("/data/plugin/timeseries/tags")
    scalar_tags = dict.fromkeys(tag for run_tags in tags["scalars"]["runTagInfo"].values() for tag in run_tags)
    requests: list[dict[str, Any]] = [{"plugin": "scalars", "tag": tag} for tag in scalar_tags]
    requests += [
        {"plugin": "histograms", "tag": tag, "run": run}
        for run, run_tags in tags["histograms"]["runTagInfo"].items()
        for tag in run_tags
    ]
    requests += [
        {"plugin": "images", "tag": tag, "run": run, "sample": sample}
        for tag, by_run in tags["images"]["tagRunSampledInfo"].items()
        for run, info in by_run.items()
        for sample in range(info["maxSamplesPerStep"])
    ]
    return requests


def time_series(listing: Listing) -> list[Call]:
    """Each request alone (POST, the dashboard's way), all of them in one POST, and all scalars in one GET."""
    path = "/data/plugin/timeseries/timeSeries"
    requests = time_series_requests(listing)
    alone = [Call(path, form=(("requests", json.dumps([request])),)) for request in requests]
    scalars = [request for request in requests if request["plugin"] == "scalars"]
    return [
        *alone,
        Call(path, form=(("requests", json.dumps(requests)),)),
        Call(path, (("requests", json.dumps(scalars)),)),
    ]


def hparams_experiment(listing: Listing) -> list[Call]:
    """The dashboard POSTs its request as JSON; GET with ?request= is the same request."""
    request = json.dumps({"experimentName": ""})
    return [
        Call("/data/plugin/hparams/experiment", body=request),
        Call("/data/plugin/hparams/experiment", (("request", request),)),
    ]


def session_groups_request(listing: Listing) -> dict[str, Any]:
    """Every session group with every hparam and metric of TensorBoard's experiment, as the dashboard first asks."""
    experiment = listing.json("/data/plugin/hparams/experiment?request=%7B%7D")
    columns: list[dict[str, Any]] = [
        {"hparam": info["name"], "includeInResult": True} for info in experiment["hparamInfos"]
    ]
    columns += [{"metric": info["name"], "includeInResult": True} for info in experiment["metricInfos"]]
    statuses = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]
    return {"experimentName": "", "allowedStatuses": statuses, "colParams": columns, "startIndex": 0, "sliceSize": 100}


def hparams_session_groups(listing: Listing) -> list[Call]:
    return [Call("/data/plugin/hparams/session_groups", body=json.dumps(session_groups_request(listing)))]


def hparams_metric_evals(listing: Listing) -> list[Call]:
    """Each metric that each session reports a value for."""
    request = json.dumps(session_groups_request(listing))
    groups = listing.json(f"/data/plugin/hparams/session_groups?request={quote(request)}")["sessionGroups"]
    return [
        Call(
            "/data/plugin/hparams/metric_evals",
            body=json.dumps({"experimentName": "", "sessionName": session["name"], "metricName": value["name"]}),
        )
        for group in groups
        for session in group["sessions"]
        for value in session["metricValues"]
    ]


def meshes(listing: Listing) -> list[Call]:
    return [
        Call("/data/plugin/mesh/meshes", (("run", run), ("tag", tag), ("sample", str(sample))))
        for run, tag, info in listing.tags("mesh")
        for sample in range(info["samples"])
    ]


def mesh_data(listing: Listing) -> list[Call]:
    """Each part (vertices, faces, colours) of each mesh at each step, as the dashboard fetches them."""
    parts = {1: "VERTEX", 2: "FACE", 3: "COLOR"}
    calls = []
    for meta in meshes(listing):
        query = dict(meta.query)
        for mesh in listing.json(f"{meta.path}?{urlencode(meta.query)}"):
            parameters = {**query, "content_type": parts[mesh["content_type"]], "step": str(mesh["step"])}
            calls.append(Call("/data/plugin/mesh/data", tuple(parameters.items())))
    return calls


def projector_tensors(route: str) -> Callable[[Listing], list[Call]]:
    """One call of the projector's `route` per embedding of each run's projector config."""
    return lambda listing: [
        Call(f"/data/plugin/projector/{route}", (("run", run), ("name", embedding["tensorName"])))
        for run in listing.json("/data/plugin/projector/runs")
        for embedding in listing.json(f"/data/plugin/projector/info?run={quote(run)}")["embeddings"]
    ]


def projector_info(listing: Listing) -> list[Call]:
    return [Call("/data/plugin/projector/info", (("run", run),)) for run in listing.json("/data/plugin/projector/runs")]


def resolve_queries(route: str) -> Resolve:
    """images and audio answers carry a `query` that fetches the blob from `route`."""

    def resolve(body: Any, fetch: Fetch) -> Any:
        return [
            {**entry, "query": fetch(f"{route}?{entry['query']}")}
            if isinstance(entry, dict) and isinstance(entry.get("query"), str)
            else entry
            for entry in body
        ]

    return resolve


def resolve_image_ids(body: Any, fetch: Fetch) -> Any:
    """timeSeries image points carry an `imageId` that /imageData fetches."""

    def point(entry: Any) -> Any:
        if isinstance(entry, dict) and isinstance(entry.get("imageId"), str):
            image = fetch(f"/data/plugin/timeseries/imageData?imageId={quote(entry['imageId'])}")
            return {**entry, "imageId": image}
        return entry

    def response(item: Any) -> Any:
        if not (isinstance(item, dict) and item.get("plugin") == "images" and "runToSeries" in item):
            return item
        by_run = item["runToSeries"]
        return {**item, "runToSeries": {run: [point(entry) for entry in points] for run, points in by_run.items()}}

    return [response(item) for item in body]


ROUTES: tuple[Route, ...] = (
    Route("environment", fixed(Call("/data/environment"))),
    Route("logdir", fixed(Call("/data/logdir"))),
    Route("plugins_listing", fixed(Call("/data/plugins_listing"))),
    Route("runs", fixed(Call("/data/runs"))),
    Route("experiments", fixed(Call("/data/experiments"))),
    Route("scalars/tags", fixed(Call("/data/plugin/scalars/tags"))),
    Route("scalars/scalars", series("scalars", "/data/plugin/scalars/scalars")),
    Route("scalars/scalars csv", series("scalars", "/data/plugin/scalars/scalars", ("format", "csv"))),
    Route("scalars/scalars_multirun", scalars_multirun),
    Route("histograms/tags", fixed(Call("/data/plugin/histograms/tags"))),
    Route("histograms/histograms", series("histograms", "/data/plugin/histograms/histograms")),
    Route("distributions/tags", fixed(Call("/data/plugin/distributions/tags"))),
    Route("distributions/distributions", series("distributions", "/data/plugin/distributions/distributions")),
    Route("images/tags", fixed(Call("/data/plugin/images/tags"))),
    Route("images/images", sampled("images"), resolve_queries("/data/plugin/images/individualImage")),
    Route("audio/tags", fixed(Call("/data/plugin/audio/tags"))),
    Route("audio/audio", sampled("audio"), resolve_queries("/data/plugin/audio/individualAudio")),
    Route("text/tags", fixed(Call("/data/plugin/text/tags"))),
    Route("text/text", series("text", "/data/plugin/text/text")),
    Route("text/text markdown=false", series("text", "/data/plugin/text/text", ("markdown", "false"))),
    Route("graphs/info", fixed(Call("/data/plugin/graphs/info"))),
    Route("graphs/graph", graphs),
    Route("graphs/run_metadata", run_metadata),
    Route("pr_curves/tags", fixed(Call("/data/plugin/pr_curves/tags"))),
    Route("pr_curves/pr_curves", pr_curves),
    Route("custom_scalars/layout", fixed(Call("/data/plugin/custom_scalars/layout"))),
    Route("custom_scalars/scalars", custom_scalars),
    Route("custom_scalars/download_data", series("scalars", "/data/plugin/custom_scalars/download_data")),
    Route(
        "custom_scalars/download_data csv",
        series("scalars", "/data/plugin/custom_scalars/download_data", ("format", "csv")),
    ),
    Route("timeseries/tags", fixed(Call("/data/plugin/timeseries/tags"))),
    Route("timeseries/timeSeries", time_series, resolve_image_ids),
    Route("hparams/experiment", hparams_experiment),
    Route("hparams/session_groups", hparams_session_groups),
    Route("hparams/metric_evals", hparams_metric_evals),
    Route("mesh/tags", fixed(Call("/data/plugin/mesh/tags"))),
    Route("mesh/meshes", meshes),
    Route("mesh/data", mesh_data),
    Route("projector/runs", fixed(Call("/data/plugin/projector/runs"))),
    Route("projector/info", projector_info),
    Route("projector/tensor", projector_tensors("tensor")),
    Route("projector/metadata", projector_tensors("metadata")),
)
