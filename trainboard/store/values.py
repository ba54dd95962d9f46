"""What the store returns: frozen rows and numpy columns, the same from every backend."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from trainboard.normaliser.points import DataClass, SeriesMetadata


@dataclass(frozen=True, slots=True)
class ExperimentRow:
    id: str
    name: str
    description: str
    location: str
    created: float
    updated: float
    run_count: int
    # The user who owns it; None for an experiment made without accounts (`trainboard ingest`, `--logdir`).
    owner_id: int | None = None


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

    @classmethod
    def of(cls, row: Sequence[Any]) -> SeriesRow:
        """From a database row: id, run, tag, plugin name, data class, plugin content, display name, description,
        point count, max step, max wall time, max length."""
        return cls(
            id=row[0],
            run=row[1],
            tag=row[2],
            metadata=SeriesMetadata(
                plugin_name=row[3],
                data_class=DataClass(row[4]),
                plugin_content=bytes(row[5]),
                display_name=row[6],
                description=row[7],
            ),
            point_count=row[8],
            max_step=row[9],
            max_wall_time=row[10],
            max_length=row[11],
        )


@dataclass(frozen=True, slots=True)
class PinnedSeries:
    """A series as a pin saw it: its run and tag (a deleted series' id may be given again) and its summary then."""

    run: str
    tag: str
    point_count: int
    max_step: int | None
    max_wall_time: float | None
    max_length: int


@dataclass(frozen=True, slots=True)
class PinRow:
    """A pin as its list shows it: its id, when it was made and by which user (None: made without accounts)."""

    id: str
    created: float
    creator: int | None


@dataclass(frozen=True, slots=True)
class Pin:
    """An experiment's ingest position at one moment: its runs then, and each series' summary then by series id."""

    id: str
    created: float
    runs: tuple[RunRow, ...]
    series: Mapping[int, PinnedSeries]

    @classmethod
    def of(cls, pin_id: str, created: float, runs: Sequence[Sequence[Any]], series: Sequence[Sequence[Any]]) -> Pin:
        """From database rows: runs (run id, name, start time) in order, and series (series id, run id, tag, point
        count, max step, max wall time, max length)."""
        names = {run[0]: run[1] for run in runs}
        return cls(
            id=pin_id,
            created=created,
            runs=tuple(RunRow(name=name, start_time=start_time) for _, name, start_time in runs),
            series={row[0]: PinnedSeries(names[row[1]], *row[2:]) for row in series},
        )


@dataclass(frozen=True, slots=True)
class ScalarColumns:
    """Scalar points in insertion order, as parallel numpy arrays (int64, float64, float64)."""

    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.steps)


@dataclass(frozen=True, slots=True)
class ChunkIndex:
    """The packed scalar chunks of one series in order: ids, point counts, step bounds and checksums (int64 arrays; a
    checksum of -1: none, a chunk written before checksums)."""

    ids: np.ndarray
    counts: np.ndarray
    min_steps: np.ndarray
    max_steps: np.ndarray
    checksums: np.ndarray

    @classmethod
    def of(cls, rows: Sequence[Sequence[int]]) -> ChunkIndex:
        """From database rows: id, point count, min step, max step, checksum (-1 for none)."""
        columns = np.array(rows, dtype=np.int64).reshape(-1, 5)
        return cls(columns[:, 0], columns[:, 1], columns[:, 2], columns[:, 3], columns[:, 4])


@dataclass(frozen=True, slots=True)
class PointIndex:
    """The points of one tensor series in order, without their values: ids, steps and wall times."""

    ids: np.ndarray
    steps: np.ndarray
    wall_times: np.ndarray


@dataclass(frozen=True, slots=True)
class TensorRow:
    step: int
    wall_time: float
    tensor: bytes


@dataclass(frozen=True, slots=True)
class BlobSequenceRow:
    step: int
    wall_time: float
    blob_keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StepRange:
    """Points with `first <= step <= last` (None: unbounded), or only the `latest` points (the last k logged)."""

    first: int | None = None
    last: int | None = None
    latest: int | None = None

    def __post_init__(self) -> None:
        if self.latest is not None and (self.first is not None or self.last is not None):
            raise ValueError("a step range is either bounds or the latest k points, not both")
        if self.latest is not None and self.latest < 0:
            raise ValueError(f"latest must be non-negative, not {self.latest}")

    def contains(self, step: int) -> bool:
        return (self.first is None or step >= self.first) and (self.last is None or step <= self.last)


ALL_STEPS = StepRange()


@dataclass(frozen=True, slots=True)
class Definition:
    """A derived metric of an experiment: its name (a scalar tag once defined), its expression
    (`trainboard.expressions.syntax`) and how it aligns series by step: "exact" or "asof"."""

    name: str
    expression: str
    align: str
