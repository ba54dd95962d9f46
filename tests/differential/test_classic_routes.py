"""Seed 000's routes have no TensorBoard 2.21 counterpart: their answers must agree with what TensorBoard 2.21's
plugin routes serve for the same runs and tags."""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from PIL import Image

from tests.differential.compare import first_difference
from tests.differential.routes import Listing
from tests.protobuf_floor import printed_alike
from tests.servers import Server

pytestmark = pytest.mark.differential

Clients = tuple[httpx.Client, httpx.Client]


def json_of(client: httpx.Client, path: str, **query: Any) -> Any:
    response = client.get(path, params=query)
    assert response.status_code == 200, f"{path} {query}: {response.status_code} {response.text[:300]}"
    return response.json()


def test_scalars_agree_with_the_scalars_plugin(listing: Listing, differential_clients: Clients) -> None:
    tensorboard, ours = differential_clients
    for run, tag, _ in listing.tags("scalars"):
        expected = json_of(tensorboard, "/data/plugin/scalars/scalars", run=run, tag=tag)
        assert first_difference(expected, json_of(ours, "/data/scalars", run=run, tag=tag)) is None
        csv = ours.get("/data/scalars", params={"run": run, "tag": tag, "format": "csv"})
        assert csv.headers["content-type"].startswith("text/csv")
        assert len(csv.text.strip().splitlines()) == len(expected) + 1


def test_every_scalar_series_sampled_keeps_first_and_last(listing: Listing, differential_clients: Clients) -> None:
    tensorboard, ours = differential_clients
    every = json_of(ours, "/data/scalars", sample_count=3)
    for run, tag, _ in listing.tags("scalars"):
        full = json_of(tensorboard, "/data/plugin/scalars/scalars", run=run, tag=tag)
        sampled = every[run][tag]
        assert len(sampled) == min(3, len(full))
        assert first_difference([full[0], full[-1]], [sampled[0], sampled[-1]]) is None
    assert ours.get("/data/scalars", params={"sample_count": "1"}).status_code == 400


def test_histograms_carry_the_plugins_buckets(listing: Listing, differential_clients: Clients) -> None:
    tensorboard, ours = differential_clients
    for run, tag, _ in listing.tags("histograms"):
        expected = json_of(tensorboard, "/data/plugin/histograms/histograms", run=run, tag=tag)
        actual = json_of(ours, "/data/histograms", run=run, tag=tag)
        assert [point[:2] for point in actual] == [point[:2] for point in expected]
        for (_, _, buckets), (_, _, proto) in zip(expected, actual, strict=True):
            low, high, count, _, _, limits, counts = proto
            assert limits == [right for _, right, _ in buckets]
            assert counts == [bucket_count for _, _, bucket_count in buckets]
            assert count == sum(counts)
            assert (low, high) == ((buckets[0][0], buckets[-1][1]) if buckets else (0.0, 0.0))


def test_compressed_histograms_are_the_distributions(listing: Listing, differential_clients: Clients) -> None:
    tensorboard, ours = differential_clients
    for run, tag, _ in listing.tags("distributions"):
        expected = json_of(tensorboard, "/data/plugin/distributions/distributions", run=run, tag=tag)
        assert first_difference(expected, json_of(ours, "/data/compressedHistograms", run=run, tag=tag)) is None


def test_images_fetch_the_same_bytes_with_their_size(listing: Listing, differential_clients: Clients) -> None:
    tensorboard, ours = differential_clients
    for run, tag, _ in listing.tags("images"):
        expected = json_of(tensorboard, "/data/plugin/images/images", run=run, tag=tag, sample=0)
        actual = json_of(ours, "/data/images", run=run, tag=tag)
        assert [(e["wall_time"], e["step"]) for e in expected] == [(a["wall_time"], a["step"]) for a in actual]
        for want, got in zip(expected, actual, strict=True):
            image = ours.get(f"/data/individualImage?{got['query']}").content
            assert image == tensorboard.get(f"/data/plugin/images/individualImage?{want['query']}").content
            assert Image.open(io.BytesIO(image)).size == (got["width"], got["height"])


def test_audio_fetches_the_same_bytes(listing: Listing, differential_clients: Clients) -> None:
    tensorboard, ours = differential_clients
    for run, tag, _ in listing.tags("audio"):
        expected = json_of(tensorboard, "/data/plugin/audio/audio", run=run, tag=tag, sample=0)
        actual = json_of(ours, "/data/audio", run=run, tag=tag)
        assert [(e["wall_time"], e["step"], e["contentType"]) for e in expected] == [
            (a["wall_time"], a["step"], a["content_type"]) for a in actual
        ]
        for want, got in zip(expected, actual, strict=True):
            clip = ours.get(f"/data/individualAudio?{got['query']}")
            assert clip.content == tensorboard.get(f"/data/plugin/audio/individualAudio?{want['query']}").content
            assert clip.headers["content-type"] == got["content_type"]


def test_graph_and_run_metadata_are_the_graphs_plugins(
    listing: Listing, differential_clients: Clients, candidate: Server
) -> None:
    tensorboard, ours = differential_clients

    def texts(plugin_path: str, path: str, query: str) -> tuple[str, str]:
        expected, actual = tensorboard.get(f"{plugin_path}?{query}").text, ours.get(f"{path}?{query}").text
        if candidate.protobuf_floor:
            return printed_alike(plugin_path, expected), printed_alike(path, actual)
        return expected, actual

    checked = 0
    for run, info in listing.json("/data/plugin/graphs/info").items():
        if info["run_graph"]:
            query = f"run={quote(run)}&limit_attr_size=16&large_attrs_key=_too_large"
            expected, actual = texts("/data/plugin/graphs/graph", "/data/graph", query)
            assert actual == expected
            checked += 1
        for tag, kinds in info["tags"].items():
            if kinds["profile"]:
                query = f"run={quote(run)}&tag={quote(tag)}"
                expected, actual = texts("/data/plugin/graphs/run_metadata", "/data/run_metadata", query)
                assert actual == expected
                checked += 1
    assert checked, "the full logdir must have a run graph or run metadata"


def test_graph_runs_are_the_runs_whose_info_has_a_run_graph(listing: Listing, differential_clients: Clients) -> None:
    """Seed 001's /data/plugin/graphs/runs, against the runs TensorBoard 2.21's graphs info marks run_graph."""
    _, ours = differential_clients
    with_graph = {run for run, info in listing.json("/data/plugin/graphs/info").items() if info["run_graph"]}
    listed = json_of(ours, "/data/plugin/graphs/runs")
    assert with_graph and set(listed) == with_graph and len(listed) == len(with_graph)
    assert listed == [run for run in json_of(ours, "/data/runs") if run in with_graph]
