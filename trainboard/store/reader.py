"""The read contract: what the provider reads from a store, every call naming its experiment, and finding
nothing of another: not its series or points, whatever ids are given (a blob's key names its experiment).

Reads never wait for ingest: a reader sees the last committed batch of every file.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from trainboard.normaliser.points import DataClass
from trainboard.settings import STALLED_AFTER
from trainboard.store.run_filter import RunFilter
from trainboard.store.run_filter_sql import Derived
from trainboard.store.run_values import RunValues
from trainboard.store.runs_table import RunsTable, TableQuery
from trainboard.store.values import (
    BlobSequenceRow,
    Definition,
    ExperimentRow,
    RunRow,
    ScalarColumns,
    SeriesRow,
    StepRange,
    TensorRow,
)


class StoreReader(Protocol):
    def experiments(self) -> list[ExperimentRow]: ...

    def generation(self, experiment_id: str) -> int:
        """A number that changes whenever the experiment's contents change."""

    def runs(self, experiment_id: str) -> list[RunRow]: ...

    def plugin_names(self, experiment_id: str) -> list[str]:
        """The plugins that own at least one series, sorted."""

    def series(
        self,
        experiment_id: str,
        *,
        plugin_name: str | None = None,
        data_class: DataClass | None = None,
        runs: Collection[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> list[SeriesRow]: ...

    def scalars(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> ScalarColumns:
        """The series' points in order within `steps`; with `downsample`, only those `sample_indices` picks; with
        `head`, of its first `head` points only (what a pin shows)."""

    def last_scalars(self, experiment_id: str, series_ids: Collection[int]) -> dict[int, ScalarColumns]:
        """The last point of each of these scalar series (one query for many); series without points are left out."""

    def tensors(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> list[TensorRow]:
        """As `scalars`; only the chosen points' tensors are read."""

    def blob_sequences(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> list[BlobSequenceRow]:
        """As `scalars`."""

    def run_values(
        self,
        experiment_id: str,
        where: RunFilter | None = None,
        *,
        stalled_after: float = STALLED_AFTER,
        derived: Derived | None = None,
    ) -> list[RunValues]:
        """The runs the filter keeps (all without one), in run order, with their hyperparameters and final metric
        values: the filter is evaluated by the database (`trainboard.store.run_filter`), the tags of `derived` read
        from its summaries; a run without an end status and without a point for `stalled_after` seconds is stalled."""

    def runs_table(
        self,
        experiment_id: str,
        query: TableQuery,
        *,
        stalled_after: float = STALLED_AFTER,
        derived: Derived | None = None,
    ) -> RunsTable:
        """The runs table (`trainboard.store.runs_table`): a page of the runs the filter keeps, sorted, with the
        columns asked for, all evaluated by the database; the tags of `derived` read from its summaries."""

    def table_fields(self, experiment_id: str) -> tuple[list[str], list[str]]:
        """The names of the experiment's hyperparameters and of its scalar tags, each sorted."""

    def blob(self, key: str) -> bytes | None: ...

    def blob_url(self, key: str) -> str | None:
        """A short-lived URL for the blob where the blob store can sign one."""

    def definitions(self, experiment_id: str) -> list[Definition]:
        """The experiment's derived metrics, by name (a pin shows today's definitions over its points)."""

    def pinned(self, experiment_id: str, pin_id: str) -> StoreReader | None:
        """The experiment as of one of its pins (`trainboard.store.pinned`); None for a pin it does not have."""
