"""`Store`: the read and write contracts over any backend and blob store, with the logic every backend shares.

Integrity (`trainboard.store.checksums`): every scalar chunk, tensor point and blob is checked on read against the
checksum written with it, and damage is never served: a read that meets it raises `StoreDamaged` (a 503 naming the store
and the event files whose points are damaged). A chunk read whole is checked whole, every time (CRC-32C costs about
6 µs per 4,096-point chunk). A downsampled read picks single 8-byte records of a chunk in place, which cannot be
checked alone: the first such read of a chunk in this process reads and checks it whole, once, and later reads of it
(same id and checksum) pick in place, so a 1,000,000-point series costs its full read once per process, then stays at
its picked cost. Damage that happens to a chunk after this process checked it is found by the next process.
Where a loader rebuilds an experiment from its logdir (`rebuild_from_logdir`, `trainboard --logdir`), damaged points
make their files be read again, and damage to the database's own structure makes the database be moved aside and
built again (`rebuild`); elsewhere the error says to ingest again or restore a backup.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import threading
import time
from collections.abc import Callable, Collection, Sequence

import numpy as np

from trainboard.errors import NotFoundError
from trainboard.names import loggable
from trainboard.normaliser.points import DataClass, RunState
from trainboard.reader.hparams_names import SESSION_END_INFO_TAG
from trainboard.reader.tail import FileCursor
from trainboard.settings import STALLED_AFTER
from trainboard.store.batches import ChunkDamaged, write_operations
from trainboard.store.blobs import BlobStore, PendingBlobs
from trainboard.store.checksums import VerifiedChunks, blob_matches, scalar_checksum, tensor_checksum
from trainboard.store.database import Database, FileSave, SavedFile, Transaction
from trainboard.store.downsample import sample_indices
from trainboard.store.errors import StoreDamaged
from trainboard.store.experiment_names import find_experiment, ownerless
from trainboard.store.pinned import PinnedReader
from trainboard.store.run_filter import LABELS, RunFilter, comparisons
from trainboard.store.run_filter_sql import MATCHED_BY_RUN, Derived, Matches
from trainboard.store.run_metadata import (
    MetadataChange,
    RunMetadata,
    View,
    ViewRow,
    checked_view_name,
    checked_view_state,
    unknown_runs,
)
from trainboard.store.run_values import RunValues, run_values, session_hparams
from trainboard.store.runs_table import RunsTable, TableQuery, column_values, labels
from trainboard.store.summaries import STATUSES, session_end_status
from trainboard.store.values import (
    ALL_STEPS,
    BlobSequenceRow,
    ChunkIndex,
    Definition,
    ExperimentRow,
    Pin,
    PinRow,
    PointIndex,
    RunRow,
    ScalarColumns,
    SeriesRow,
    StepRange,
    TensorRow,
)
from trainboard.store.writer import FileWrite

logger = logging.getLogger("trainboard.store")

EMPTY_SCALARS = ScalarColumns(
    steps=np.zeros(0, dtype=np.int64), wall_times=np.zeros(0, dtype=np.float64), values=np.zeros(0, dtype=np.float64)
)
# A downsampled read takes whole chunks when they hold at most this many points per point picked.
WHOLE_CHUNKS = 4
REBUILD_HINT = "it is being rebuilt from the logdir: try again in a moment"
RESTORE_HINT = "ingest the experiment again, or restore the store from a backup"

# A database moved aside and a new one in its place, with its blob store, and where the old one went.
Renewal = Callable[[Database], tuple[Database, BlobStore, str]]


class Store:
    """Implements `StoreReader`, `StoreWriter` and `StoreKeeper` (run metadata and saved views included); thread-safe
    when its database and blob store are."""

    def __init__(self, database: Database, blobs: BlobStore, *, location: str, renew: Renewal | None = None) -> None:
        self.database = database
        self.blobs = blobs
        self.accounts = database.accounts
        # Where the store is, for messages: a path or a URL without its password.
        self.location = location
        self._renew = renew
        self._verified = VerifiedChunks()
        self._experiments: dict[str, ExperimentRow] = {}
        # Experiments a loader of this process rebuilds from their logdirs: what wakes it, and the files it reads
        # again at its next pass.
        self._rebuilders: dict[str, Callable[[], None]] = {}
        self._damaged_files: dict[str, set[str]] = {}
        self._retired: list[tuple[Database, BlobStore]] = []
        self._generation_offset = 0
        self._lock = threading.Lock()

    def check(self) -> None:
        """Raise `StoreUnavailable` unless the database (with this trainboard's migrations) and the blob store answer
        now."""
        self.database.check()
        self.blobs.check()

    def close(self) -> None:
        for database, blobs in [*self._retired, (self.database, self.blobs)]:
            database.close()
            blobs.close()

    # Experiments.

    def experiments(self) -> list[ExperimentRow]:
        return self.database.experiments()

    def create_experiment(self, name: str, description: str = "", location: str = "") -> ExperimentRow:
        """The experiment of this name or id as the command line finds it (`trainboard.store.experiment_names`: one
        without an owner first, else the only one of that name), else a new one without an owner; AmbiguousName when
        several users have one of that name."""
        found = find_experiment(self.database.experiments(), name, own=ownerless)
        experiment = found or self.database.create_experiment(secrets.token_urlsafe(9), name, description, location)
        self._experiments[experiment.id] = experiment
        return experiment

    def generation(self, experiment_id: str) -> int:
        # A database built again counts from 0: offset, so that no generation of the old one is seen again.
        generation = self.database.generation(experiment_id)
        return generation if generation < 0 else generation + self._generation_offset

    def delete_experiment(self, experiment_id: str) -> bool:
        if not self.database.delete_experiment(experiment_id):
            return False
        # After the commit: a blob store that fails here leaves blobs that nothing names, never points without blobs.
        self.blobs.delete_experiment(experiment_id)
        return True

    # Pins.

    def create_pin(self, experiment_id: str, creator: int | None = None) -> Pin | None:
        pin_id = secrets.token_urlsafe(9)
        self.database.create_pin(experiment_id, pin_id, time.time(), creator)
        return self.database.pin(experiment_id, pin_id)

    def pins(self, experiment_id: str) -> list[PinRow]:
        return self.database.pins(experiment_id)

    def pin_count(self, creator: int) -> int:
        return self.database.pin_count(creator)

    def delete_pin(self, experiment_id: str, pin_id: str) -> bool:
        return self.database.delete_pin(experiment_id, pin_id)

    def pin(self, experiment_id: str, pin_id: str) -> Pin | None:
        return self.database.pin(experiment_id, pin_id)

    def pinned(self, experiment_id: str, pin_id: str) -> PinnedReader | None:
        pin = self.database.pin(experiment_id, pin_id)
        return None if pin is None else PinnedReader(self, pin)

    # Derived metrics.

    def definitions(self, experiment_id: str) -> list[Definition]:
        return self.database.definitions(experiment_id)

    def save_definition(self, experiment_id: str, definition: Definition) -> None:
        self.database.save_definition(experiment_id, definition, time.time())

    def delete_definition(self, experiment_id: str, name: str) -> bool:
        return self.database.delete_definition(experiment_id, name)

    def claim_writer(self, experiment_id: str) -> bool:
        return self.database.claim_writer(experiment_id)

    # Run metadata and saved views (trainboard.store.run_metadata).

    def run_metadata(self, experiment_id: str) -> list[RunMetadata]:
        runs = {row.name for row in self.database.runs(experiment_id)}
        return [found for found in self.database.run_metadata.run_metadata(experiment_id) if found.run in runs]

    def change_run_metadata(self, experiment_id: str, runs: Sequence[str], change: MetadataChange) -> None:
        if missing := unknown_runs(runs, [row.name for row in self.database.runs(experiment_id)]):
            shown = ", ".join(repr(run[:200]) for run in missing[:3])
            raise NotFoundError(f"the experiment has no run named {shown}")
        self.database.run_metadata.change_run_metadata(experiment_id, runs, change, time.time())

    def views(self, experiment_id: str) -> list[ViewRow]:
        return self.database.run_metadata.views(experiment_id)

    def view(self, experiment_id: str, key: str) -> View | None:
        return self.database.run_metadata.view(experiment_id, key)

    def save_view(self, experiment_id: str, name: str, state: object, creator: int | None = None) -> ViewRow:
        name, text = checked_view_name(name), checked_view_state(state)
        view_id = secrets.token_urlsafe(9)
        return self.database.run_metadata.save_view(experiment_id, view_id, name, text, creator, time.time())

    def rename_view(self, experiment_id: str, key: str, name: str) -> ViewRow | None:
        name = checked_view_name(name)
        found = self.view(experiment_id, key)
        if found is None:
            return None
        return self.database.run_metadata.rename_view(experiment_id, found.row.id, name, time.time())

    def delete_view(self, experiment_id: str, key: str) -> bool:
        found = self.view(experiment_id, key)
        return found is not None and self.database.run_metadata.delete_view(experiment_id, found.row.id)

    # Reads.

    def runs(self, experiment_id: str) -> list[RunRow]:
        return self.database.runs(experiment_id)

    def plugin_names(self, experiment_id: str) -> list[str]:
        return self.database.plugin_names(experiment_id)

    def series(
        self,
        experiment_id: str,
        *,
        plugin_name: str | None = None,
        data_class: DataClass | None = None,
        runs: Collection[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> list[SeriesRow]:
        return self.database.series(experiment_id, plugin_name=plugin_name, data_class=data_class, runs=runs, tags=tags)

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
        index = self.database.scalar_chunk_index(experiment_id, series_id)
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
        chunk_ids = index.ids[chosen].tolist()
        chunks = self._checked_chunks(experiment_id, chunk_ids)
        return _concatenated(
            [_first(chunk, count) for chunk, count in zip(chunks, index.counts[chosen].tolist(), strict=True)]
        )

    def _checked_chunks(self, experiment_id: str, chunk_ids: list[int]) -> list[ScalarColumns]:
        """Whole chunks, each checked against its checksum (and remembered as checked)."""
        chunks = self.database.scalar_chunks(experiment_id, chunk_ids)
        damaged = []
        for chunk_id, (columns, checksum) in zip(chunk_ids, chunks, strict=True):
            if checksum < 0:
                continue
            if scalar_checksum(columns) != checksum:
                damaged.append(chunk_id)
            else:
                self._verified.add(chunk_id, checksum)
        if damaged:
            raise self._damaged(experiment_id, "scalar points", chunk_ids=damaged)
        return [columns for columns, _ in chunks]

    def _sampled_scalars(self, experiment_id: str, index: ChunkIndex, downsample: int | None) -> ScalarColumns:
        """The points `sample_indices` picks from the whole series, taken from each chunk in place: a series of a
        million points is not read to return a thousand of them."""
        starts = np.concatenate(([0], np.cumsum(index.counts)))
        total = int(starts[-1])
        if downsample is None or downsample >= total:
            return self._chunks(experiment_id, index, slice(None))
        indices = sample_indices(total, downsample)
        chunk_of = np.searchsorted(starts, indices, side="right") - 1
        # The indices ascend, so chunk_of does: its distinct values without np.unique, which imports numpy.ma on first
        # use (~15 ms on a restart's first answer).
        picked = chunk_of[np.flatnonzero(np.diff(chunk_of, prepend=-1))]
        counts = index.counts[picked]
        unchecked = self._verified.unchecked(index.ids[picked], index.checksums[picked])
        if unchecked or int(counts.sum()) <= WHOLE_CHUNKS * len(indices):
            # Chunks read whole anyway (to check them), or of which most points are picked: the points are taken from
            # them rather than asked for one slice each (1,000 of a 2,000-point series: 15 -> 2 ms on PostgreSQL).
            columns = self._chunks(experiment_id, index, picked)
            within = np.concatenate(([0], np.cumsum(counts)))[np.searchsorted(picked, chunk_of)]
            positions = within + indices - starts[chunk_of]
            return ScalarColumns(columns.steps[positions], columns.wall_times[positions], columns.values[positions])
        picks = [(int(index.ids[chunk]), (indices[chunk_of == chunk] - starts[chunk]).tolist()) for chunk in picked]
        return self.database.scalar_picks(experiment_id, picks)

    def last_scalars(self, experiment_id: str, series_ids: Collection[int]) -> dict[int, ScalarColumns]:
        lasts = self.database.last_scalars(experiment_id, series_ids)
        ids = np.array([chunk_id for chunk_id, _, _ in lasts.values()], dtype=np.int64)
        checksums = np.array([checksum for _, checksum, _ in lasts.values()], dtype=np.int64)
        unchecked = self._verified.unchecked(ids, checksums)
        if unchecked:
            self._checked_chunks(experiment_id, unchecked)
        return {series_id: columns for series_id, (_, _, columns) in lasts.items()}

    def run_values(
        self,
        experiment_id: str,
        where: RunFilter | None = None,
        *,
        pin_id: str | None = None,
        stalled_after: float = STALLED_AFTER,
        derived: Derived | None = None,
    ) -> list[RunValues]:
        rows = self.database.run_values(
            experiment_id,
            pin_id=pin_id,
            where=where,
            matches=self._matches(experiment_id, where),
            stalled_since=time.time() - stalled_after,
            derived=derived or {},
        )
        return run_values(rows)

    def runs_table(
        self,
        experiment_id: str,
        query: TableQuery,
        *,
        pin_id: str | None = None,
        stalled_after: float = STALLED_AFTER,
        derived: Derived | None = None,
    ) -> RunsTable:
        """`StoreReader.runs_table`."""
        matches = self._matches(experiment_id, query.where)
        stalled_since = time.time() - stalled_after

        def rows(query: TableQuery) -> list[tuple[object, ...]]:
            return self.database.runs_table(
                experiment_id,
                pin_id=pin_id,
                query=query,
                matches=matches,
                stalled_since=stalled_since,
                derived=derived or {},
            )

        found = rows(query)
        if not found and query.offset:
            # A page past the end: how many runs there are, from the first page.
            first = rows(dataclasses.replace(query, offset=0, limit=1))
            return RunsTable(labels(query.columns), [], int(first[0][0]) if first else 0)  # type: ignore[call-overload]
        total = int(found[0][0]) if found else 0  # type: ignore[call-overload]
        return RunsTable(labels(query.columns), [column_values(row, query.columns) for row in found], total)

    def table_fields(self, experiment_id: str) -> tuple[list[str], list[str]]:
        return self.database.table_fields(experiment_id)

    def _matches(self, experiment_id: str, where: RunFilter | None) -> Matches:
        """The texts each `~` of the filter matches: the database has no RE2, so patterns are matched here against
        the texts they could meet (run names, statuses, one hyperparameter's texts)."""
        matches: Matches = {}
        # Every run's metadata (defaults where it has none), read once if a comparison needs it.
        every: list[RunMetadata] = []

        def metadata() -> list[RunMetadata]:
            if not every:
                found = {found.run: found for found in self.database.run_metadata.run_metadata(experiment_id)}
                every.extend(found.get(run.name, RunMetadata(run.name)) for run in self.database.runs(experiment_id))
            return every

        for compare in comparisons(where):
            if compare.operator != "~":
                continue
            kind = compare.term.kind
            if kind == "name":
                texts: Collection[str] = [run.name for run in self.database.runs(experiment_id)]
            elif kind == "status":
                texts = STATUSES
            elif kind == "field":
                texts = self.database.hparam_texts(experiment_id, compare.field)
            elif kind == LABELS:
                texts = {label for found in metadata() for label in found.labels}
            elif kind in MATCHED_BY_RUN:
                # The names of the runs whose text matches (`trainboard.store.run_filter_sql.MATCHED_BY_RUN`).
                matches[compare] = sorted(
                    found.run
                    for found in metadata()
                    if (text := getattr(found, kind)) is not None and compare.pattern.search(text)
                )
                continue
            else:
                texts = []  # a number
            matches[compare] = sorted(text for text in texts if compare.pattern.search(text))
        return matches

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
            index = self.database.tensor_index(experiment_id, series_id, _bounds(steps))
        else:
            index = _within(self.database.tensor_index(experiment_id, series_id, ALL_STEPS), head, steps)
        positions = _positions(len(index.ids), downsample, steps)
        point_ids = index.ids[positions].tolist()
        values = self.database.tensor_values(experiment_id, point_ids)
        rows = [
            TensorRow(step=step, wall_time=wall_time, tensor=tensor)
            for step, wall_time, (tensor, _) in zip(
                index.steps[positions].tolist(), index.wall_times[positions].tolist(), values, strict=True
            )
        ]
        damaged = [
            point_id
            for point_id, row, (_, checksum) in zip(point_ids, rows, values, strict=True)
            if checksum >= 0 and tensor_checksum(row.step, row.wall_time, row.tensor) != checksum
        ]
        if damaged:
            raise self._damaged(experiment_id, "tensor points", tensor_ids=damaged)
        return rows

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
            rows = self.database.blob_sequences(experiment_id, series_id, _bounds(steps))
        else:
            rows = self.database.blob_sequences(experiment_id, series_id, ALL_STEPS)[:head]
            rows = [row for row in rows if steps.contains(row.step)]
        return [rows[i] for i in _positions(len(rows), downsample, steps).tolist()]

    def blob(self, key: str) -> bytes | None:
        data = self.blobs.get(key)
        if data is not None and not blob_matches(key, data):
            experiment_id = key.rpartition("/")[0]
            raise self._damaged(experiment_id, f"the blob {key.rpartition('/')[2]}", blob_keys=[key])
        return data

    def blob_url(self, key: str) -> str | None:
        return self.blobs.url(key)

    # Writes.

    def file_cursors(self, experiment_id: str) -> dict[str, FileCursor]:
        return self.database.file_cursors(experiment_id)

    def file_cursor(self, experiment_id: str, path: str) -> FileCursor | None:
        return self.database.file_cursor(experiment_id, path)

    def file_run(self, experiment_id: str, path: str) -> str | None:
        return self.database.file_run(experiment_id, path)

    def run_state(self, experiment_id: str, run: str) -> RunState | None:
        state = self.database.run_state(experiment_id, run)
        if state is not None:
            state.first_metadata = {
                row.tag: row.metadata
                for row in self.database.series(experiment_id, plugin_name=None, data_class=None, runs=[run], tags=None)
            }
        return state

    def write_batch(self, experiment_id: str, write: FileWrite) -> None:
        self.write_batches(experiment_id, [write])

    def write_batches(self, experiment_id: str, writes: Sequence[FileWrite]) -> None:
        try:
            self._write_batches(experiment_id, writes)
        except ChunkDamaged as error:
            raise self._damaged(experiment_id, "scalar points", chunk_ids=[error.chunk_id]) from None

    def _write_batches(self, experiment_id: str, writes: Sequence[FileWrite]) -> None:
        new_blobs = PendingBlobs(self.blobs)
        deleted: list[str] = []
        with self.database.transaction(experiment_id) as transaction:
            saved = transaction.save_files(
                [
                    FileSave(
                        write.run,
                        write.state,
                        write.cursor,
                        None if write.previous is None else write.previous.offset,
                        write.batch.metadata,
                    )
                    for write in writes
                ]
            )
            for write, ids in zip(writes, saved, strict=True):
                deleted += self._write_one(transaction, experiment_id, write, ids, new_blobs)
            # Blobs land before the points that name them commit; a crash in between leaves only unnamed blobs.
            new_blobs.flush()
            gone = transaction.unreferenced(set(deleted) - new_blobs.keys)
        self._delete_blobs(experiment_id, gone)

    @staticmethod
    def _write_one(
        transaction: Transaction, experiment_id: str, write: FileWrite, saved: SavedFile, new_blobs: PendingBlobs
    ) -> list[str]:
        """One file's records inside the transaction, its run, file and series `saved`; the blob keys its purges
        deleted."""
        run_id, file_id, series_ids = saved.run_id, saved.file_id, saved.series_ids
        deleted = transaction.delete_file_points(file_id) if write.restarted else []
        hparams = session_hparams(write.batch.metadata)
        if hparams:
            transaction.save_hparams(run_id, hparams)
        if SESSION_END_INFO_TAG in write.batch.metadata:
            transaction.save_end_status(run_id, session_end_status(write.batch.metadata))
        deleted += write_operations(transaction, experiment_id, run_id, file_id, series_ids, write.batch, new_blobs)
        if write.restarted:
            transaction.refresh_summaries(series_ids.values())
        return deleted

    def forget_files(self, experiment_id: str, paths: Collection[str]) -> None:
        if not paths:
            return
        with self.database.transaction(experiment_id) as transaction:
            gone = transaction.unreferenced(set(transaction.delete_files(paths)))
        self._delete_blobs(experiment_id, gone)

    def _delete_blobs(self, experiment_id: str, keys: Collection[str]) -> None:
        """Blobs that no point named when a batch committed, deleted under the experiment's write lock if still no
        point names them: another writer of the experiment may have put the same bytes (the same key) since, which
        it does only under that lock."""
        if not keys:
            return
        with self.database.transaction(experiment_id) as transaction:
            self.blobs.delete(transaction.unreferenced(keys))

    def settle(self) -> None:
        self.database.settle()

    # Damage.

    def rebuild_from_logdir(self, experiment_id: str, wake: Callable[[], None]) -> None:
        """A loader of this process rebuilds the experiment from its logdir: damage found is reported to it (`wake`),
        for its next pass to take (`take_damaged_files`, `rebuild`)."""
        self._rebuilders[experiment_id] = wake
        self.database.damage_hint = REBUILD_HINT if self._renew is not None else RESTORE_HINT
        self.database.on_damage = wake

    def take_damaged_files(self, experiment_id: str) -> list[str]:
        """The experiment's files found to hold damaged points since the last call, to be read again."""
        with self._lock:
            return sorted(self._damaged_files.pop(experiment_id, set()))

    def structure_damage(self) -> str | None:
        """What broke the database's own structure, when a read or write found it so; None if nothing did."""
        return self.database.damage

    def can_rebuild(self) -> bool:
        return self._renew is not None

    def rebuild(self) -> str:
        """Move the damaged database aside and build a new one in its place, holding the experiments this store
        created or opened (empty, with the same ids) and its writer claims; where the old one went."""
        assert self._renew is not None, "only a store that can be renewed is rebuilt"
        with self._lock:
            old = (self.database, self.blobs)
            database, blobs, moved = self._renew(self.database)
            for e in self._experiments.values():
                database.create_experiment(e.id, e.name, e.description, e.location)
            database.damage_hint = old[0].damage_hint
            database.on_damage = old[0].on_damage
            self.database, self.blobs, self.accounts = database, blobs, database.accounts
            self._retired.append(old)
            self._damaged_files.clear()
            self._verified.clear()
            self._generation_offset = time.time_ns() // 1000
        return moved

    def _damaged(
        self,
        experiment_id: str,
        what: str,
        *,
        chunk_ids: Collection[int] = (),
        tensor_ids: Collection[int] = (),
        blob_keys: Collection[str] = (),
    ) -> StoreDamaged:
        """The error for points found damaged, logged; the files they came from are read again where a loader
        rebuilds the experiment."""
        paths = self.database.damaged_files(
            experiment_id, chunk_ids=chunk_ids, tensor_ids=tensor_ids, blob_keys=blob_keys
        )
        source = f" read from {', '.join(map(loggable, paths))}" if paths else ""
        wake = self._rebuilders.get(experiment_id)
        hint = REBUILD_HINT if wake is not None else RESTORE_HINT
        message = f"the store {self.location} is damaged: {what}{source} fail their checksum; {hint}"
        logger.error("%s", message)
        if wake is not None:
            with self._lock:
                self._damaged_files.setdefault(experiment_id, set()).update(paths)
            wake()
        return StoreDamaged(message)


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
        checksums=index.checksums[:kept],
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
