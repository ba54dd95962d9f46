"""The real TS-VIS backend and trainboard serving the same logdir."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.servers import trainboard_server
from tests.tsvis.logdirs import write_api_logdir
from tests.tsvis.venv import tsvis_server


@dataclass(frozen=True, slots=True)
class Both:
    tsvis: httpx.Client
    trainboard: httpx.Client
    written: list[dict[str, Any]]
    logdir: Path


@pytest.fixture(scope="session")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Both]:
    root = tmp_path_factory.mktemp("tsvis_api")
    written = write_api_logdir(root / "logs")
    with (
        tsvis_server(root / "logs") as tsvis,
        trainboard_server(root / "logs", root / "trainboard") as trainboard,
        httpx.Client(base_url=tsvis.url, timeout=60) as tsvis_client,
        httpx.Client(base_url=trainboard.url, timeout=60) as trainboard_client,
    ):
        yield Both(tsvis_client, trainboard_client, written, root / "logs")
