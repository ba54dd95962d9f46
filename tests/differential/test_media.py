"""TensorBoard 2.21 and trainboard answer the images and audio routes alike; blob keys are opaque, so the bytes they
fetch are compared instead of the keys."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode

import httpx
import pytest

from tests.differential.compare import assert_same_answer, first_difference, media_type

pytestmark = pytest.mark.differential

Clients = tuple[httpx.Client, httpx.Client]


def resolved(client: httpx.Client, plugin: str, entries: list[dict[str, object]]) -> list[dict[str, object]]:
    """Each entry with its opaque query replaced by what the query fetches."""
    route = "individualImage" if plugin == "images" else "individualAudio"
    result = []
    for entry in entries:
        fetched = client.get(f"/data/plugin/{plugin}/{route}?{entry['query']}")
        assert fetched.status_code == 200
        query = {k: v for k, v in parse_qs(str(entry["query"])).items() if k != "blob_key"}
        result.append({**entry, "query": query, "bytes": fetched.content, "type": media_type(fetched)})
    return result


@pytest.mark.parametrize("plugin", ["images", "audio"])
def test_every_series_and_sample(differential_clients: Clients, plugin: str) -> None:
    tb, ours = differential_clients
    assert_same_answer(tb.get(f"/data/plugin/{plugin}/tags"), ours.get(f"/data/plugin/{plugin}/tags"))
    tags = tb.get(f"/data/plugin/{plugin}/tags").json()
    assert sum(len(by_tag) for by_tag in tags.values()) >= 1
    for run, by_tag in tags.items():
        for tag, info in by_tag.items():
            for sample in range(info["samples"]):
                path = f"/data/plugin/{plugin}/{plugin}?{urlencode({'run': run, 'tag': tag, 'sample': sample})}"
                expected, actual = tb.get(path), ours.get(path)
                assert (expected.status_code, actual.status_code) == (200, 200)
                difference = first_difference(
                    resolved(tb, plugin, expected.json()), resolved(ours, plugin, actual.json())
                )
                assert difference is None, f"{path}: {difference}"


@pytest.mark.parametrize("plugin", ["images", "audio"])
def test_unknown_series_is_404(differential_clients: Clients, plugin: str) -> None:
    tb, ours = differential_clients
    path = f"/data/plugin/{plugin}/{plugin}?run=train&tag=nope"
    assert_same_answer(tb.get(path), ours.get(path))
