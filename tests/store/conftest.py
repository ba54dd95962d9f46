from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from trainboard.store.protocol import Store
from trainboard.store.sqlite import SqliteStore


@pytest.fixture(params=["sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Every store backend; the contract tests run once per backend."""
    backend = SqliteStore(tmp_path / "store.sqlite")
    yield backend
    backend.close()
