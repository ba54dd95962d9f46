"""`Store`: the read and write contracts over any backend and blob store, with the logic every backend shares."""

from __future__ import annotations

import secrets
import time
from collections.abc import Collection

import numpy as np

from trainboard.normaliser.points import Batch, DataClass, RunState
from trainboard.reader.tail import FileCursor
from trainboard.store.backend import Backend
from trainboard.store.batches import write_operations
from trainboard.store.blobs import BlobStore, PendingBlobs
from trainboard.store.downsample import sample_indices
from trainboard.store.pinned import PinnedReader
from trainboard.store.values import (
    ALL_STEPS,
    BlobSequenceRow,
    ChunkIndex,
    ExperimentRow,
    Pin,
    PointIndex,
    RunRow,
    ScalarColumns,
    SeriesRow,
    StepRange,
    TensorRow,
)

EMPTY_SCALARS = ScalarColumns(
    steps=np.zeros(0, dtype=np.int64), wall_times=np.zeros(0, dtype=np.float64), values=np.zeros(0, dtype=np.float64)
)


class Store:
    """Implements `StoreReader`, `StoreWriter` and `StoreKeeper`; thread-safe when its backend and blob store are."""

    def __init__(self, backend: Backend, blobs: BlobStore, *, location: str) -> None:
        self.backend = backend
        self.blobs = blobs
        self.accounts = backend.accounts
        # Where the store is, for messages: a path or a URL without its password.
        self.location = location

    def close(self) -> None:
        self.backend.close()
        self.blobs.close()

    # Experiments.

    def experiments(self) -> list[ExperimentRow]:
        return self.backend.experiments()

    def create_experiment(self, name: str, description: str = "", location: str = "") -> ExperimentRow:
        for experiment in self.backend.experiments():
            if experiment.name == name:
                return experiment
        return self.backend.create_experiment(secrets.token_urlsafe(9), name, description, location)

    def generation(self, experiment_id: str) -> int:
        return self.backend.generation(experiment_id)

    def delete_experiment(self, experiment_id: str) -> bool:
        if not self.backend.delete_experiment(experiment_id):
            return False
        # After the commit: a blob store that fails here leaves blobs that nothing names, never points without blobs.
        self.blobs.delete_experiment(experiment_id)
        return True

    # Pins.

    def create_pin(self, experiment_id: str) -> Pin | None:
        pin_id = secrets.token_urlsafe(9)
        self.backend.create_pin(experiment_id, pin_id, time.time())
        return self.backend.pin(experiment_id, pin_id)

    def pin(self, experiment_id: str, pin_id: str) -> Pin | None:
        return self.backend.pin(experiment_id, pin_id)

    def pinned(self, experiment_id: str, pin_id: str) -> PinnedReader | None:
        pin = self.backend.pin(experiment_id, pin_id)
        return None if pin is None else PinnedReader(self, pin)

    def claim_writer(self, experiment_id: str) -> bool:
        return self.backend.claim_writer(experiment_id)

    # Reads.

    def runs(self, experiment_id: str) -> list[RunRow]:
        return self.backend.runs(experiment_id)

    def plugin_names(self, experiment_id: str) -> list[str]:
        return self.backend.plugin_names(experiment_id)

    def series(
        self,
        experiment_id: str,
        *,
        plugin_name: str | None = None,
        data_class: DataClass | None = None,
        runs: Collection[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> list[SeriesRow]:
        return self.backend.series(experiment_id, plugin_name=plugin_name, data_class=data_class, runs=runs, tags=tags)

    def scalars(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> ScalarColumns:
        """`StoreReader.scalars`; with `head`, of the series' first `head` points only (as a pin saw it)."""
        index = self.backend.scalar_chunk_index(experiment_id, series_id)
        if head is not None:
            index = _cut(index, head)
        if steps is None or steps == ALL_STEPS:
            return self._sampled_scalars(experiment_id, index, downsample)
        if steps.latest is not None:
            wanted = int(np.searchsorted(np.cumsum(index.counts[::-1]), steps.latest))
            columns = self._chunks(experiment_id, index, slice(max(0, len(index.ids) - wanted - 1), None))
            start = max(0, len(columns) - steps.latest)
            columns = ScalarColumns(columns.steps[start:], columns.wall_times[start:], columns.values[start:])
        else:
            overlapping = np.ones(len(index.ids), dtype=bool)
            if steps.first is not None:
                overlapping &= index.max_steps >= steps.first
            if steps.last is not None:
                overlapping &= index.min_steps <= steps.last
            columns = self._chunks(experiment_id, index, overlapping)
            inside = np.ones(len(columns), dtype=bool)
            if steps.first is not None:
                inside &= columns.steps >= steps.first
            if steps.last is not None:
                inside &= columns.steps <= steps.last
            columns = ScalarColumns(columns.steps[inside], columns.wall_times[inside], columns.values[inside])
        chosen_points = sample_indices(len(columns), downsample)
        if len(chosen_points) == len(columns):
            return columns
        return ScalarColumns(
            columns.steps[chosen_points], columns.wall_times[chosen_points], columns.values[chosen_points]
        )

    def _chunks(self, experiment_id: str, index: ChunkIndex, chosen: slice | np.ndarray) -> ScalarColumns:
        """The chosen chunks of `index` in order, each cut to its count there (a pin's last chunk may hold more
        points now)."""
        chunks = self.backend.scalar_chunks(experiment_id, index.ids[chosen].tolist())
        return _concatenated(
            [_first(chunk, count) for chunk, count in zip(chunks, index.counts[chosen].tolist(), strict=True)]
        )

    def _sampled_scalars(self, experiment_id: str, index: ChunkIndex, downsample: int | None) -> ScalarColumns:
        """The points `sample_indices` picks from the whole series, taken from each chunk in place: a series of a
        million points is not read to return a thousand of them."""
        starts = np.concatenate(([0], np.cumsum(index.counts)))
        total = int(starts[-1])
        if downsample is None or downsample >= total:
            return self._chunks(experiment_id, index, slice(None))
        indices = sample_indices(total, downsample)
        chunk_of = np.searchsorted(starts, indices, side="right") - 1
        picks = [
            (int(index.ids[chunk]), (indices[chunk_of == chunk] - starts[chunk]).tolist())
            for chunk in np.unique(chunk_of)
        ]
        return self.backend.scalar_picks(experiment_id, picks)

    def last_scalars(self, experiment_id: str, series_ids: Collection[int]) -> dict[int, ScalarColumns]:
        return self.backend.last_scalars(experiment_id, series_ids)

    def tensors(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> list[TensorRow]:
        """`StoreReader.tensors`; with `head`, of the series' first `head` points only."""
        steps = steps or ALL_STEPS
        if head is None:
            index = self.backend.tensor_index(experiment_id, series_id, _bounds(steps))
        else:
            index = _within(self.backend.tensor_index(experiment_id, series_id, ALL_STEPS), head, steps)
        positions = _positions(len(index.ids), downsample, steps)
        values = self.backend.tensor_values(experiment_id, index.ids[positions].tolist())
        return [
            TensorRow(step=step, wall_time=wall_time, tensor=tensor)
            for step, wall_time, tensor in zip(
                index.steps[positions].tolist(), index.wall_times[positions].tolist(), values, strict=True
            )
        ]

    def blob_sequences(
        self,
        experiment_id: str,
        series_id: int,
        *,
        downsample: int | None = None,
        steps: StepRange | None = None,
        head: int | None = None,
    ) -> list[BlobSequenceRow]:
        """`StoreReader.blob_sequences`; with `head`, of the series' first `head` points only."""
        steps = steps or ALL_STEPS
        if head is None:
            rows = self.backend.blob_sequences(experiment_id, series_id, _bounds(steps))
        else:
            rows = self.backend.blob_sequences(experiment_id, series_id, ALL_STEPS)[:head]
            rows = [row for row in rows if steps.contains(row.step)]
        return [rows[i] for i in _positions(len(rows), downsample, steps).tolist()]

    def blob(self, key: str) -> bytes | None:
        return self.blobs.get(key)

    def blob_url(self, key: str) -> str | None:
        return self.blobs.url(key)

    # Writes.

    def file_cursors(self, experiment_id: str) -> dict[str, FileCursor]:
        return self.backend.file_cursors(experiment_id)

    def run_state(self, experiment_id: str, run: str) -> RunState | None:
        state = self.backend.run_state(experiment_id, run)
        if state is not None:
            state.first_metadata = {
                row.tag: row.metadata
                for row in self.backend.series(experiment_id, plugin_name=None, data_class=None, runs=[run], tags=None)
            }
        return state

    def write_batch(
        self,
        experiment_id: str,
        run: str,
        cursor: FileCursor,
        state: RunState,
        batch: Batch,
        *,
        restarted: bool,
        previous: FileCursor | None,
    ) -> None:
        new_blobs = PendingBlobs(self.blobs)
        with self.backend.transaction(experiment_id) as transaction:
            run_id = transaction.save_run(run, state)
            file_id = transaction.save_file(
                run_id, cursor, expected_offset=None if previous is None else previous.offset
            )
            deleted = transaction.delete_file_points(file_id) if restarted else []
            series_ids = transaction.save_series(run_id, batch.metadata)
            deleted += write_operations(transaction, experiment_id, run_id, file_id, series_ids, batch, new_blobs)
            if restarted:
                transaction.refresh_summaries(series_ids.values())
            # Blobs land before the points that name them commit; a crash in between leaves only unnamed blobs.
            new_blobs.flush()
            gone = transaction.unreferenced(set(deleted) - new_blobs.keys)
        self._delete_blobs(experiment_id, gone)

    def forget_files(self, experiment_id: str, paths: Collection[str]) -> None:
        if not paths:
            return
        with self.backend.transaction(experiment_id) as transaction:
            gone = transaction.unreferenced(set(transaction.delete_files(paths)))
        self._delete_blobs(experiment_id, gone)

    def _delete_blobs(self, experiment_id: str, keys: Collection[str]) -> None:
        """Blobs that no point named when a batch committed, deleted under the experiment's write lock if still no
        point names them: another writer of the experiment may have put the same bytes (the same key) since, which
        it does only under that lock."""
        if not keys:
            return
        with self.backend.transaction(experiment_id) as transaction:
            self.blobs.delete(transaction.unreferenced(keys))

    def settle(self) -> None:
        self.backend.settle()


def _bounds(steps: StepRange) -> StepRange:
    return StepRange(first=steps.first, last=steps.last)


def _positions(length: int, downsample: int | None, steps: StepRange) -> np.ndarray:
    """Which of `length` points in step bounds to return: the latest k, then at most `downsample` of them."""
    start = 0 if steps.latest is None else max(0, length - steps.latest)
    return start + sample_indices(length - start, downsample)


def _cut(index: ChunkIndex, head: int) -> ChunkIndex:
    """The index of a series' first `head` points: the chunks they span, the last one's count cut short."""
    starts = np.cumsum(index.counts) - index.counts
    kept = int(np.searchsorted(starts, head))
    return ChunkIndex(
        ids=index.ids[:kept],
        counts=np.minimum(index.counts[:kept], head - starts[:kept]),
        min_steps=index.min_steps[:kept],
        max_steps=index.max_steps[:kept],
    )


def _within(index: PointIndex, head: int, steps: StepRange) -> PointIndex:
    """The points of `index` among its first `head`, within the bounds of `steps`."""
    kept = np.arange(len(index.ids)) < head
    if steps.first is not None:
        kept &= index.steps >= steps.first
    if steps.last is not None:
        kept &= index.steps <= steps.last
    return PointIndex(ids=index.ids[kept], steps=index.steps[kept], wall_times=index.wall_times[kept])


def _first(columns: ScalarColumns, count: int) -> ScalarColumns:
    if count >= len(columns):
        return columns
    return ScalarColumns(columns.steps[:count], columns.wall_times[:count], columns.values[:count])


def _concatenated(chunks: list[ScalarColumns]) -> ScalarColumns:
    if not chunks:
        return EMPTY_SCALARS
    if len(chunks) == 1:
        return chunks[0]
    return ScalarColumns(
        steps=np.concatenate([c.steps for c in chunks]),
        wall_times=np.concatenate([c.wall_times for c in chunks]),
        values=np.concatenate([c.values for c in chunks]),
    )
