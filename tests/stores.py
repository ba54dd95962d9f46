"""A real SQLite store with one experiment, for tests that ingest a logdir and look at what landed."""

from __future__ import annotations

from pathlib import Path

from trainboard.ingest.loader import Loader
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import RunSource
from trainboard.store.opening import open_store
from trainboard.store.store import Store
from trainboard.store.values import BlobSequenceRow, RunRow, ScalarColumns, SeriesRow, TensorRow

EXPERIMENT = "logs"


class TestStore:
    """`Store` with its one experiment's id filled in."""

    __test__ = False

    def __init__(self, path: Path) -> None:
        self.store: Store = open_store(str(path))
        self.experiment_id = self.store.create_experiment(EXPERIMENT).id

    def loader(self, logdir: RunSource, workers: int = 0) -> Loader:
        return Loader(logdir, self.store, self.experiment_id, workers=workers)

    def provider(self) -> DataProvider:
        return DataProvider(self.store)

    def runs(self) -> list[RunRow]:
        return self.store.runs(self.experiment_id)

    def series(self, runs: list[str] | None = None, tags: list[str] | None = None) -> list[SeriesRow]:
        return self.store.series(self.experiment_id, runs=runs, tags=tags)

    def scalars(self, series_id: int) -> ScalarColumns:
        return self.store.scalars(self.experiment_id, series_id)

    def tensors(self, series_id: int) -> list[TensorRow]:
        return self.store.tensors(self.experiment_id, series_id)

    def blob_sequences(self, series_id: int) -> list[BlobSequenceRow]:
        return self.store.blob_sequences(self.experiment_id, series_id)

    def blob(self, key: str) -> bytes | None:
        return self.store.blob(key)

    def close(self) -> None:
        self.store.close()
