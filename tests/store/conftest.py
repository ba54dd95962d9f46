from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from trainboard.store.opening import open_store
from trainboard.store.store import Store

StoreOpener = Callable[[], Store]


@pytest.fixture(params=["sqlite"])
def open_test_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreOpener]:
    """Opens a new store on one fresh database of each backend; the contract tests run once per backend."""
    opened: list[Store] = []

    def opener() -> Store:
        store = open_store(f"sqlite:{tmp_path / 'store.sqlite'}")
        opened.append(store)
        return store

    yield opener
    for store in opened:
        store.close()


@pytest.fixture
def store(open_test_store: StoreOpener) -> Store:
    return open_test_store()
