from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.citus import CitusCluster
from tests.differential.calls import TensorBoardAnswers
from tests.differential.routes import Listing
from tests.pgserver import PostgresServer
from tests.protobuf_floor import floor_python
from tests.s3server import S3Server
from tests.servers import (
    Server,
    tensorboard_server,
    trainboard_server,
    trainboard_store_server,
    trainboard_uploaded_server,
)
from trainboard.kernels import PURE_PYTHON


@pytest.fixture(
    scope="session",
    params=[
        "sqlite",
        "protobuf-floor",
        "pure-python",
        "postgres",
        "uploaded",
        # On its own xdist worker with the other Citus tests: the cluster starts once.
        pytest.param("citus", marks=[pytest.mark.citus, pytest.mark.xdist_group("citus")]),
    ],
)
def candidate(
    request: pytest.FixtureRequest, full_logdir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """The server compared with TensorBoard: trainboard on its SQLite store (on the newest protobuf, on the oldest
    that pyproject.toml admits, in .venv-floor, and on the pure-Python paths, without its C kernels), and
    `trainboard ingest` + `serve` on PostgreSQL (the logdir's experiment at /experiment/<id>/) and on a Citus
    cluster, and `trainboard upload`
    of the logdir into `trainboard serve` on PostgreSQL and S3; with --candidate=tensorboard a second TensorBoard."""
    if request.config.getoption("candidate") == "tensorboard":
        if request.param != "sqlite":
            pytest.skip("TensorBoard checks the harness once")
        with tensorboard_server(full_logdir, tmp_path_factory.mktemp("candidate")) as server:
            yield server
    elif request.param == "sqlite":
        yield request.getfixturevalue("full_trainboard")
    elif request.param == "protobuf-floor":
        with trainboard_server(
            full_logdir, tmp_path_factory.mktemp("candidate-floor"), python=floor_python()
        ) as server:
            yield dataclasses.replace(server, protobuf_floor=True)
    elif request.param == "pure-python":
        environment = {**os.environ, PURE_PYTHON: "1"}
        with trainboard_server(full_logdir, tmp_path_factory.mktemp("candidate-pure"), env=environment) as server:
            yield server
    elif request.param == "postgres":
        postgres: PostgresServer = request.getfixturevalue("postgres")
        db = postgres.create_database("differential")
        with trainboard_store_server(full_logdir, tmp_path_factory.mktemp("candidate-postgres"), db) as server:
            yield server
    elif request.param == "citus":
        citus: CitusCluster = request.getfixturevalue("citus")
        db = citus.create_database("differential")
        with trainboard_store_server(full_logdir, tmp_path_factory.mktemp("candidate-citus"), db) as server:
            yield server
    else:
        postgres = request.getfixturevalue("postgres")
        s3: S3Server = request.getfixturevalue("s3")
        db = postgres.create_database("uploaded")
        scratch = tmp_path_factory.mktemp("candidate-uploaded")
        blobs = f"--blobs=s3://{s3.bucket}/uploaded"
        with trainboard_uploaded_server(full_logdir, scratch, db, blobs, env=s3.environment(scratch)) as server:
            yield server


@pytest.fixture(scope="session")
def differential_clients(full_tensorboard: Server, candidate: Server) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    """A client of the real TensorBoard and one of the candidate (at its experiment), both serving the full logdir."""
    with (
        httpx.Client(base_url=full_tensorboard.url, timeout=30) as tensorboard,
        httpx.Client(base_url=candidate.url + candidate.experiment_path, timeout=30) as ours,
    ):
        yield tensorboard, ours


@pytest.fixture(scope="session")
def tensorboard_answers(full_tensorboard: Server) -> Iterator[TensorBoardAnswers]:
    """The real TensorBoard's answers, kept for every candidate."""
    with httpx.Client(base_url=full_tensorboard.url, timeout=30) as client:
        yield TensorBoardAnswers(client)


@pytest.fixture(scope="session")
def listing(tensorboard_answers: TensorBoardAnswers) -> Listing:
    """TensorBoard's listings of the full logdir: what the differential tests iterate over."""
    return Listing(tensorboard_answers.client)
