from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.citus import CitusCluster, citus_cluster, skip_without_citus
from tests.logdirs import write_full_logdir
from tests.pgserver import PostgresServer, postgres_server, standby_server
from tests.s3server import S3Server, s3_server
from tests.servers import Server, tensorboard_server, trainboard_server

TESTS = Path(__file__).parent
# With xdist (scripts/test runs two workers), each worker starts the session fixtures its tests use. The tests of these
# folders share servers too costly to start twice (the real TensorBoard and trainboard on four backends; the hparams
# servers): all of a folder's tests run on one worker. Any other test file runs whole on one worker (its module
# fixtures start once).
SHARED_BY_FOLDER = ("differential", "hparams")
# The groups that take a worker longest, longest first: they are handed out first (scripts/test passes
# --no-loadscope-reorder, so groups go out in the order collected), and the short groups after them fill in, so that
# both workers finish together. Handed out last, as xdist's own order (most tests first) hands out these groups of few
# tests, they leave one worker running alone at the end. Every other group follows, most tests first.
LONGEST_GROUPS = (
    # Every test on the Citus cluster (marked xdist_group("citus")): 205 tests, 14.5 minutes on one worker of this
    # 2-core machine shared with five other test sessions (load 9-12).
    "citus",
    "differential",
    "hparams",
    "generated-local",
    "generated-team",
    "upload/test_upload.py",
    # A PostgreSQL restart and an S3 outage under 50 readers and two uploads (about 3 minutes); both proxies.
    "team/faults",
    "team/proxies",
    "packaging/test_wheel.py",
    "ingest/test_ingest_order.py",
    "analysis/test_projections.py",
    "browser/test_ui_team.py",
    "cli/test_team_commands.py",
    "http/test_route_policies.py",
    "ingest/test_soak.py",
    # Two tests of about half a minute each (2 GiB read through by each framing): handed out last by size.
    "cli/test_ingest_memory.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    groups = {item: group_of(item) for item in items}
    sizes = Counter(groups.values())
    first_seen: dict[str, int] = {}
    for index, group in enumerate(groups.values()):
        first_seen.setdefault(group, index)
    rank = {group: index for index, group in enumerate(LONGEST_GROUPS)}
    # A group's tests stay together and in their order: module fixtures start once.
    items.sort(key=lambda item: (rank.get(groups[item], len(rank)), -sizes[groups[item]], first_seen[groups[item]]))


def group_of(item: pytest.Item) -> str:
    """The item's xdist group, given it here unless its test names one."""
    marker = item.get_closest_marker("xdist_group")
    if marker is not None:
        return str(marker.args[0] if marker.args else marker.kwargs["name"])
    path = item.path.relative_to(TESTS)
    group = path.parts[0] if path.parts[0] in SHARED_BY_FOLDER else path.as_posix()
    item.add_marker(pytest.mark.xdist_group(group))
    return group


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--candidate",
        choices=("trainboard", "tensorboard"),
        default="trainboard",
        help="the server the differential tests compare with TensorBoard; 'tensorboard' checks the harness itself",
    )


@pytest.fixture(scope="session")
def full_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every plugin and every writer, nested runs, both kinds of restart and a legacy-format run."""
    return write_full_logdir(tmp_path_factory.mktemp("full") / "logs")


@pytest.fixture(scope="session")
def full_tensorboard(full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The real TensorBoard 2.21 serving the full logdir, loaded completely."""
    with tensorboard_server(full_logdir, tmp_path_factory.mktemp("tensorboard")) as server:
        yield server


@pytest.fixture(scope="session")
def full_trainboard(full_logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """trainboard serving the full logdir, its ingest done."""
    with trainboard_server(full_logdir, tmp_path_factory.mktemp("trainboard")) as server:
        yield server


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One real PostgreSQL per test session (per xdist worker), started on first use."""
    with postgres_server() as server:
        yield server


@pytest.fixture(scope="session")
def postgres_standby(postgres: PostgresServer) -> Iterator[PostgresServer]:
    """A hot standby of the session's PostgreSQL (tests/pgserver.py), started on first use."""
    with standby_server(postgres) as server:
        yield server


@pytest.fixture
def postgres_url(postgres: PostgresServer, request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a new, empty database of its own for this test, dropped afterwards."""
    url = postgres.create_database(f"{request.node.name[:50]}_{uuid.uuid4().hex[:8]}")
    yield url
    postgres.drop_database(url)


@pytest.fixture(scope="session")
def citus() -> Iterator[CitusCluster]:
    """One Citus cluster (a coordinator and two workers) per test session (per xdist worker: its tests are marked to
    run in one xdist group), started on first use; skips when Citus is not installed."""
    skip_without_citus()
    with citus_cluster() as cluster:
        yield cluster


@pytest.fixture
def citus_url(citus: CitusCluster, request: pytest.FixtureRequest) -> Iterator[str]:
    """The coordinator's URL of a new, empty database of its own with Citus and both workers, dropped afterwards."""
    url = citus.create_database(request.node.name)
    yield url
    citus.drop_database(url)


@pytest.fixture(scope="session")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """One real S3 server (SeaweedFS) per test session (per xdist worker), started on first use."""
    with s3_server(tmp_path_factory.mktemp("s3")) as server:
        yield server


@pytest.fixture
def s3_blobs_url(s3: S3Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """An `s3://` URL under a prefix of its own for this test, with the server in the standard AWS environment
    variables as a user would set them (and no AWS configuration of this machine in the way)."""
    environment = s3.environment(tmp_path)
    for name in set(os.environ) - set(environment):
        monkeypatch.delenv(name)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return f"s3://{s3.bucket}/{uuid.uuid4().hex}"
