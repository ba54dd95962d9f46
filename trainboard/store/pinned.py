"""`PinnedReader`: one experiment of a store as of a pin.

A pin records, from one snapshot, the experiment's runs and the summary of each of its series (point count and
maxima). Through a pinned reader only those runs and series exist, each with its summary then, and each series is cut
to its first `point_count` points: a series keeps its points in the order they were committed, so these are the
points it had when the pin was made, whatever was written since.

Deletions are the exception. When points of a series are deleted after the pin (TensorBoard's restart purge, a file
that was rewritten from its start, or one gone from the logdir), the series shows the first points of what it holds
now, which may include points written after the pin; a run or series deleted since is gone from the pin as well.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import Protocol

from trainboard.normaliser.points import DataClass
from trainboard.settings import STALLED_AFTER
from trainboard.store.reader import StoreReader
from trainboard.store.run_filter import RunFilter
from trainboard.store.run_filter_sql import Derived
from trainboard.store.run_values import RunValues
from trainboard.store.runs_table import RunsTable, TableQuery
from trainboard.store.values import (
    BlobSequenceRow,
    Definition,
    ExperimentRow,
    Pin,
    RunRow,
    ScalarColumns,
    SeriesRow,
    StepRange,
    TensorRow,
)

LAST_POINT = StepRange(latest=1)


class PinnableReader(StoreReader, Protocol):
    def run_values(
        self,
        experiment_id: str,
        where: RunFilter | None = None,
        *,
        pin_id: str | None = None,
        stalled_after: float = STALLED_AFTER,
        derived: Derived | None = None,
    ) -> list[RunValues]: ...

    def runs_table(
        self,
        experiment_id: str,
        query: TableQuery,
        *,
        pin_id: str | None = None,
        stalled_after: float = STALLED_AFTER,
        derived: Derived | None = None,
    ) -> RunsTable: ...


class PinnedReader:
    """Implements `StoreReader` for the experiment of `pin`."""

    def __init__(self, store: PinnableReader, pin: Pin) -> None:
        self._store = store
        self.pin = pin

    def experiments(self) -> list[ExperimentRow]:
        return self._store.experiments()

    def generation(self, experiment_id: str) -> int:
        # What a pin shows changes only when points of the experiment are deleted, which moves its generation.
        return self._store.generation(experiment_id)

    def runs(self, experiment_id: str) -> list[RunRow]:
        live = {run.name for run in self._store.runs(experiment_id)}
        return [run for run in self.pin.runs if run.name in live]

    def plugin_names(self, experiment_id: str) -> list[str]:
        return sorted({row.metadata.plugin_name for row in self.series(experiment_id)})

    def series(
        self,
        experiment_id: str,
        *,
        plugin_name: str | None = None,
        data_class: DataClass | None = None,
        runs: Collection[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> list[SeriesRow]:
        rows = self._store.series(experiment_id, plugin_name=plugin_name, data_class=data_class, runs=runs, tags=tags)
        pinned = []
        for row in rows:
            then = self.pin.series.get(row.id)
            # The same id may name another series when the pinned one was deleted (SQLite gives its id again).
            if then is not None and (then.run, then.tag) == (row.run, row.tag):
                pinned.append(
                    dataclasses.replace(
                        row,
                        point_count=then.point_count,
                        max_step=then.max_step,
                        max_wall_time=then.max_wall_time,
                        max_length=then.max_length,
                    )
                )
        return pinned

    def scalars(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> ScalarColumns:
        return self._store.scalars(
            experiment_id, series_id, downsample=downsample, steps=steps, head=self._head(series_id, head)
        )

    def last_scalars(self, experiment_id: str, series_ids: Collection[int]) -> dict[int, ScalarColumns]:
        """One read for the series that hold as many points as at the pin, one each for the others."""
        counts = {row.id: row.point_count for row in self._store.series(experiment_id, data_class=DataClass.SCALAR)}
        whole = [series_id for series_id in series_ids if counts.get(series_id) == self._head(series_id)]
        lasts = self._store.last_scalars(experiment_id, whole)
        for series_id in set(series_ids) - set(whole):
            last = self._store.scalars(experiment_id, series_id, steps=LAST_POINT, head=self._head(series_id))
            if len(last):
                lasts[series_id] = last
        return lasts

    def tensors(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> list[TensorRow]:
        return self._store.tensors(
            experiment_id, series_id, downsample=downsample, steps=steps, head=self._head(series_id, head)
        )

    def blob_sequences(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> list[BlobSequenceRow]:
        return self._store.blob_sequences(
            experiment_id, series_id, downsample=downsample, steps=steps, head=self._head(series_id, head)
        )

    def run_values(
        self,
        experiment_id: str,
        where: RunFilter | None = None,
        *,
        stalled_after: float = STALLED_AFTER,
        derived: Derived | None = None,
    ) -> list[RunValues]:
        return self._store.run_values(
            experiment_id, where, pin_id=self.pin.id, stalled_after=stalled_after, derived=derived
        )

    def runs_table(
        self,
        experiment_id: str,
        query: TableQuery,
        *,
        stalled_after: float = STALLED_AFTER,
        derived: Derived | None = None,
    ) -> RunsTable:
        """Summaries as the pin kept them (none for a pin made before 0012_series_summaries but the last values);
        statuses, times and metadata are the runs' now."""
        return self._store.runs_table(
            experiment_id, query, pin_id=self.pin.id, stalled_after=stalled_after, derived=derived
        )

    def table_fields(self, experiment_id: str) -> tuple[list[str], list[str]]:
        return self._store.table_fields(experiment_id)

    def blob(self, key: str) -> bytes | None:
        return self._store.blob(key)

    def blob_url(self, key: str) -> str | None:
        return self._store.blob_url(key)

    def pinned(self, experiment_id: str, pin_id: str) -> StoreReader | None:
        return self._store.pinned(experiment_id, pin_id)

    def definitions(self, experiment_id: str) -> list[Definition]:
        return self._store.definitions(experiment_id)

    def _head(self, series_id: int, asked: int | None = None) -> int:
        """How many of the series' first points to read: those it had at the pin, fewer if asked."""
        then = self.pin.series.get(series_id)
        count = 0 if then is None else then.point_count
        return count if asked is None else min(count, asked)
