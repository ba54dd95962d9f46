"""TensorBoard 2.21 and trainboard render text summaries alike (markdown, tables, sanitising)."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest

from tests.differential.compare import assert_same_answer

pytestmark = pytest.mark.differential


@pytest.mark.parametrize("markdown", ["true", "false"])
def test_every_text_series(differential_clients: tuple[httpx.Client, httpx.Client], markdown: str) -> None:
    tb, ours = differential_clients
    assert_same_answer(tb.get("/data/plugin/text/tags"), ours.get("/data/plugin/text/tags"))
    tags = tb.get("/data/plugin/text/tags").json()
    assert sum(len(run_tags) for run_tags in tags.values()) >= 2
    for run, run_tags in tags.items():
        for tag in run_tags:
            path = f"/data/plugin/text/text?{urlencode({'run': run, 'tag': tag, 'markdown': markdown})}"
            assert_same_answer(tb.get(path), ours.get(path))
