"""The normaliser's output: plain values that the store keeps, one kind per data class."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np


class DataClass(enum.IntEnum):
    """Seed 003's three kinds of time series (SummaryMetadata.data_class)."""

    UNKNOWN = 0
    SCALAR = 1
    TENSOR = 2
    BLOB_SEQUENCE = 3


@dataclass(frozen=True, slots=True)
class SeriesMetadata:
    """What a tag is: the first SummaryMetadata seen for it in its run."""

    plugin_name: str
    data_class: DataClass
    plugin_content: bytes = b""
    display_name: str = ""
    description: str = ""


@dataclass(frozen=True, slots=True)
class ScalarPoint:
    tag: str
    step: int
    wall_time: float
    value: float


@dataclass(frozen=True, slots=True)
class ScalarSeries:
    """Consecutive scalar points of one tag, as columns (int64 steps, float64 wall times and values)."""

    tag: str
    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


@dataclass(frozen=True, slots=True)
class TensorPoint:
    """A tensor value, kept as the serialized TensorProto it arrived as (or was converted to)."""

    tag: str
    step: int
    wall_time: float
    # The record's own bytes (a view) for a large tensor.
    tensor: bytes | memoryview


@dataclass(frozen=True, slots=True)
class BlobSequencePoint:
    tag: str
    step: int
    wall_time: float
    # A tuple, or for large files an iterator the store reads once, putting each blob away before taking the next.
    blobs: Iterable[bytes | memoryview]


@dataclass(frozen=True, slots=True)
class Purge:
    """Drop points with step >= `step`: of every tag of the run when `tags` is None, else of those tags only."""

    step: int
    tags: tuple[str, ...] | None = None


Point = ScalarPoint | ScalarSeries | TensorPoint | BlobSequencePoint
Operation = Point | Purge


@dataclass(slots=True)
class RunState:
    """What the purge rules remember about a run between events, files and restarts."""

    file_version: float | None = None
    most_recent_step: int = -1
    seen_session_start: bool = False
    start_time: float | None = None
    # The first metadata of each tag: it decides the data class of all the tag's values.
    first_metadata: dict[str, SeriesMetadata] = field(default_factory=dict)

    @property
    def old_format(self) -> bool:
        """Whether the file is older than version 2 (or says no version): there a summary whose step goes back
        purges, and a restart does not."""
        return self.file_version is None or self.file_version < 2


@dataclass(slots=True)
class Batch:
    """Normalised events of one run, in file order; `metadata` holds the first metadata seen for each tag."""

    operations: list[Operation] = field(default_factory=list)
    metadata: dict[str, SeriesMetadata] = field(default_factory=dict)

    def point_count(self) -> int:
        return sum(
            len(operation.steps) if isinstance(operation, ScalarSeries) else not isinstance(operation, Purge)
            for operation in self.operations
        )
