from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.pgserver import PostgresServer
from trainboard.store.opening import open_store
from trainboard.store.store import Store

StoreOpener = Callable[[], Store]

BACKENDS = [
    pytest.param("sqlite"),
    pytest.param("postgres", marks=pytest.mark.postgres),
    pytest.param("postgres+s3", marks=[pytest.mark.postgres, pytest.mark.s3]),
    # Reads from a hot standby (trainboard.store.postgres.standbys): every write read back at once, as on the primary.
    pytest.param("postgres+standby", marks=pytest.mark.postgres),
    # On their own xdist worker: the cluster starts once for all the Citus tests.
    pytest.param("citus", marks=[pytest.mark.citus, pytest.mark.xdist_group("citus")]),
]


@pytest.fixture(params=BACKENDS)
def open_test_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreOpener]:
    """Opens a new store on one fresh database of each backend; the contract tests run once per backend."""
    db = f"sqlite:{tmp_path / 'store.sqlite'}"
    blobs = None
    if request.param.startswith("postgres"):
        db = request.getfixturevalue("postgres_url")
    if request.param == "citus":
        db = request.getfixturevalue("citus_url")
    if request.param.endswith("+s3"):
        blobs = request.getfixturevalue("s3_blobs_url")
    standbys: list[str] = []
    if request.param == "postgres+standby":
        standby: PostgresServer = request.getfixturevalue("postgres_standby")
        standby.catch_up(request.getfixturevalue("postgres"))
        standbys.append(standby.database_url(db.rsplit("/", 1)[1]))
    opened: list[Store] = []

    def opener() -> Store:
        store = open_store(db, blobs, standbys=standbys)
        opened.append(store)
        return store

    yield opener
    for store in opened:
        store.close()


@pytest.fixture
def store(open_test_store: StoreOpener) -> Store:
    return open_test_store()
