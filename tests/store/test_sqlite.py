"""What only the SQLite backend does: its file, its migrations from the store of one logdir, its errors."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from trainboard.ingest.loader import Loader
from trainboard.reader.logdir import LogDir
from trainboard.store.errors import StoreUnavailable
from trainboard.store.opening import open_store, sqlite_path


def test_a_store_of_one_logdir_from_before_experiments_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        old.executemany("INSERT INTO migrations VALUES (?, 0)", [("0001_initial",), ("0002_generation",)])
        old.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, start_time REAL)")
        old.execute("INSERT INTO runs (name) VALUES ('train')")
        old.execute("CREATE TABLE generation (value INTEGER NOT NULL)")
    store = open_store(str(path))
    try:
        experiment = store.create_experiment("logs")
        assert store.runs(experiment.id) == []  # read again from the logdir, into the new layout
        assert [e.name for e in store.experiments()] == ["logs"]
    finally:
        store.close()


def test_tensorboards_url_forms_name_the_same_file(tmp_path: Path) -> None:
    target = tmp_path / "x.db"
    for url in (str(target), f"sqlite:{target}", f"sqlite://{target}"):
        assert sqlite_path(url) == target
    assert sqlite_path("sqlite:~/x.db") == Path.home() / "x.db"


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        (lambda p: p.write_bytes(b"no database here" * 64), "is not a trainboard store"),
        (lambda p: (p.parent / "file").write_text("x"), "cannot open the store"),
    ],
    ids=["not-a-database", "parent-is-a-file"],
)
def test_a_store_that_cannot_be_opened_says_which_and_why(tmp_path: Path, setup: object, expected: str) -> None:
    directory = tmp_path / "stores"
    directory.mkdir()
    path = directory / "store.sqlite"
    setup(path)  # type: ignore[operator]
    if expected == "cannot open the store":
        path = directory / "file" / "store.sqlite"
    with pytest.raises(StoreUnavailable, match=expected) as raised:
        open_store(str(path))
    assert str(path) in str(raised.value)


def test_processes_opening_a_new_store_at_once_migrate_it_once(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    program = "import sys; from trainboard.store.opening import open_store; open_store(sys.argv[1]).close()"
    openers = [subprocess.Popen([sys.executable, "-c", program, str(path)], stderr=subprocess.PIPE) for _ in range(6)]
    for opener in openers:
        _, errors = opener.communicate(timeout=60)
        assert opener.returncode == 0, errors.decode()
    with sqlite3.connect(path) as opened:
        names = [name for (name,) in opened.execute("SELECT name FROM migrations")]
    assert len(names) == len(set(names)) and names


def test_deleting_an_experiment_removes_its_writer_lock_file(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "store.sqlite"))
    try:
        experiment_id = store.create_experiment("logs").id
        lock = tmp_path / f"store.sqlite.{experiment_id}.writer"
        store.create_pin(experiment_id)
        assert store.delete_experiment(experiment_id) and not lock.exists()
        # Blob keys of an experiment sort between `<id>/` and `<id>0`: its neighbours' are kept.
        neighbours = {f"{experiment_id}{tail}/{0:064x}": tail.encode() for tail in ("-", ".", "_", "0", "a")}
        store.blobs.put(neighbours)
        store.blobs.delete_experiment(experiment_id)
        assert {key: store.blobs.get(key) for key in neighbours} == neighbours
    finally:
        store.close()


def test_new_stores_have_16_kib_pages_and_older_ones_keep_theirs(tmp_path: Path, full_logdir: Path) -> None:
    older = tmp_path / "older.sqlite"
    with sqlite3.connect(older) as made_before:
        made_before.execute("PRAGMA page_size = 4096")
        made_before.execute("PRAGMA journal_mode = WAL")
    counts = {}
    for path, pages in ((tmp_path / "new.sqlite", 16384), (older, 4096)):
        store = open_store(str(path))
        try:
            experiment = store.create_experiment("logs")
            Loader(LogDir(str(full_logdir)), store, experiment.id).poll()
            counts[pages] = {(row.run, row.tag): row.point_count for row in store.series(experiment.id)}
        finally:
            store.close()
        with sqlite3.connect(path) as opened:
            assert opened.execute("PRAGMA page_size").fetchone()[0] == pages
    assert counts[16384] == counts[4096] and len(counts[4096]) > 10
