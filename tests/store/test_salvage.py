"""A local store built again (found damaged, or its first load did not end) keeps what users wrote into it — run
notes, labels, stars, colours, saved views, derived metrics — since the logdir it is rebuilt from has none of it."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from pathlib import Path

import pytest

from tests.logdirs import write_tensorboard_run
from trainboard.ingest.loader import Loader
from trainboard.reader.logdir import LogDir
from trainboard.store.opening import open_store
from trainboard.store.run_metadata import MetadataChange, RunMetadata
from trainboard.store.sqlite.database import SqliteDatabase
from trainboard.store.sqlite.first_load import sentinel_of
from trainboard.store.sqlite.salvage import salvage
from trainboard.store.store import Store
from trainboard.store.values import Definition

NOTES = "lr **halved** at step 40"


def authored(store: Store, logdir: Path) -> str:
    """The logdir ingested into `store` and a user's writes on it; the experiment's id."""
    experiment_id = store.create_experiment(str(logdir), location=str(logdir)).id
    Loader(LogDir(str(logdir)), store, experiment_id).poll()
    (run,) = [row.name for row in store.database.runs(experiment_id)]
    store.change_run_metadata(
        experiment_id, [run], MetadataChange(notes=NOTES, starred=True, color="#aa3300", add_labels=("baseline",))
    )
    store.save_definition(experiment_id, Definition("double", "2 * loss", "exact"))
    store.save_view(experiment_id, "losses", {"dashboard": "scalars", "filter": "loss < 1"})
    return experiment_id


def written(store: Store, experiment_id: str) -> tuple[list[RunMetadata], list[Definition], list[str]]:
    return (
        store.run_metadata(experiment_id),
        store.definitions(experiment_id),
        [view.name for view in store.views(experiment_id)],
    )


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    write_tensorboard_run(root)
    return root


def test_a_store_rebuilt_while_serving_keeps_what_users_wrote(logdir: Path, tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "store.sqlite"), rebuildable=True, cached=True)
    try:
        experiment_id = authored(store, logdir)
        before = written(store, experiment_id)
        assert before[0][0].notes == NOTES and before[1] and before[2] == ["losses"]
        moved = store.rebuild()
        assert Path(moved).exists()
        Loader(LogDir(str(logdir)), store, experiment_id).poll()
        assert written(store, experiment_id) == before
    finally:
        store.close()


def test_a_store_whose_first_load_did_not_end_keeps_what_users_wrote(logdir: Path, tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = open_store(str(path))
    experiment_id = authored(store, logdir)
    before = written(store, experiment_id)
    store.close()
    sentinel_of(path).touch()  # as a first load killed midway leaves it
    store = open_store(str(path), rebuildable=True, cached=True)
    try:
        assert list(tmp_path.glob("store.sqlite.damaged-*")), "the unfinished store was not moved aside"
        # The same experiment (its id kept): the ingest that follows fills it again.
        assert store.create_experiment(str(logdir), location=str(logdir)).id == experiment_id
        Loader(LogDir(str(logdir)), store, experiment_id).poll()
        assert written(store, experiment_id) == before
    finally:
        store.close()


def test_damage_in_one_written_table_loses_only_that_table(
    logdir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "old.sqlite"
    store = open_store(str(path))
    experiment_id = authored(store, logdir)
    store.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        (page,) = db.execute("SELECT pageno FROM dbstat WHERE name = 'saved_views' AND ncell > 0").fetchall()
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
    with path.open("r+b") as file:
        file.seek((page[0] - 1) * page_size)
        file.write(b"\xfe" * page_size)
    new = SqliteDatabase(tmp_path / "new.sqlite")
    with caplog.at_level(logging.WARNING, logger="trainboard.store"):
        copied = salvage(path, new.writer)
    assert new.run_metadata.views(experiment_id) == []
    assert [row.notes for row in new.run_metadata.run_metadata(experiment_id)] == [NOTES]
    assert [d.name for d in new.definitions(experiment_id)] == ["double"]
    assert copied == 4  # the experiment, its run's metadata, its label, its definition
    assert "saved_views" in caplog.text
