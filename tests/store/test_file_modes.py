"""Only the store's owner may read it: the directories trainboard makes for a SQLite store are 0700 and every file of
the store is 0600 (the database, SQLite's -wal and -shm, the first load's sentinel, the writer's lock, the local
store's record), whatever the process's umask lets through."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.logs import write_run
from trainboard.ingest.loader import Loader
from trainboard.reader.logdir import LogDir
from trainboard.store.local import store_url
from trainboard.store.opening import open_store


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """A umask that takes nothing away: the modes seen are the ones trainboard asked for."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def _modes(directory: Path) -> dict[str, int]:
    return {path.name: stat.S_IMODE(path.stat().st_mode) for path in directory.iterdir()}


def test_a_new_stores_directory_and_files_are_its_owners_alone(tmp_path: Path, permissive_umask: None) -> None:
    write_run(tmp_path / "logs" / "train", steps=3)
    directory = tmp_path / "made" / "by" / "trainboard"
    store = open_store(str(directory / "store.sqlite"), rebuildable=True)
    try:
        experiment = store.create_experiment("logs")
        assert store.claim_writer(experiment.id)
        Loader(LogDir(str(tmp_path / "logs")), store, experiment.id).poll()
        modes = _modes(directory)
        # The first load's sentinel, the writer's lock, and the database with its write-ahead log and shared memory.
        assert {name.split(".", 1)[1] for name in modes} >= {
            "sqlite",
            "sqlite-wal",
            "sqlite-shm",
            f"sqlite.{experiment.id}.writer",
        }
        assert set(modes.values()) == {0o600}, modes
    finally:
        store.close()
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_a_local_stores_cache_directory_and_record_are_the_users_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, permissive_umask: None
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    write_run(tmp_path / "logs" / "train")
    store = open_store(store_url("", str(tmp_path / "logs")), rebuildable=True, cached=True)
    store.close()
    cache = tmp_path / "cache" / "trainboard"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    modes = _modes(cache)
    assert any(name.endswith(".json") for name in modes) and set(modes.values()) == {0o600}, modes
