"""The store contract: one write path for ingest, read methods named for what they return.

Every backend (SQLite now, PostgreSQL later) implements `Store` and passes tests/store's contract suite.
Reads never wait for ingest: a reader sees the last committed batch of every file.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from trainboard.normaliser.points import Batch, DataClass, RunState, SeriesMetadata
from trainboard.reader.tail import FileCursor

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class RunRow:
    name: str
    start_time: float | None


@dataclass(frozen=True, slots=True)
class SeriesRow:
    """One (run, tag) time series with the summary the store keeps up to date at ingest."""

    id: int
    run: str
    tag: str
    metadata: SeriesMetadata
    point_count: int
    max_step: int | None
    max_wall_time: float | None
    max_length: int


@dataclass(frozen=True, slots=True)
class ScalarColumns:
    """A scalar series in insertion order, as parallel numpy arrays (int64, float64, float64)."""

    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


@dataclass(frozen=True, slots=True)
class TensorRow:
    step: int
    wall_time: float
    tensor: bytes


@dataclass(frozen=True, slots=True)
class BlobSequenceRow:
    point_id: int
    step: int
    wall_time: float
    length: int


class Store(Protocol):
    # Ingest (one writer).
    def file_cursors(self) -> dict[str, FileCursor]: ...

    def run_state(self, run: str) -> RunState | None:
        """What the normaliser remembers about `run`, or None for a run never written."""
        ...

    def write_batch(self, run: str, cursor: FileCursor, state: RunState, batch: Batch, *, restarted: bool) -> None:
        """Commit one file's new records atomically: the points, the run's state and the file's new offset."""

    # Reads (any thread).
    def settle(self) -> None:
        """After an ingest pass that wrote: make what was written as fast to read as the rest."""
        ...

    def generation(self) -> int:
        """A number that changes whenever the store's contents change."""
        ...

    def runs(self) -> list[RunRow]: ...

    def plugin_names(self) -> list[str]:
        """The plugins that own at least one series, sorted."""
        ...

    def series(
        self,
        *,
        plugin_name: str | None = None,
        data_class: DataClass | None = None,
        runs: Collection[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> list[SeriesRow]: ...

    def scalars(self, series_id: int, downsample: int | None = None) -> ScalarColumns:
        """The series' points in order; with `downsample`, only those `sample_indices` picks."""
        ...

    def last_scalars(self, series_ids: Collection[int]) -> dict[int, ScalarColumns]:
        """The last point of each of these scalar series (one query for many); series without points are left out."""
        ...

    def tensors(self, series_id: int) -> list[TensorRow]: ...

    def blob_sequences(self, series_id: int) -> list[BlobSequenceRow]: ...

    def blob(self, point_id: int, position: int) -> bytes | None: ...

    def close(self) -> None: ...
