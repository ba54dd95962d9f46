"""Writing one batch inside a backend's transaction: chunk packing, restart purges and series summaries
(`trainboard.store.summaries`), shared by every backend."""

from __future__ import annotations

import numpy as np

from trainboard.normaliser.points import Batch, BlobSequencePoint, Purge, ScalarPoint, ScalarSeries, TensorPoint
from trainboard.store.blobs import PendingBlobs, blob_key
from trainboard.store.checksums import scalar_checksum, tensor_checksum
from trainboard.store.database import (
    BlobSequenceRecord,
    ScalarChunk,
    SummaryDelta,
    TensorRecord,
    Transaction,
)
from trainboard.store.errors import StoreDamaged
from trainboard.store.summaries import ChunkSummary, chunk_summary, merged
from trainboard.store.values import ScalarColumns

# Scalars of one series are packed into chunks of at most this many points.
CHUNK_POINTS = 4096


class ChunkDamaged(StoreDamaged):
    """A scalar chunk a purge would rewrite fails its checksum."""

    def __init__(self, chunk_id: int) -> None:
        super().__init__(f"scalar chunk {chunk_id} fails its checksum")
        self.chunk_id = chunk_id


def write_operations(
    transaction: Transaction,
    experiment_id: str,
    run_id: int,
    file_id: int,
    series_ids: dict[str, int],
    batch: Batch,
    new_blobs: PendingBlobs,
) -> list[str]:
    """Write the batch's points and purges in order; hand the blobs its points hold to `new_blobs` (for the blob
    store, before the commit); return the blob keys its purges deleted."""
    deleted: list[str] = []
    pending: list[ScalarPoint | ScalarSeries | TensorPoint | BlobSequencePoint] = []
    for operation in batch.operations:
        if isinstance(operation, Purge):
            _insert(transaction, experiment_id, run_id, file_id, series_ids, pending, new_blobs)
            pending = []
            deleted += purge(transaction, run_id, operation)
        else:
            pending.append(operation)
    _insert(transaction, experiment_id, run_id, file_id, series_ids, pending, new_blobs)
    return deleted


def purge(transaction: Transaction, run_id: int, operation: Purge) -> list[str]:
    """TensorBoard's restart purge: drop the points at or after `operation.step`."""
    series_ids = transaction.series_reaching(run_id, operation.step, operation.tags)
    if not series_ids:
        return []
    for chunk_id, columns, checksum in transaction.chunks_straddling(series_ids, operation.step):
        if checksum >= 0 and scalar_checksum(columns) != checksum:
            # Rewritten, the damage would get a checksum of its own.
            raise ChunkDamaged(chunk_id)
        keep = columns.steps < operation.step
        kept = ScalarColumns(columns.steps[keep], columns.wall_times[keep], columns.values[keep])
        transaction.replace_chunk(chunk_id, _chunk(0, 0, kept))
    deleted = transaction.delete_points_from(series_ids, operation.step)
    transaction.refresh_summaries(series_ids)
    return deleted


def _insert(
    transaction: Transaction,
    experiment_id: str,
    run_id: int,
    file_id: int,
    series_ids: dict[str, int],
    points: list[ScalarPoint | ScalarSeries | TensorPoint | BlobSequencePoint],
    new_blobs: PendingBlobs,
) -> None:
    if not points:
        return
    scalars: dict[int, list[ScalarPoint | ScalarSeries]] = {}
    tensors: list[TensorRecord] = []
    sequences: list[BlobSequenceRecord] = []
    for point in points:
        series_id = series_ids[point.tag]
        if isinstance(point, ScalarPoint | ScalarSeries):
            scalars.setdefault(series_id, []).append(point)
        elif isinstance(point, TensorPoint):
            checksum = tensor_checksum(point.step, point.wall_time, point.tensor)
            tensors.append(TensorRecord(series_id, file_id, point.step, point.wall_time, point.tensor, checksum))
        else:
            keys = []
            for blob in point.blobs:
                keys.append(blob_key(experiment_id, blob))
                new_blobs.add(keys[-1], blob)
            sequences.append(BlobSequenceRecord(series_id, file_id, point.step, point.wall_time, tuple(keys)))
    chunks = [
        _chunk(series_id, file_id, ScalarColumns(*(column[start : start + CHUNK_POINTS] for column in columns)))
        for series_id, pieces in scalars.items()
        for columns in [_columns(pieces)]
        for start in range(0, len(columns[0]), CHUNK_POINTS)
    ]
    transaction.insert_scalar_chunks(chunks)
    transaction.insert_tensors(tensors)
    transaction.insert_blob_sequences(sequences)
    deltas = [SummaryDelta(c.series_id, len(c.columns), c.max_step, c.max_wall_time, 0, c.summary) for c in chunks]
    deltas += [SummaryDelta(t.series_id, 1, t.step, t.wall_time) for t in tensors]
    deltas += [SummaryDelta(s.series_id, 1, s.step, s.wall_time, len(s.blob_keys)) for s in sequences]
    transaction.add_to_summaries(_merged(deltas))
    transaction.advance_run(run_id, max(d.max_step for d in deltas), max(d.max_wall_time for d in deltas))


def _chunk(series_id: int, file_id: int, columns: ScalarColumns) -> ScalarChunk:
    return ScalarChunk(
        series_id=series_id,
        file_id=file_id,
        columns=columns,
        min_step=int(columns.steps.min()),
        max_step=int(columns.steps.max()),
        max_wall_time=float(columns.wall_times.max()),
        checksum=scalar_checksum(columns),
        summary=chunk_summary(columns),
    )


def _merged(deltas: list[SummaryDelta]) -> list[SummaryDelta]:
    """One delta per series."""
    merged: dict[int, SummaryDelta] = {}
    for delta in deltas:
        old = merged.get(delta.series_id)
        merged[delta.series_id] = (
            delta
            if old is None
            else SummaryDelta(
                delta.series_id,
                old.count + delta.count,
                max(old.max_step, delta.max_step),
                max(old.max_wall_time, delta.max_wall_time),
                max(old.max_length, delta.max_length),
                _later(old.scalars, delta.scalars),
            )
        )
    return list(merged.values())


def _later(earlier: ChunkSummary | None, later: ChunkSummary | None) -> ChunkSummary | None:
    return later if earlier is None else earlier if later is None else merged(earlier, later)


def _columns(pieces: list[ScalarPoint | ScalarSeries]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Steps (int64), wall times and values (float64) of a series' points and column series, in order."""
    steps: list[np.ndarray] = []
    wall_times: list[np.ndarray] = []
    values: list[np.ndarray] = []
    points: list[ScalarPoint] = []

    def take_points() -> None:
        if points:
            steps.append(np.fromiter((p.step for p in points), np.int64, len(points)))
            wall_times.append(np.fromiter((p.wall_time for p in points), np.float64, len(points)))
            values.append(np.fromiter((p.value for p in points), np.float64, len(points)))
            points.clear()

    for piece in pieces:
        if isinstance(piece, ScalarPoint):
            points.append(piece)
            continue
        take_points()
        steps.append(piece.steps.astype(np.int64, copy=False))
        wall_times.append(piece.wall_times.astype(np.float64, copy=False))
        values.append(piece.values.astype(np.float64, copy=False))
    take_points()
    return np.concatenate(steps), np.concatenate(wall_times), np.concatenate(values)
