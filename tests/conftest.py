from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.logdirs import write_full_logdir
from tests.servers import tensorboard_server, trainboard_server


@pytest.fixture(scope="session")
def full_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every plugin, written by tensorboardX, torch and tensorboard's summary ops, with restarts and a root run."""
    return write_full_logdir(tmp_path_factory.mktemp("full") / "logs")


@pytest.fixture(scope="session")
def full_run_count(full_logdir: Path) -> int:
    return len({path.parent for path in full_logdir.rglob("*tfevents*")})


@pytest.fixture(scope="session")
def tensorboard_url(full_logdir: Path, full_run_count: int) -> Iterator[str]:
    with tensorboard_server(full_logdir, full_run_count) as url:
        yield url


@pytest.fixture(scope="session")
def trainboard_url(full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with trainboard_server(full_logdir, tmp_path_factory.mktemp("store") / "store.sqlite") as url:
        yield url
