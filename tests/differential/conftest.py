from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest


@pytest.fixture(scope="session")
def differential_clients(tensorboard_url: str, trainboard_url: str) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    """A client of the real TensorBoard and one of trainboard, both serving the full logdir."""
    with (
        httpx.Client(base_url=tensorboard_url, timeout=30) as tb,
        httpx.Client(base_url=trainboard_url, timeout=30) as ours,
    ):
        yield tb, ours
