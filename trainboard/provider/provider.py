"""The data provider: seed 003's read API over any store.

Data model. A store holds experiments; an experiment (one logdir) has runs; a run has tags; each (run, tag) is one
time series owned by one plugin and of one data class: scalar (a float per step), tensor (an n-d array per step) or
blob sequence (a list of byte strings per step, such as the images of one summary). Points are keyed by step and come
back in the order they were logged, after the restart purges TensorBoard applies. Every call names its experiment.

Every `list_*` call returns `{run: {tag: metadata}}` and every `read_*` call `{run: {tag: [datum, ...]}}` for the
series of the given plugin and data class that pass the run/tag filter; runs without such series are left out.
`list_series` is the top-level call: every series of a plugin, of any kind.

Filters. `steps` keeps points with a step in its bounds, or only the latest k points; on blob sequences `indices`
keeps blobs of each datum by index range, or the last one.

Downsampling. `downsample=k` returns at most k points per series (after `steps`), evenly spaced by position, always
including the first and the last point. The choice depends only on the series' length and k, so the tags of a run
that were logged at the same steps come back at the same steps. `downsample=None` returns every point: the store is
lossless. Only the chosen points are read.

Every point. The `stream_*` reads give every point (no downsampling) of each series they select, one series at a
time, runs in walk order and each run's tags by name, each series with the metadata it was logged with: for
readers that promise every point (the Python API, downloads, exports). `plugin_name=None` selects the series of
every plugin.

Bounds. A read whose answer would hold more than `max_points` points (runs x tags x points) is refused with an
`InvalidArgumentError` naming the bound, before anything is read; a stream holds one series at a time, and each is
bounded as one read.

Run order. Runs come in the logdir's walk order (`trainboard.reader.logdir.walk_order`) in every answer.

Pins. `at(pin=...)` gives a provider of the experiment as of one of its pins: the runs, tags and points it had then
(`trainboard.store.pinned` says what deletions since change).

Derived metrics. The scalars plugin's listings and reads hold, beside its logged tags, the experiment's derived
metrics (`trainboard.provider.derived`): a scalar series per run that has what its expression needs, read, filtered,
bounded and downsampled as a logged one. `define` and `undefine` change them (not on a pin's provider).

Blob keys are opaque strings, valid within their experiment; `read_blob` takes one back, and `BlobReference.url` is a
short-lived URL when the blob store can sign one. Errors are `trainboard.errors.PublicError`s.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import TypeVar

import numpy as np

from trainboard.errors import InvalidArgumentError, NoSuchExperiment, NotFoundError
from trainboard.normaliser.points import DataClass, SeriesMetadata
from trainboard.provider.cache import GenerationCache
from trainboard.provider.derived import PLUGIN_NAME as DERIVED_PLUGIN_NAME
from trainboard.provider.derived import DefinitionWriter, DerivedMetrics
from trainboard.provider.values import (
    BlobReference,
    BlobSequenceDatum,
    BlobSequenceTimeSeries,
    ExperimentMetadata,
    ExperimentSummary,
    IndexRange,
    Listed,
    Run,
    RunFilter,
    RunsTable,
    RunTagFilter,
    RunValues,
    ScalarColumns,
    ScalarDatum,
    SeriesPoints,
    StepRange,
    TableQuery,
    TensorDatum,
    TensorRow,
    TimeSeries,
)
from trainboard.reader.logdir import walk_order
from trainboard.settings import STALLED_AFTER
from trainboard.store.downsample import sample_indices
from trainboard.store.reader import StoreReader
from trainboard.store.run_filter import FUNCTIONS, Term, comparisons
from trainboard.store.run_filter_sql import Derived
from trainboard.store.runs_table import default_columns
from trainboard.store.store import EMPTY_SCALARS
from trainboard.store.summaries import ChunkSummary, chunk_summary
from trainboard.store.values import Definition, SeriesRow

T = TypeVar("T")
Nested = dict[str, dict[str, T]]

# The most points one read may answer with (runs x tags x points), by data class.
MAX_POINTS = {DataClass.SCALAR: 50_000_000, DataClass.TENSOR: 1_000_000, DataClass.BLOB_SEQUENCE: 1_000_000}
_BLOB_KEY = re.compile(r"[0-9a-f]{64}")


class DataProvider:
    def __init__(
        self,
        store: StoreReader,
        *,
        max_points: dict[DataClass, int] | None = None,
        writer: DefinitionWriter | None = None,
        stalled_after: float = STALLED_AFTER,
    ) -> None:
        self._store = store
        self._max_points = max_points or MAX_POINTS
        self._derived = DerivedMetrics(store)
        self._writer = writer
        # Seconds without a point after which a run without an end status is stalled (--stalled_after).
        self._stalled_after = stalled_after
        # Unfiltered listings, and what callers derived from whole listings (`derived`).
        self._kept = GenerationCache(store.generation)

    def list_experiments(self) -> list[ExperimentSummary]:
        return [
            ExperimentSummary(
                experiment_id=row.id,
                name=row.name,
                description=row.description,
                creation_time=row.created,
                last_update=row.updated,
                run_count=row.run_count,
            )
            for row in self._store.experiments()
        ]

    def experiment_metadata(self, *, experiment_id: str) -> ExperimentMetadata:
        for row in self._store.experiments():
            if row.id == experiment_id:
                # An experiment named by its logdir (`trainboard --logdir`) has no name of its own, as in TensorBoard.
                return ExperimentMetadata(
                    data_location=row.location or row.name,
                    experiment_name="" if row.name == row.location else row.name,
                    experiment_description=row.description,
                    creation_time=row.created,
                )
        raise NoSuchExperiment()

    def at(self, *, experiment_id: str, pin: str) -> DataProvider:
        """The experiment as it was when the pin was made: a provider of its own, which caches apart from this one."""
        pinned = self._store.pinned(experiment_id, pin)
        if pinned is None:
            raise NoSuchExperiment()
        return DataProvider(pinned, max_points=self._max_points, stalled_after=self._stalled_after)

    def generation(self, *, experiment_id: str) -> int:
        """A number that changes whenever the data changes: a caller may keep what it derived until then."""
        return self._store.generation(experiment_id)

    def derived(self, experiment_id: str, key: str, build: Callable[[], T]) -> T:
        """What `build` makes of the experiment's data, kept until that data changes: for whole answers dashboards ask
        for again and again (a logdir of 10,000 runs lists 100,000 series). The answer is shared: not to be changed."""
        return self._kept.get(experiment_id, ("derived", key), build)

    def definitions(self, *, experiment_id: str) -> list[Definition]:
        """The experiment's derived metrics, by name."""
        return list(self._derived.definitions(experiment_id).values())

    def define(self, *, experiment_id: str, name: str, expression: str, align: str = "exact") -> Definition:
        """Add (or replace) a derived metric, checked first: `InvalidArgumentError`, an `ExpressionError` with the
        position for its expression."""
        if self._writer is None:
            raise InvalidArgumentError("derived metrics cannot be defined here (a pin shows the experiment as it was)")
        definition = Definition(name, expression, align)
        self._derived.check(experiment_id, definition)
        self._writer.save_definition(experiment_id, definition)
        return definition

    def undefine(self, *, experiment_id: str, name: str) -> None:
        if self._writer is None:
            raise InvalidArgumentError("derived metrics cannot be removed here (a pin shows the experiment as it was)")
        if not self._writer.delete_definition(experiment_id, name):
            raise NotFoundError(f"no derived metric is named {name[:100]!r}")

    def list_plugins(self, *, experiment_id: str) -> list[str]:
        """Plugins that own at least one time series."""
        return self._store.plugin_names(experiment_id)

    def list_runs(self, *, experiment_id: str) -> list[Run]:
        """The runs in the logdir's walk order."""
        rows = sorted(self._store.runs(experiment_id), key=lambda row: walk_order(row.name))
        return [Run(run_id=row.name, run_name=row.name, start_time=row.start_time) for row in rows]

    def list_run_values(self, *, experiment_id: str, run_filter: RunFilter | None = None) -> list[RunValues]:
        """The runs the filter keeps (every run without one), in walk order, each with its hyperparameters and the last
        value of each of its scalar series; the store evaluates the filter (`trainboard.store.run_filter`)."""
        derived = self._derived_summaries(experiment_id, [compare.term for compare in comparisons(run_filter)])
        found = self._store.run_values(experiment_id, run_filter, stalled_after=self._stalled_after, derived=derived)
        return sorted(found, key=lambda values: walk_order(values.run))

    def runs_table(self, *, experiment_id: str, query: TableQuery) -> RunsTable:
        """A page of the runs the query's filter keeps, sorted, with its columns (`trainboard.store.runs_table`), all
        evaluated by the store; without a sort, by name. Without columns: the run's own (status, start time, last
        step), its metadata, each hyperparameter and the last value of each scalar tag and derived metric. A column or
        sort key that names no hyperparameter, scalar tag or derived metric of the experiment is an
        InvalidArgumentError (a filter may name any)."""
        hparams, logged = self._store.table_fields(experiment_id)
        tags = sorted({*logged, *self._derived.definitions(experiment_id)})
        if not query.columns:
            query = dataclasses.replace(query, columns=default_columns(hparams, tags))
        known_tags, known = set(tags), set(hparams) | set(tags)
        for term in (*query.columns, *(key.term for key in query.sort)):
            if term.kind == "field" and term.field not in known:
                raise InvalidArgumentError(f"unknown column {term.label[:200]!r}: no hparam or scalar tag of that name")
            if term.kind in FUNCTIONS and term.field not in known_tags:
                raise InvalidArgumentError(f"unknown column {term.label[:200]!r}: no scalar tag {term.field[:200]!r}")
        terms = [*query.columns, *(key.term for key in query.sort), *(c.term for c in comparisons(query.where))]
        derived = self._derived_summaries(experiment_id, terms)
        return self._store.runs_table(experiment_id, query, stalled_after=self._stalled_after, derived=derived)

    def table_fields(self, *, experiment_id: str) -> tuple[list[str], list[str]]:
        """The names of the hyperparameters any run has, and of the scalar tags and derived metrics: what a runs
        table's column may name."""
        hparams, logged = self._store.table_fields(experiment_id)
        return hparams, sorted({*logged, *self._derived.definitions(experiment_id)})

    def _derived_summaries(self, experiment_id: str, terms: list[Term]) -> Derived:
        """The summaries (`trainboard.store.summaries`) of every run's series of each derived metric the terms name,
        over every point, kept until the store's generation moves: the store cannot keep them as it writes."""
        defined = self._derived.definitions(experiment_id)
        names = {term.field for term in terms if (term.kind == "field" or term.kind in FUNCTIONS)} & set(defined)
        return {
            name: self._kept.get(
                experiment_id, ("derived summaries", name), partial(self._summarised, experiment_id, name)
            )
            for name in sorted(names)
        }

    def _summarised(self, experiment_id: str, name: str) -> dict[str, ChunkSummary]:
        by_run = self._derived.series(experiment_id, None, [name])
        return {run: chunk_summary(columns[name]) for run, columns in by_run.items()}

    def list_series(
        self, *, experiment_id: str, plugin_name: str, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[Listed]:
        """Seed 003's top-level call: every series of the plugin, of any data class."""
        listing = self._list(experiment_id, plugin_name, None, run_tag_filter, _listed)
        return self._with_derived(experiment_id, plugin_name, run_tag_filter, listing, _derived_listed)

    def list_scalars(
        self, *, experiment_id: str, plugin_name: str, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[TimeSeries]:
        listing = self._list(experiment_id, plugin_name, DataClass.SCALAR, run_tag_filter, _time_series)
        return self._with_derived(experiment_id, plugin_name, run_tag_filter, listing, _derived_time_series)

    def read_scalars(
        self,
        *,
        experiment_id: str,
        plugin_name: str,
        downsample: int | None,
        run_tag_filter: RunTagFilter | None = None,
        steps: StepRange | None = None,
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
                experiment_id=experiment_id,
                plugin_name=plugin_name,
                downsample=downsample,
                run_tag_filter=run_tag_filter,
                steps=steps,
            ).items()
        }

    def read_scalar_columns(
        self,
        *,
        experiment_id: str,
        plugin_name: str,
        downsample: int | None,
        run_tag_filter: RunTagFilter | None = None,
        steps: StepRange | None = None,
    ) -> Nested[ScalarColumns]:
        """`read_scalars` as numpy columns, for callers that serve many points."""
        derived = self._derived_series(experiment_id, plugin_name, run_tag_filter)
        extra = sum(len(columns) for by_name in derived.values() for columns in by_name.values())
        rows = self._read_series(
            experiment_id, plugin_name, DataClass.SCALAR, run_tag_filter, downsample, steps, extra=extra
        )
        result: Nested[ScalarColumns] = {}
        if downsample == 1 and steps is None:  # the last point of each series (hparams metrics want it) in one read
            lasts = self._store.last_scalars(experiment_id, [row.id for row in rows])
            for row in rows:
                result.setdefault(row.run, {})[row.tag] = lasts.get(row.id, EMPTY_SCALARS)
        else:
            for row in rows:
                result.setdefault(row.run, {})[row.tag] = self._store.scalars(
                    experiment_id, row.id, downsample=downsample, steps=steps
                )
        for run, by_name in derived.items():
            for name, columns in by_name.items():
                result.setdefault(run, {})[name] = _picked(columns, downsample, steps)
        return {run: result[run] for run in sorted(result, key=walk_order)}

    def list_tensors(
        self, *, experiment_id: str, plugin_name: str, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[TimeSeries]:
        return self._list(experiment_id, plugin_name, DataClass.TENSOR, run_tag_filter, _time_series)

    def read_tensors(
        self,
        *,
        experiment_id: str,
        plugin_name: str,
        downsample: int | None,
        run_tag_filter: RunTagFilter | None = None,
        steps: StepRange | None = None,
    ) -> Nested[list[TensorDatum]]:
        # Imported by the first tensor read, not by a server that answers only scalars yet (trainboard.http.lazy).
        from trainboard.reader.tensors import to_ndarray

        result: Nested[list[TensorDatum]] = {}
        for row in self._read_series(experiment_id, plugin_name, DataClass.TENSOR, run_tag_filter, downsample, steps):
            result.setdefault(row.run, {})[row.tag] = [
                TensorDatum(step=point.step, wall_time=point.wall_time, numpy=to_ndarray(point.tensor))
                for point in self._store.tensors(experiment_id, row.id, downsample=downsample, steps=steps)
            ]
        return result

    def list_blob_sequences(
        self, *, experiment_id: str, plugin_name: str, run_tag_filter: RunTagFilter | None = None
    ) -> Nested[BlobSequenceTimeSeries]:
        return self._list(
            experiment_id, plugin_name, DataClass.BLOB_SEQUENCE, run_tag_filter, _blob_sequence_time_series
        )

    def read_blob_sequences(
        self,
        *,
        experiment_id: str,
        plugin_name: str,
        downsample: int | None,
        run_tag_filter: RunTagFilter | None = None,
        steps: StepRange | None = None,
        indices: IndexRange | None = None,
    ) -> Nested[list[BlobSequenceDatum]]:
        indices = indices or IndexRange()
        result: Nested[list[BlobSequenceDatum]] = {}
        kind = DataClass.BLOB_SEQUENCE
        for row in self._read_series(experiment_id, plugin_name, kind, run_tag_filter, downsample, steps):
            result.setdefault(row.run, {})[row.tag] = [
                BlobSequenceDatum(
                    step=point.step,
                    wall_time=point.wall_time,
                    values=tuple(self._reference(point.blob_keys[i]) for i in indices.pick(len(point.blob_keys))),
                )
                for point in self._store.blob_sequences(experiment_id, row.id, downsample=downsample, steps=steps)
            ]
        return result

    def stream_scalars(
        self,
        *,
        experiment_id: str,
        plugin_name: str | None,
        run_tag_filter: RunTagFilter | None = None,
        steps: StepRange | None = None,
    ) -> Iterator[SeriesPoints[ScalarColumns]]:
        rows = self._streamed(experiment_id, plugin_name, DataClass.SCALAR, run_tag_filter, steps)
        derived = self._derived_series(experiment_id, plugin_name or DERIVED_PLUGIN_NAME, run_tag_filter)
        if not derived:
            read = self._store.scalars
            return (
                SeriesPoints(row.run, row.tag, row.metadata, read(experiment_id, row.id, steps=steps)) for row in rows
            )
        return self._stream_with_derived(experiment_id, rows, derived, steps)

    def _stream_with_derived(
        self, experiment_id: str, rows: list[SeriesRow], derived: Nested[ScalarColumns], steps: StepRange | None
    ) -> Iterator[SeriesPoints[ScalarColumns]]:
        """The logged series and the derived ones, runs in walk order and each run's tags by name."""
        definitions = self._derived.definitions(experiment_id)
        logged: list[tuple[str, str, SeriesRow | None]] = [(row.run, row.tag, row) for row in rows]
        computed: list[tuple[str, str, SeriesRow | None]] = [
            (run, name, None) for run, by_name in derived.items() for name in by_name
        ]
        for run, tag, row in sorted(logged + computed, key=lambda entry: (walk_order(entry[0]), entry[1])):
            if row is not None:
                yield SeriesPoints(run, tag, row.metadata, self._store.scalars(experiment_id, row.id, steps=steps))
            else:
                metadata = _derived_metadata(definitions[tag])
                yield SeriesPoints(run, tag, metadata, _picked(derived[run][tag], None, steps))

    def stream_logged_tensors(
        self,
        *,
        experiment_id: str,
        plugin_name: str | None,
        run_tag_filter: RunTagFilter | None = None,
        steps: StepRange | None = None,
    ) -> Iterator[SeriesPoints[list[TensorRow]]]:
        """Each tensor as it was logged (a serialized TensorProto), for writers that write it back."""
        rows = self._streamed(experiment_id, plugin_name, DataClass.TENSOR, run_tag_filter, steps)
        read = self._store.tensors
        return (SeriesPoints(row.run, row.tag, row.metadata, read(experiment_id, row.id, steps=steps)) for row in rows)

    def stream_tensors(
        self,
        *,
        experiment_id: str,
        plugin_name: str | None,
        run_tag_filter: RunTagFilter | None = None,
        steps: StepRange | None = None,
    ) -> Iterator[SeriesPoints[list[TensorDatum]]]:
        from trainboard.reader.tensors import to_ndarray

        logged = self.stream_logged_tensors(
            experiment_id=experiment_id, plugin_name=plugin_name, run_tag_filter=run_tag_filter, steps=steps
        )
        return (
            SeriesPoints(
                series.run,
                series.tag,
                series.metadata,
                [TensorDatum(step=p.step, wall_time=p.wall_time, numpy=to_ndarray(p.tensor)) for p in series.points],
            )
            for series in logged
        )

    def stream_blob_sequences(
        self,
        *,
        experiment_id: str,
        plugin_name: str | None,
        run_tag_filter: RunTagFilter | None = None,
        steps: StepRange | None = None,
    ) -> Iterator[SeriesPoints[list[BlobSequenceDatum]]]:
        rows = self._streamed(experiment_id, plugin_name, DataClass.BLOB_SEQUENCE, run_tag_filter, steps)
        return (
            SeriesPoints(row.run, row.tag, row.metadata, self._blob_points(experiment_id, row, steps)) for row in rows
        )

    def read_blob(self, *, experiment_id: str, blob_key: str) -> bytes:
        if not _BLOB_KEY.fullmatch(blob_key):
            raise InvalidArgumentError(f"malformed blob key: {blob_key[:100]!r}")
        blob = self._store.blob(f"{experiment_id}/{blob_key}")
        if blob is None:
            raise NotFoundError(f"no blob with key {blob_key!r}")
        return blob

    def _blob_points(self, experiment_id: str, row: SeriesRow, steps: StepRange | None) -> list[BlobSequenceDatum]:
        return [
            BlobSequenceDatum(
                step=point.step,
                wall_time=point.wall_time,
                values=tuple(self._reference(key) for key in point.blob_keys),
            )
            for point in self._store.blob_sequences(experiment_id, row.id, steps=steps)
        ]

    def _reference(self, store_key: str) -> BlobReference:
        return BlobReference(blob_key=store_key.rpartition("/")[2], url=self._store.blob_url(store_key))

    def _series(
        self,
        experiment_id: str,
        plugin_name: str | None,
        data_class: DataClass | None,
        run_tag_filter: RunTagFilter | None,
    ) -> list[SeriesRow]:
        """The series in the logdir's walk order of their runs (the store's is the order ingest met them in), each
        run's in the order the store met them."""
        run_tag_filter = run_tag_filter or RunTagFilter()
        rows = self._store.series(
            experiment_id,
            plugin_name=plugin_name,
            data_class=data_class,
            runs=run_tag_filter.runs,
            tags=run_tag_filter.tags,
        )
        return sorted(rows, key=lambda row: walk_order(row.run))

    def _read_series(
        self,
        experiment_id: str,
        plugin_name: str,
        data_class: DataClass,
        run_tag_filter: RunTagFilter | None,
        downsample: int | None,
        steps: StepRange | None,
        *,
        extra: int = 0,
    ) -> list[SeriesRow]:
        """The series a read names, after checking its arguments and its answer's bound (with `extra` points of
        derived series)."""
        if downsample is not None and downsample < 0:
            raise InvalidArgumentError(f"downsample must be non-negative, not {downsample}")
        rows = self._series(experiment_id, plugin_name, data_class, run_tag_filter)
        self._check_bound(rows, data_class, downsample, steps, extra=extra)
        return rows

    def _check_bound(
        self,
        rows: list[SeriesRow],
        data_class: DataClass,
        downsample: int | None,
        steps: StepRange | None,
        *,
        extra: int = 0,
    ) -> None:
        limits = [k for k in (downsample, None if steps is None else steps.latest) if k is not None]
        total = sum(min([row.point_count, *limits]) for row in rows) + (min([extra, *limits]) if extra else 0)
        bound = self._max_points[data_class]
        if total > bound:
            raise InvalidArgumentError(
                f"the answer would hold {total:,} points (runs x tags x points), more than the bound of {bound:,}"
                " for one read: ask for fewer runs or tags, a step range, or downsample"
            )

    def _streamed(
        self,
        experiment_id: str,
        plugin_name: str | None,
        data_class: DataClass,
        run_tag_filter: RunTagFilter | None,
        steps: StepRange | None,
    ) -> list[SeriesRow]:
        """The series a stream names, runs in walk order and tags by name, each checked against the bound."""
        rows = self._series(experiment_id, plugin_name, data_class, run_tag_filter)
        for row in rows:
            self._check_bound([row], data_class, None, steps)
        return sorted(rows, key=lambda row: (walk_order(row.run), row.tag))

    def _derived_series(
        self, experiment_id: str, plugin_name: str, run_tag_filter: RunTagFilter | None
    ) -> Nested[ScalarColumns]:
        if plugin_name != DERIVED_PLUGIN_NAME:
            return {}
        run_tag_filter = run_tag_filter or RunTagFilter()
        return self._derived.series(experiment_id, run_tag_filter.runs, run_tag_filter.tags)

    def _with_derived(
        self,
        experiment_id: str,
        plugin_name: str,
        run_tag_filter: RunTagFilter | None,
        listing: Nested[T],
        describe: Callable[[Definition, ScalarColumns], T],
    ) -> Nested[T]:
        derived = self._derived_series(experiment_id, plugin_name, run_tag_filter)
        if not derived:
            return listing
        definitions = self._derived.definitions(experiment_id)
        for run, by_name in derived.items():
            for name, columns in by_name.items():
                listing.setdefault(run, {})[name] = describe(definitions[name], columns)
        return {run: listing[run] for run in sorted(listing, key=walk_order)}

    def _list(
        self,
        experiment_id: str,
        plugin_name: str,
        data_class: DataClass | None,
        run_tag_filter: RunTagFilter | None,
        describe: Callable[[SeriesRow], T],
    ) -> Nested[T]:
        if run_tag_filter is not None:
            return self._listing(experiment_id, plugin_name, data_class, run_tag_filter, describe)
        # Whole listings are what dashboards ask for most: kept until the experiment changes.
        listing = self._kept.get(
            experiment_id,
            ("listing", plugin_name, data_class, describe),
            lambda: self._listing(experiment_id, plugin_name, data_class, None, describe),
        )
        return {run: dict(by_tag) for run, by_tag in listing.items()}

    def _listing(
        self,
        experiment_id: str,
        plugin_name: str,
        data_class: DataClass | None,
        run_tag_filter: RunTagFilter | None,
        describe: Callable[[SeriesRow], T],
    ) -> Nested[T]:
        listing: Nested[T] = {}
        for row in self._series(experiment_id, plugin_name, data_class, run_tag_filter):
            listing.setdefault(row.run, {})[row.tag] = describe(row)
        return listing


def _listed(row: SeriesRow) -> Listed:
    return Listed(
        data_class=row.metadata.data_class,
        plugin_content=row.metadata.plugin_content,
        description=row.metadata.description,
        display_name=row.metadata.display_name,
    )


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


def _picked(columns: ScalarColumns, downsample: int | None, steps: StepRange | None) -> ScalarColumns:
    """A computed series' points as a store read picks them: within `steps`, then at most `downsample`."""
    if steps is not None:
        kept = np.ones(len(columns), dtype=bool)
        if steps.first is not None:
            kept &= columns.steps >= steps.first
        if steps.last is not None:
            kept &= columns.steps <= steps.last
        columns = ScalarColumns(columns.steps[kept], columns.wall_times[kept], columns.values[kept])
        if steps.latest is not None:
            start = max(0, len(columns) - steps.latest)
            columns = ScalarColumns(columns.steps[start:], columns.wall_times[start:], columns.values[start:])
    if downsample is None or downsample >= len(columns):
        return columns
    chosen = sample_indices(len(columns), downsample)
    return ScalarColumns(columns.steps[chosen], columns.wall_times[chosen], columns.values[chosen])


def _derived_metadata(definition: Definition) -> SeriesMetadata:
    return SeriesMetadata(
        plugin_name=DERIVED_PLUGIN_NAME, data_class=DataClass.SCALAR, description=definition.expression
    )


def _derived_listed(definition: Definition, columns: ScalarColumns) -> Listed:
    return Listed(data_class=DataClass.SCALAR, plugin_content=b"", description=definition.expression, display_name="")


def _derived_time_series(definition: Definition, columns: ScalarColumns) -> TimeSeries:
    return TimeSeries(
        max_step=int(columns.steps.max()),
        max_wall_time=float(columns.wall_times.max()),
        plugin_content=b"",
        description=definition.expression,
        display_name="",
        point_count=len(columns),
    )
