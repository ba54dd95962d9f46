"""The provider's immutable result values (seed 003), mirroring TensorBoard's `data/provider.py`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from trainboard.normaliser.points import DataClass, SeriesMetadata
from trainboard.store import run_filter as _run_filter
from trainboard.store.run_filter import RunFilter as RunFilter
from trainboard.store.run_filter import Term as Term
from trainboard.store.run_values import RunValues as RunValues
from trainboard.store.runs_table import RunsTable as RunsTable
from trainboard.store.runs_table import SortKey as SortKey
from trainboard.store.runs_table import TableQuery as TableQuery
from trainboard.store.values import ScalarColumns as ScalarColumns
from trainboard.store.values import StepRange as StepRange
from trainboard.store.values import TensorRow as TensorRow

if TYPE_CHECKING:
    import numpy as np

Points = TypeVar("Points")

# The run filter language, for plugins.
parse_filter = _run_filter.parse
parse_terms = _run_filter.parse_terms


@dataclass(frozen=True, slots=True)
class RunTagFilter:
    """Selects time series by run and tag names, with cross-product semantics; None means all."""

    runs: frozenset[str] | None = None
    tags: frozenset[str] | None = None

    @classmethod
    def of(cls, runs: Collection[str] | None = None, tags: Collection[str] | None = None) -> RunTagFilter:
        for name, value in (("runs", runs), ("tags", tags)):
            if isinstance(value, str | bytes):
                raise TypeError(f"{name} must be a collection of strings, not a single string: {value!r}")
        return cls(
            runs=None if runs is None else frozenset(runs),
            tags=None if tags is None else frozenset(tags),
        )


@dataclass(frozen=True, slots=True)
class Run:
    run_id: str
    run_name: str
    start_time: float | None


@dataclass(frozen=True, slots=True)
class TimeSeries:
    """Metadata of one scalar or tensor time series."""

    max_step: int | None
    max_wall_time: float | None
    plugin_content: bytes
    description: str
    display_name: str
    point_count: int


@dataclass(frozen=True, slots=True)
class BlobSequenceTimeSeries:
    max_step: int | None
    max_wall_time: float | None
    max_length: int
    plugin_content: bytes
    description: str
    display_name: str
    point_count: int


@dataclass(frozen=True, slots=True)
class ScalarDatum:
    step: int
    wall_time: float
    value: float


@dataclass(frozen=True, slots=True)
class TensorDatum:
    step: int
    wall_time: float
    numpy: np.ndarray


@dataclass(frozen=True, slots=True)
class BlobReference:
    """An opaque key for `read_blob`, and a URL when the blob can be fetched directly."""

    blob_key: str
    url: str | None = None


@dataclass(frozen=True, slots=True)
class BlobSequenceDatum:
    step: int
    wall_time: float
    values: tuple[BlobReference, ...]


@dataclass(frozen=True, slots=True)
class ExperimentMetadata:
    data_location: str
    experiment_name: str = ""
    experiment_description: str = ""
    creation_time: float = 0


@dataclass(frozen=True, slots=True)
class ExperimentSummary:
    """One experiment of a store, as `/data/experiments` lists it."""

    experiment_id: str
    name: str
    description: str
    creation_time: float
    last_update: float
    run_count: int


@dataclass(frozen=True, slots=True)
class IndexRange:
    """Blobs of a sequence with `first <= index <= last` (None: unbounded), or only the last one (`latest`)."""

    first: int | None = None
    last: int | None = None
    latest: bool = False

    def __post_init__(self) -> None:
        if self.latest and (self.first is not None or self.last is not None):
            raise ValueError("an index range is either bounds or the latest index, not both")

    def pick(self, length: int) -> range:
        if self.latest:
            return range(max(0, length - 1), length)
        first = 0 if self.first is None else max(0, self.first)
        last = length - 1 if self.last is None else min(length - 1, self.last)
        return range(first, last + 1)


@dataclass(frozen=True, slots=True)
class Listed:
    """What the top-level listing says of one series: its kind and its metadata."""

    data_class: DataClass
    plugin_content: bytes
    description: str
    display_name: str


@dataclass(frozen=True, slots=True)
class SeriesPoints(Generic[Points]):
    """Every point of one series (the provider's `stream_*` reads), with the metadata it was logged with."""

    run: str
    tag: str
    metadata: SeriesMetadata
    points: Points
