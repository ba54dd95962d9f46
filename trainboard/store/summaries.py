"""Series summaries, exact over every point, kept at write time (docs/storage.md, "Series summaries").

Each scalar chunk carries the summary of its points (`ChunkSummary`); each scalar series carries the summary of its
chunks, merged in as chunks are written and computed again from its chunks when points are deleted (a restart purge
rewrites or drops chunks, and their summaries with them). The same names are the columns of `scalar_chunks`, `series`
and `pin_series` on every backend.

NaN and ±inf: min, max, their steps and the sum (hence the mean) are over the finite values only, and the non-finite
values are counted; a series without a finite value has no min, max or mean. First and last are the series' first and
last points in stored order (a restart's purge drops the points it replaces), whatever their value: ±inf is kept, NaN
is stored as no value (SQL's NULL, as SQLite stores NaN). Ties: the step of the min (max) is that of the first point,
in stored order, that has it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trainboard.normaliser.points import SeriesMetadata
from trainboard.reader.hparams_names import HPARAMS_PLUGIN, SESSION_END_INFO_TAG
from trainboard.store.values import ScalarColumns

FINISHED = "finished"
FAILED = "failed"
RUNNING = "running"
STALLED = "stalled"
STATUSES = (RUNNING, FINISHED, FAILED, STALLED)

# The summary columns of a chunk and of a series, besides point_count, in this order.
COLUMNS = (
    "nonfinite_count",
    "min_value",
    "min_value_step",
    "max_value",
    "max_value_step",
    "value_sum",
    "first_step",
    "first_wall_time",
    "first_value",
    "last_step",
    "last_wall_time",
    "last_value",
)


@dataclass(frozen=True, slots=True)
class ChunkSummary:
    """The summary of consecutive points of one series (at least one)."""

    count: int
    nonfinite_count: int
    # None where no value is finite.
    min_value: float | None
    min_value_step: int | None
    max_value: float | None
    max_value_step: int | None
    value_sum: float | None
    first_step: int
    first_wall_time: float
    first_value: float | None
    last_step: int
    last_wall_time: float
    last_value: float | None

    def row(self) -> tuple[int | float | None, ...]:
        """The values of COLUMNS."""
        return (
            self.nonfinite_count,
            self.min_value,
            self.min_value_step,
            self.max_value,
            self.max_value_step,
            self.value_sum,
            self.first_step,
            self.first_wall_time,
            self.first_value,
            self.last_step,
            self.last_wall_time,
            self.last_value,
        )


def _stored(value: float) -> float | None:
    return None if value != value else value  # NaN


def chunk_summary(columns: ScalarColumns) -> ChunkSummary:
    values = columns.values
    finite = np.isfinite(values)
    # Positions in the chunk of the finite values (all of them, the common case, without a copy).
    chosen = None if finite.all() else np.flatnonzero(finite)
    kept = values if chosen is None else values[chosen]
    finite_count = len(kept)
    low = high = total = None
    if finite_count:
        # argmin and argmax give the first position of the extreme: ties keep the first point.
        low, high, total = int(kept.argmin()), int(kept.argmax()), float(kept.sum())
        if chosen is not None:
            low, high = int(chosen[low]), int(chosen[high])
    steps, wall_times = columns.steps, columns.wall_times
    return ChunkSummary(
        count=len(values),
        nonfinite_count=len(values) - finite_count,
        min_value=None if low is None else values.item(low),
        min_value_step=None if low is None else steps.item(low),
        max_value=None if high is None else values.item(high),
        max_value_step=None if high is None else steps.item(high),
        value_sum=total,
        first_step=steps.item(0),
        first_wall_time=wall_times.item(0),
        first_value=_stored(values.item(0)),
        last_step=steps.item(-1),
        last_wall_time=wall_times.item(-1),
        last_value=_stored(values.item(-1)),
    )


def merged(earlier: ChunkSummary, later: ChunkSummary) -> ChunkSummary:
    """The summary of `earlier`'s points followed by `later`'s."""
    lower = later.min_value is not None and (earlier.min_value is None or later.min_value < earlier.min_value)
    higher = later.max_value is not None and (earlier.max_value is None or later.max_value > earlier.max_value)
    sums = [s for s in (earlier.value_sum, later.value_sum) if s is not None]
    return ChunkSummary(
        count=earlier.count + later.count,
        nonfinite_count=earlier.nonfinite_count + later.nonfinite_count,
        min_value=later.min_value if lower else earlier.min_value,
        min_value_step=later.min_value_step if lower else earlier.min_value_step,
        max_value=later.max_value if higher else earlier.max_value,
        max_value_step=later.max_value_step if higher else earlier.max_value_step,
        value_sum=sum(sums) if sums else None,
        first_step=earlier.first_step,
        first_wall_time=earlier.first_wall_time,
        first_value=earlier.first_value,
        last_step=later.last_step,
        last_wall_time=later.last_wall_time,
        last_value=later.last_value,
    )


def session_end_status(metadata: dict[str, SeriesMetadata]) -> str | None:
    """FINISHED or FAILED from a batch's hparams session end, None when it has none (or one that says running)."""
    found = metadata.get(SESSION_END_INFO_TAG)
    if found is None or found.plugin_name != HPARAMS_PLUGIN:
        return None
    return end_status(found.plugin_content)


def end_status(content: bytes) -> str | None:
    # Imported by the first session end written, not by a server that only reads (trainboard.http.lazy).
    from google.protobuf.message import DecodeError

    from trainboard.reader.protos.hparams_pb2 import STATUS_FAILURE, STATUS_RUNNING, HParamsPluginData

    try:
        data = HParamsPluginData.FromString(content)
    except DecodeError:
        return None
    if data.WhichOneof("data") != "session_end_info":
        return None
    status = data.session_end_info.status
    return FAILED if status == STATUS_FAILURE else None if status == STATUS_RUNNING else FINISHED
