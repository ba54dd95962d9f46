from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.differential.routes import Listing
from tests.servers import Server, tensorboard_server


@pytest.fixture(scope="session")
def candidate(
    request: pytest.FixtureRequest, full_logdir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """The server compared with TensorBoard: trainboard, or with --candidate=tensorboard a second TensorBoard."""
    if request.config.getoption("candidate") == "trainboard":
        yield request.getfixturevalue("full_trainboard")
        return
    with tensorboard_server(full_logdir, tmp_path_factory.mktemp("candidate")) as server:
        yield server


@pytest.fixture(scope="session")
def differential_clients(full_tensorboard: Server, candidate: Server) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    """A client of the real TensorBoard and one of the candidate, both serving the full logdir."""
    with (
        httpx.Client(base_url=full_tensorboard.url, timeout=30) as tensorboard,
        httpx.Client(base_url=candidate.url, timeout=30) as ours,
    ):
        yield tensorboard, ours


@pytest.fixture(scope="session")
def listing(differential_clients: tuple[httpx.Client, httpx.Client]) -> Listing:
    """TensorBoard's listings of the full logdir: what the differential tests iterate over."""
    return Listing(differential_clients[0])
