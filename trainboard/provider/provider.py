"""The data provider: seed 003's read API over any store.

Data model. An experiment (one logdir) has runs; a run has tags; each (run, tag) is one time series owned by one
plugin and of one data class: scalar (a float per step), tensor (an n-d array per step) or blob sequence (a list of
byte strings per step, such as the images of one summary). Points are keyed by step and come back in the order they
were logged, after the restart purges TensorBoard applies.

Every `list_*` call returns `{run: {tag: metadata}}` and every `read_*` call `{run: {tag: [datum, ...]}}` for the
series of the given plugin and data class that pass the run/tag filter; runs without such series are left out.

Downsampling. `downsample=k` returns at most k points per series, evenly spaced by position, always including the
first and the last point. The choice depends only on the series' length and k, so the tags of a run that were logged
at the same steps come back at the same steps. `downsample=None` returns every point: the store is lossless.

Blob keys are opaque strings; `read_blob` takes one back. Errors are `trainboard.errors.PublicError`s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from trainboard.errors import InvalidArgumentError, NotFoundError
from trainboard.normaliser.points import DataClass
from trainboard.provider.values import (
    BlobReference,
    BlobSequenceDatum,
    BlobSequenceTimeSeries,
    ExperimentMetadata,
    Run,
    RunTagFilter,
    ScalarDatum,
    TensorDatum,
    TimeSeries,
)
from trainboard.reader.tensors import to_ndarray
from trainboard.store.downsample import sample_indices
from trainboard.store.protocol import ScalarColumns, SeriesRow, Store

T = TypeVar("T")
EMPTY_SCALARS = ScalarColumns(
    steps=np.zeros(0, dtype=np.int64), wall_times=np.zeros(0, dtype=np.float64), values=np.zeros(0, dtype=np.float64)
)
Nested = dict[str, dict[str, T]]


class DataProvider:
    def __init__(self, store: Store, *, data_location: str, experiment_name: str = "") -> None:
        self._store = store
        self._data_location = data_location
        self._experiment_name = experiment_name
        # Unfiltered listings by plugin and kind, with the store generation they were made at.
        self._listings: dict[tuple[object, ...], tuple[int, Any]] = {}

    def experiment_metadata(self) -> ExperimentMetadata:
        return ExperimentMetadata(data_location=self._data_location, experiment_name=self._experiment_name)

    def generation(self) -> int:
        """A number that changes whenever the data changes: a caller may keep what it derived until then."""
        return self._store.generation()

    def list_plugins(self) -> list[str]:
        """Plugins that own at least one time series."""
        return self._store.plugin_names()

    def list_runs(self) -> list[Run]:
        return [Run(run_id=row.name, run_name=row.name, start_time=row.start_time) for row in self._store.runs()]

    def list_scalars(self, *, plugin_name: str, run_tag_filter: RunTagFilter | None = None) -> Nested[TimeSeries]:
        return self._list(plugin_name, DataClass.SCALAR, run_tag_filter, _time_series)

    def read_scalars(
        self, *, plugin_name: str, downsample: int | None, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[list[ScalarDatum]]:
        return {
            run: {
                tag: [
                    ScalarDatum(step=s, wall_time=w, value=v)
                    for s, w, v in zip(
                        columns.steps.tolist(), columns.wall_times.tolist(), columns.values.tolist(), strict=True
                    )
                ]
                for tag, columns in by_tag.items()
            }
            for run, by_tag in self.read_scalar_columns(
                plugin_name=plugin_name, downsample=downsample, run_tag_filter=run_tag_filter
            ).items()
        }

    def read_scalar_columns(
        self, *, plugin_name: str, downsample: int | None, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[ScalarColumns]:
        """`read_scalars` as numpy columns, for callers that serve many points."""
        _check_downsample(downsample)
        result: Nested[ScalarColumns] = {}
        rows = self._series(plugin_name, DataClass.SCALAR, run_tag_filter)
        if downsample == 1:  # the last point of each series, which many callers (hparams metrics) want, in one read
            lasts = self._store.last_scalars([row.id for row in rows])
            for row in rows:
                result.setdefault(row.run, {})[row.tag] = lasts.get(row.id, EMPTY_SCALARS)
            return result
        for row in rows:
            result.setdefault(row.run, {})[row.tag] = self._store.scalars(row.id, downsample)
        return result

    def list_tensors(self, *, plugin_name: str, run_tag_filter: RunTagFilter | None = None) -> Nested[TimeSeries]:
        return self._list(plugin_name, DataClass.TENSOR, run_tag_filter, _time_series)

    def read_tensors(
        self, *, plugin_name: str, downsample: int | None, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[list[TensorDatum]]:
        _check_downsample(downsample)
        result: Nested[list[TensorDatum]] = {}
        for row in self._series(plugin_name, DataClass.TENSOR, run_tag_filter):
            points = self._store.tensors(row.id)
            result.setdefault(row.run, {})[row.tag] = [
                TensorDatum(step=points[i].step, wall_time=points[i].wall_time, numpy=to_ndarray(points[i].tensor))
                for i in sample_indices(len(points), downsample).tolist()
            ]
        return result

    def list_blob_sequences(
        self, *, plugin_name: str, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[BlobSequenceTimeSeries]:
        return self._list(plugin_name, DataClass.BLOB_SEQUENCE, run_tag_filter, _blob_sequence_time_series)

    def read_blob_sequences(
        self, *, plugin_name: str, downsample: int | None, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[list[BlobSequenceDatum]]:
        _check_downsample(downsample)
        result: Nested[list[BlobSequenceDatum]] = {}
        for row in self._series(plugin_name, DataClass.BLOB_SEQUENCE, run_tag_filter):
            points = self._store.blob_sequences(row.id)
            result.setdefault(row.run, {})[row.tag] = [
                BlobSequenceDatum(
                    step=points[i].step,
                    wall_time=points[i].wall_time,
                    values=tuple(
                        BlobReference(blob_key=f"{points[i].point_id}.{position}")
                        for position in range(points[i].length)
                    ),
                )
                for i in sample_indices(len(points), downsample).tolist()
            ]
        return result

    def read_blob(self, *, blob_key: str) -> bytes:
        point_id, dot, position = blob_key.partition(".")
        if not (dot and point_id.isdigit() and position.isdigit()):
            raise InvalidArgumentError(f"malformed blob key: {blob_key!r}")
        blob = self._store.blob(int(point_id), int(position))
        if blob is None:
            raise NotFoundError(f"no blob with key {blob_key!r}")
        return blob

    def _series(self, plugin_name: str, data_class: DataClass, run_tag_filter: RunTagFilter | None) -> list[SeriesRow]:
        run_tag_filter = run_tag_filter or RunTagFilter()
        return self._store.series(
            plugin_name=plugin_name, data_class=data_class, runs=run_tag_filter.runs, tags=run_tag_filter.tags
        )

    def _list(
        self,
        plugin_name: str,
        data_class: DataClass,
        run_tag_filter: RunTagFilter | None,
        describe: Callable[[SeriesRow], T],
    ) -> Nested[T]:
        if run_tag_filter is not None:
            return self._listing(plugin_name, data_class, run_tag_filter, describe)
        # Whole listings are what dashboards ask for most: kept until the store changes.
        key = (plugin_name, data_class, describe)
        generation = self._store.generation()
        cached = self._listings.get(key)
        if cached is None or cached[0] != generation:
            cached = (generation, self._listing(plugin_name, data_class, None, describe))
            self._listings[key] = cached
        return {run: dict(by_tag) for run, by_tag in cached[1].items()}

    def _listing(
        self,
        plugin_name: str,
        data_class: DataClass,
        run_tag_filter: RunTagFilter | None,
        describe: Callable[[SeriesRow], T],
    ) -> Nested[T]:
        listing: Nested[T] = {}
        for row in self._series(plugin_name, data_class, run_tag_filter):
            listing.setdefault(row.run, {})[row.tag] = describe(row)
        return listing


def _check_downsample(downsample: int | None) -> None:
    if downsample is not None and downsample < 0:
        raise InvalidArgumentError(f"downsample must be non-negative, not {downsample}")


def _time_series(row: SeriesRow) -> TimeSeries:
    return TimeSeries(
        max_step=row.max_step,
        max_wall_time=row.max_wall_time,
        plugin_content=row.metadata.plugin_content,
        description=row.metadata.description,
        display_name=row.metadata.display_name,
        point_count=row.point_count,
    )


def _blob_sequence_time_series(row: SeriesRow) -> BlobSequenceTimeSeries:
    return BlobSequenceTimeSeries(
        max_step=row.max_step,
        max_wall_time=row.max_wall_time,
        max_length=row.max_length,
        plugin_content=row.metadata.plugin_content,
        description=row.metadata.description,
        display_name=row.metadata.display_name,
        point_count=row.point_count,
    )
