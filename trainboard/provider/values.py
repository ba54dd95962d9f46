"""The provider's immutable result values (seed 003), mirroring TensorBoard's `data/provider.py`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


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
