"""Two logdirs of many hparams sessions, each served by the real TensorBoard 2.21 and by trainboard."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.hparams.logdirs import Shape, write_inferred_logdir, write_writers_logdir
from tests.servers import tensorboard_server, trainboard_server
from tests.tsvis.hparams import write_tensorboard_equivalent, write_tsvis_logdir


@dataclass(frozen=True, slots=True)
class Served:
    """One logdir, what it holds, and a client of each server."""

    shape: Shape
    tensorboard: httpx.Client
    trainboard: httpx.Client


def serve(tmp_path_factory: pytest.TempPathFactory, name: str, write: Callable[[Path], Shape]) -> Iterator[Served]:
    logdir = tmp_path_factory.mktemp(name) / "logs"
    shape = write(logdir)
    yield from serve_both(tmp_path_factory, name, shape, logdir, logdir)


def serve_both(
    tmp_path_factory: pytest.TempPathFactory, name: str, shape: Shape, tensorboard_logdir: Path, trainboard_logdir: Path
) -> Iterator[Served]:
    scratch = tmp_path_factory.mktemp(f"{name}_servers")
    with (
        tensorboard_server(tensorboard_logdir, scratch / "tensorboard") as tensorboard,
        trainboard_server(trainboard_logdir, scratch / "trainboard") as trainboard,
        httpx.Client(base_url=tensorboard.url, timeout=60) as tensorboard_client,
        httpx.Client(base_url=trainboard.url, timeout=60) as trainboard_client,
    ):
        yield Served(shape, tensorboard_client, trainboard_client)


@pytest.fixture(scope="session")
def writers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An experiment summary at the root and sessions from tensorboard's functions, torch and tensorboardX."""
    yield from serve(tmp_path_factory, "hparams_writers", write_writers_logdir)


@pytest.fixture(scope="session")
def inferred(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Sessions without an experiment summary: the experiment is inferred."""
    yield from serve(tmp_path_factory, "hparams_inferred", write_inferred_logdir)


@pytest.fixture(scope="session")
def tsvis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """trainboard serving TS-VIS hparams files (TS-VIS's samples and sessions its SummaryWriter wrote), TensorBoard
    the same sessions written in TensorBoard's format."""
    root = tmp_path_factory.mktemp("hparams_tsvis")
    read = write_tsvis_logdir(root / "tsvis")
    write_tensorboard_equivalent(read, root / "tensorboard")
    hparams = {name: "number" for run in read.values() for session in run["sessions"] for name in session["hparams"]}
    shape = Shape(
        hparams={**hparams, "optimizer": "string", "batch_norm": "bool"}, metrics=[("", "loss"), ("", "accuracy")]
    )
    yield from serve_both(tmp_path_factory, "hparams_tsvis", shape, root / "tensorboard", root / "tsvis")
