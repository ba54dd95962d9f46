"""TensorBoard 2.21 and trainboard answer the histograms and distributions routes alike."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest

from tests.differential.compare import assert_same_answer

pytestmark = pytest.mark.differential


@pytest.mark.parametrize("plugin", ["histograms", "distributions"])
def test_every_series(differential_clients: tuple[httpx.Client, httpx.Client], plugin: str) -> None:
    tb, ours = differential_clients
    assert_same_answer(tb.get(f"/data/plugin/{plugin}/tags"), ours.get(f"/data/plugin/{plugin}/tags"))
    tags = tb.get(f"/data/plugin/{plugin}/tags").json()
    assert sum(len(by_tag) for by_tag in tags.values()) >= 4  # tensorboardX, torch, summary ops and legacy histo
    for run, by_tag in tags.items():
        for tag in by_tag:
            path = f"/data/plugin/{plugin}/{plugin}?{urlencode({'run': run, 'tag': tag})}"
            assert_same_answer(tb.get(path), ours.get(path))


@pytest.mark.parametrize("plugin", ["histograms", "distributions"])
def test_unknown_series_is_404(differential_clients: tuple[httpx.Client, httpx.Client], plugin: str) -> None:
    tb, ours = differential_clients
    path = f"/data/plugin/{plugin}/{plugin}?run=train&tag=nope"
    assert_same_answer(tb.get(path), ours.get(path))
