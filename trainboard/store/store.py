"""`Store`: the read and write contracts over any backend and blob store, with the logic every backend shares."""

from __future__ import annotations

import secrets
from collections.abc import Collection

import numpy as np

from trainboard.normaliser.points import Batch, DataClass, RunState
from trainboard.reader.tail import FileCursor
from trainboard.store.backend import Backend
from trainboard.store.batches import write_operations
from trainboard.store.blobs import BlobStore, PendingBlobs
from trainboard.store.downsample import sample_indices
from trainboard.store.values import (
    ALL_STEPS,
    BlobSequenceRow,
    ChunkIndex,
    ExperimentRow,
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
    """Implements `StoreReader` and `StoreWriter`; thread-safe when its backend and blob store are."""

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
        self, experiment_id: str, series_id: int, *, downsample: int | None = None, steps: StepRange | None = None
    ) -> ScalarColumns:
        index = self.backend.scalar_chunk_index(experiment_id, series_id)
        if steps is None or steps == ALL_STEPS:
            return self._sampled_scalars(experiment_id, index, downsample)
        if steps.latest is not None:
            wanted = int(np.searchsorted(np.cumsum(index.counts[::-1]), steps.latest))
            chosen = index.ids[max(0, len(index.ids) - wanted - 1) :]
            columns = _concatenated(self.backend.scalar_chunks(experiment_id, chosen.tolist()))
            start = max(0, len(columns) - steps.latest)
            columns = ScalarColumns(columns.steps[start:], columns.wall_times[start:], columns.values[start:])
        else:
            overlapping = np.ones(len(index.ids), dtype=bool)
            if steps.first is not None:
                overlapping &= index.max_steps >= steps.first
            if steps.last is not None:
                overlapping &= index.min_steps <= steps.last
            columns = _concatenated(self.backend.scalar_chunks(experiment_id, index.ids[overlapping].tolist()))
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

    def _sampled_scalars(self, experiment_id: str, index: ChunkIndex, downsample: int | None) -> ScalarColumns:
        """The points `sample_indices` picks from the whole series, taken from each chunk in place: a series of a
        million points is not read to return a thousand of them."""
        starts = np.concatenate(([0], np.cumsum(index.counts)))
        total = int(starts[-1])
        if downsample is None or downsample >= total:
            return _concatenated(self.backend.scalar_chunks(experiment_id, index.ids.tolist()))
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
        self, experiment_id: str, series_id: int, *, downsample: int | None = None, steps: StepRange | None = None
    ) -> list[TensorRow]:
        steps = steps or ALL_STEPS
        index = self.backend.tensor_index(experiment_id, series_id, _bounds(steps))
        positions = _positions(len(index.ids), downsample, steps)
        values = self.backend.tensor_values(experiment_id, index.ids[positions].tolist())
        return [
            TensorRow(step=step, wall_time=wall_time, tensor=tensor)
            for step, wall_time, tensor in zip(
                index.steps[positions].tolist(), index.wall_times[positions].tolist(), values, strict=True
            )
        ]

    def blob_sequences(
        self, experiment_id: str, series_id: int, *, downsample: int | None = None, steps: StepRange | None = None
    ) -> list[BlobSequenceRow]:
        steps = steps or ALL_STEPS
        rows = self.backend.blob_sequences(experiment_id, series_id, _bounds(steps))
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
        self.blobs.delete(gone)

    def forget_files(self, experiment_id: str, paths: Collection[str]) -> None:
        if not paths:
            return
        with self.backend.transaction(experiment_id) as transaction:
            gone = transaction.unreferenced(set(transaction.delete_files(paths)))
        self.blobs.delete(gone)

    def settle(self) -> None:
        self.backend.settle()


def _bounds(steps: StepRange) -> StepRange:
    return StepRange(first=steps.first, last=steps.last)


def _positions(length: int, downsample: int | None, steps: StepRange) -> np.ndarray:
    """Which of `length` points in step bounds to return: the latest k, then at most `downsample` of them."""
    start = 0 if steps.latest is None else max(0, length - steps.latest)
    return start + sample_indices(length - start, downsample)


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
