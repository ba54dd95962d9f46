"""The embedded store: one SQLite file in WAL mode, one writer connection, a read-only connection per thread."""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from array import array
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from trainboard.normaliser.points import (
    Batch,
    BlobSequencePoint,
    DataClass,
    Purge,
    RunState,
    ScalarPoint,
    ScalarSeries,
    SeriesMetadata,
    TensorPoint,
)
from trainboard.reader.tail import FileCursor
from trainboard.store.downsample import sample_indices
from trainboard.store.migrations import MIGRATIONS
from trainboard.store.protocol import BlobSequenceRow, RunRow, ScalarColumns, SeriesRow, TensorRow

# Packed columns are stored little-endian, the machine's own order.
if sys.byteorder != "little":
    raise ImportError("trainboard's SQLite store packs arrays in native order and needs a little-endian machine")

# Scalars of one series are packed into chunks of at most this many points.
CHUNK_POINTS = 4096
# SQLite clamps this to its compiled-in maximum (2 GB in most builds).
READ_MMAP_BYTES = 1 << 40


class SqliteStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Ingest workers in other processes write too: wait for their commits rather than fail.
        self._writer = sqlite3.connect(self.path, timeout=120, check_same_thread=False, isolation_level=None)
        self._writer.execute("PRAGMA journal_mode = WAL")
        self._writer.execute("PRAGMA synchronous = NORMAL")
        self._write_lock = threading.Lock()
        self._readers = threading.local()
        self._reader_connections: list[sqlite3.Connection] = []
        self._migrate()

    def _migrate(self) -> None:
        with self._write_lock:
            db = self._writer
            db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
            applied = {name for (name,) in db.execute("SELECT name FROM migrations")}
            for name, sql in MIGRATIONS:
                if name in applied:
                    continue
                db.execute("BEGIN")
                for statement in sql.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (name, time.time()))
                db.execute("COMMIT")

    def _reader(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._readers, "connection", None)
        if connection is None:
            uri = self.path.resolve().as_uri() + "?mode=ro"
            connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
            connection.execute("PRAGMA query_only = ON")
            # Read pages through a memory map (as much of the file as SQLite allows) rather than a read() per page:
            # a long series' chunks span thousands of overflow pages.
            connection.execute(f"PRAGMA mmap_size = {READ_MMAP_BYTES}")
            self._readers.connection = connection
            self._reader_connections.append(connection)
        return connection

    def settle(self) -> None:
        """Fold the write-ahead log into the database file: reads through a long WAL are slower."""
        with self._write_lock:
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def generation(self) -> int:
        (value,) = self._reader().execute("SELECT value FROM generation").fetchone()
        return int(value)

    def close(self) -> None:
        for connection in self._reader_connections:
            connection.close()
        self._reader_connections.clear()
        self._writer.close()

    # Ingest.

    def file_cursors(self) -> dict[str, FileCursor]:
        rows = self._reader().execute("SELECT path, read_offset, size, head FROM files")
        return {
            path: FileCursor(path=path, offset=offset, size=size, head=bytes(head)) for path, offset, size, head in rows
        }

    def run_state(self, run: str) -> RunState | None:
        row = (
            self._reader()
            .execute(
                "SELECT file_version, most_recent_step, seen_session_start, start_time FROM runs WHERE name = ?", (run,)
            )
            .fetchone()
        )
        if row is None:
            return None
        file_version, most_recent_step, seen_session_start, start_time = row
        return RunState(
            file_version=file_version,
            most_recent_step=most_recent_step,
            seen_session_start=bool(seen_session_start),
            start_time=start_time,
            first_metadata={series.tag: series.metadata for series in self.series(runs=[run])},
        )

    def write_batch(self, run: str, cursor: FileCursor, state: RunState, batch: Batch, *, restarted: bool) -> None:
        with self._write_lock:
            db = self._writer
            db.execute("BEGIN IMMEDIATE")
            try:
                run_id = self._save_run(run, state)
                file_id = self._save_file(run_id, cursor)
                if restarted:
                    self._delete_file_points(run_id, file_id)
                series_ids = self._save_series(run_id, batch.metadata)
                _BatchWriter(db, file_id, series_ids).write(run_id, batch)
                db.execute("UPDATE generation SET value = value + 1")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _save_run(self, run: str, state: RunState) -> int:
        db = self._writer
        db.execute(
            "INSERT INTO runs (name, start_time, file_version, most_recent_step, seen_session_start)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET start_time = excluded.start_time,"
            " file_version = excluded.file_version, most_recent_step = excluded.most_recent_step,"
            " seen_session_start = excluded.seen_session_start",
            (run, state.start_time, state.file_version, state.most_recent_step, int(state.seen_session_start)),
        )
        (run_id,) = db.execute("SELECT id FROM runs WHERE name = ?", (run,)).fetchone()
        return int(run_id)

    def _save_file(self, run_id: int, cursor: FileCursor) -> int:
        db = self._writer
        db.execute(
            "INSERT INTO files (run_id, path, read_offset, size, head) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (path) DO UPDATE SET read_offset = excluded.read_offset, size = excluded.size,"
            " head = excluded.head",
            (run_id, cursor.path, cursor.offset, cursor.size, cursor.head),
        )
        (file_id,) = db.execute("SELECT id FROM files WHERE path = ?", (cursor.path,)).fetchone()
        return int(file_id)

    def _save_series(self, run_id: int, metadata: dict[str, SeriesMetadata]) -> dict[str, int]:
        db = self._writer
        db.executemany(
            "INSERT INTO series (run_id, tag, plugin_name, data_class, plugin_content, display_name, description)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, tag) DO NOTHING",
            [
                (run_id, tag, m.plugin_name, int(m.data_class), m.plugin_content, m.display_name, m.description)
                for tag, m in metadata.items()
            ],
        )
        return dict(db.execute("SELECT tag, id FROM series WHERE run_id = ?", (run_id,)).fetchall())

    def _delete_file_points(self, run_id: int, file_id: int) -> None:
        """Forget what was read from a file that has since been truncated or replaced."""
        db = self._writer
        db.execute("DELETE FROM scalar_chunks WHERE file_id = ?", (file_id,))
        db.execute("DELETE FROM tensor_points WHERE file_id = ?", (file_id,))
        db.execute("DELETE FROM blobs WHERE point_id IN (SELECT id FROM blob_points WHERE file_id = ?)", (file_id,))
        db.execute("DELETE FROM blob_points WHERE file_id = ?", (file_id,))
        series_ids = [row[0] for row in db.execute("SELECT id FROM series WHERE run_id = ?", (run_id,))]
        _refresh_summaries(db, series_ids)

    # Reads.

    def runs(self) -> list[RunRow]:
        rows = self._reader().execute("SELECT name, start_time FROM runs ORDER BY id")
        return [RunRow(name=name, start_time=start_time) for name, start_time in rows]

    def plugin_names(self) -> list[str]:
        rows = self._reader().execute("SELECT DISTINCT plugin_name FROM series ORDER BY plugin_name")
        return [name for (name,) in rows]

    def series(
        self,
        *,
        plugin_name: str | None = None,
        data_class: DataClass | None = None,
        runs: Collection[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> list[SeriesRow]:
        sql = (
            "SELECT s.id, r.name, s.tag, s.plugin_name, s.data_class, s.plugin_content, s.display_name,"
            " s.description, s.point_count, s.max_step, s.max_wall_time, s.max_length"
            " FROM series s JOIN runs r ON r.id = s.run_id WHERE 1 = 1"
        )
        params: list[object] = []
        if plugin_name is not None:
            sql += " AND s.plugin_name = ?"
            params.append(plugin_name)
        if data_class is not None:
            sql += " AND s.data_class = ?"
            params.append(int(data_class))
        if runs is not None:
            sql += " AND r.name IN (SELECT value FROM json_each(?))"
            params.append(orjson.dumps(list(runs)).decode())
        if tags is not None:
            sql += " AND s.tag IN (SELECT value FROM json_each(?))"
            params.append(orjson.dumps(list(tags)).decode())
        sql += " ORDER BY r.id, s.id"
        return [
            SeriesRow(
                id=row[0],
                run=row[1],
                tag=row[2],
                metadata=SeriesMetadata(
                    plugin_name=row[3],
                    data_class=DataClass(row[4]),
                    plugin_content=bytes(row[5]),
                    display_name=row[6],
                    description=row[7],
                ),
                point_count=row[8],
                max_step=row[9],
                max_wall_time=row[10],
                max_length=row[11],
            )
            for row in self._reader().execute(sql, params)
        ]

    def scalars(self, series_id: int, downsample: int | None = None) -> ScalarColumns:
        rows = (
            self._reader()
            .execute(
                "SELECT point_count, steps, wall_times, scalar_values FROM scalar_chunks WHERE series_id = ?"
                " ORDER BY id",
                (series_id,),
            )
            .fetchall()
        )
        if downsample is not None and downsample < sum(row[0] for row in rows):
            return _sampled_chunks(rows, downsample)
        return ScalarColumns(
            steps=np.frombuffer(b"".join(row[1] for row in rows), dtype="<i8"),
            wall_times=np.frombuffer(b"".join(row[2] for row in rows), dtype="<f8"),
            values=np.frombuffer(b"".join(row[3] for row in rows), dtype="<f8"),
        )

    def last_scalars(self, series_ids: Collection[int]) -> dict[int, ScalarColumns]:
        rows = self._reader().execute(
            "SELECT c.series_id, c.steps, c.wall_times, c.scalar_values FROM scalar_chunks c JOIN"
            " (SELECT MAX(id) AS id FROM scalar_chunks WHERE series_id IN (SELECT value FROM json_each(?))"
            " GROUP BY series_id) last ON c.id = last.id",
            (orjson.dumps(list(series_ids)).decode(),),
        )
        return {
            series_id: ScalarColumns(
                steps=np.frombuffer(steps, dtype="<i8")[-1:],
                wall_times=np.frombuffer(wall_times, dtype="<f8")[-1:],
                values=np.frombuffer(values, dtype="<f8")[-1:],
            )
            for series_id, steps, wall_times, values in rows
        }

    def tensors(self, series_id: int) -> list[TensorRow]:
        rows = self._reader().execute(
            "SELECT step, wall_time, tensor FROM tensor_points WHERE series_id = ? ORDER BY id", (series_id,)
        )
        return [TensorRow(step=step, wall_time=wall_time, tensor=bytes(tensor)) for step, wall_time, tensor in rows]

    def blob_sequences(self, series_id: int) -> list[BlobSequenceRow]:
        rows = self._reader().execute(
            "SELECT id, step, wall_time, length FROM blob_points WHERE series_id = ? ORDER BY id", (series_id,)
        )
        return [
            BlobSequenceRow(point_id=point_id, step=step, wall_time=wall_time, length=length)
            for point_id, step, wall_time, length in rows
        ]

    def blob(self, point_id: int, position: int) -> bytes | None:
        row = (
            self._reader()
            .execute("SELECT data FROM blobs WHERE point_id = ? AND position = ?", (point_id, position))
            .fetchone()
        )
        return None if row is None else bytes(row[0])


class _BatchWriter:
    """Writes one batch's operations in order inside the caller's transaction, grouping points per series."""

    def __init__(self, db: sqlite3.Connection, file_id: int, series_ids: dict[str, int]) -> None:
        self._db = db
        self._file_id = file_id
        self._series_ids = series_ids
        self._scalars: dict[int, list[ScalarPoint | ScalarSeries]] = {}
        self._tensors: list[tuple[int, int, int, float, bytes]] = []
        self._blob_points: list[tuple[int, BlobSequencePoint]] = []

    def write(self, run_id: int, batch: Batch) -> None:
        series_ids = self._series_ids
        for operation in batch.operations:
            if isinstance(operation, ScalarPoint | ScalarSeries):
                self._scalars.setdefault(series_ids[operation.tag], []).append(operation)
            elif isinstance(operation, TensorPoint):
                self._tensors.append(
                    (series_ids[operation.tag], self._file_id, operation.step, operation.wall_time, operation.tensor)
                )
            elif isinstance(operation, BlobSequencePoint):
                self._blob_points.append((series_ids[operation.tag], operation))
            else:
                self._flush()
                self._purge(run_id, operation)
        self._flush()

    def _flush(self) -> None:
        db = self._db
        touched: dict[int, tuple[int, int, float, int]] = {}  # series id -> (count, max step, max wall time, length)

        def touch(series_id: int, count: int, max_step: int, max_wall_time: float, length: int = 0) -> None:
            old = touched.get(series_id)
            if old is not None:
                count += old[0]
                max_step = max(max_step, old[1])
                max_wall_time = max(max_wall_time, old[2])
                length = max(length, old[3])
            touched[series_id] = (count, max_step, max_wall_time, length)

        chunks = []
        for series_id, pieces in self._scalars.items():
            steps, wall_times, values = _columns(pieces)
            for start in range(0, len(steps), CHUNK_POINTS):
                chunk_steps = steps[start : start + CHUNK_POINTS]
                chunk_wall_times = wall_times[start : start + CHUNK_POINTS]
                max_step, max_wall_time = int(chunk_steps.max()), float(chunk_wall_times.max())
                chunks.append(
                    (
                        series_id,
                        self._file_id,
                        len(chunk_steps),
                        int(chunk_steps.min()),
                        max_step,
                        chunk_steps.tobytes(),
                        chunk_wall_times.tobytes(),
                        values[start : start + CHUNK_POINTS].tobytes(),
                    )
                )
                touch(series_id, len(chunk_steps), max_step, max_wall_time)
        db.executemany(
            "INSERT INTO scalar_chunks (series_id, file_id, point_count, min_step, max_step, steps, wall_times,"
            " scalar_values) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            chunks,
        )
        db.executemany(
            "INSERT INTO tensor_points (series_id, file_id, step, wall_time, tensor) VALUES (?, ?, ?, ?, ?)",
            self._tensors,
        )
        for series_id, _, step, wall_time, _ in self._tensors:
            touch(series_id, 1, step, wall_time)
        for series_id, point in self._blob_points:
            cursor = db.execute(
                "INSERT INTO blob_points (series_id, file_id, step, wall_time, length) VALUES (?, ?, ?, ?, ?)",
                (series_id, self._file_id, point.step, point.wall_time, len(point.blobs)),
            )
            db.executemany(
                "INSERT INTO blobs (point_id, position, data) VALUES (?, ?, ?)",
                [(cursor.lastrowid, position, blob) for position, blob in enumerate(point.blobs)],
            )
            touch(series_id, 1, point.step, point.wall_time, len(point.blobs))
        db.executemany(
            "UPDATE series SET point_count = point_count + ?, max_step = MAX(COALESCE(max_step, ?), ?),"
            " max_wall_time = MAX(COALESCE(max_wall_time, ?), ?), max_length = MAX(max_length, ?) WHERE id = ?",
            [
                (count, max_step, max_step, wall_time, wall_time, length, series_id)
                for series_id, (count, max_step, wall_time, length) in touched.items()
            ],
        )
        self._scalars = {}
        self._tensors = []
        self._blob_points = []

    def _purge(self, run_id: int, purge: Purge) -> None:
        db = self._db
        sql = "SELECT id FROM series WHERE run_id = ? AND max_step >= ?"
        params: list[object] = [run_id, purge.step]
        if purge.tags is not None:
            sql += " AND tag IN (SELECT value FROM json_each(?))"
            params.append(orjson.dumps(list(purge.tags)).decode())
        series_ids = [row[0] for row in db.execute(sql, params)]
        for series_id in series_ids:
            self._purge_scalar_chunks(series_id, purge.step)
            db.execute("DELETE FROM tensor_points WHERE series_id = ? AND step >= ?", (series_id, purge.step))
            db.execute(
                "DELETE FROM blobs WHERE point_id IN (SELECT id FROM blob_points WHERE series_id = ? AND step >= ?)",
                (series_id, purge.step),
            )
            db.execute("DELETE FROM blob_points WHERE series_id = ? AND step >= ?", (series_id, purge.step))
        _refresh_summaries(db, series_ids)

    def _purge_scalar_chunks(self, series_id: int, step: int) -> None:
        db = self._db
        db.execute("DELETE FROM scalar_chunks WHERE series_id = ? AND min_step >= ?", (series_id, step))
        straddling = db.execute(
            "SELECT id, steps, wall_times, scalar_values FROM scalar_chunks WHERE series_id = ? AND max_step >= ?",
            (series_id, step),
        ).fetchall()
        for chunk_id, steps_blob, wall_times_blob, values_blob in straddling:
            steps = _unpack("q", steps_blob)
            wall_times = _unpack("d", wall_times_blob)
            values = _unpack("d", values_blob)
            keep = [i for i, s in enumerate(steps) if s < step]
            kept_steps = array("q", [steps[i] for i in keep])
            db.execute(
                "UPDATE scalar_chunks SET point_count = ?, min_step = ?, max_step = ?, steps = ?, wall_times = ?,"
                " scalar_values = ? WHERE id = ?",
                (
                    len(keep),
                    min(kept_steps),
                    max(kept_steps),
                    kept_steps.tobytes(),
                    array("d", [wall_times[i] for i in keep]).tobytes(),
                    array("d", [values[i] for i in keep]).tobytes(),
                    chunk_id,
                ),
            )


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


def _sampled_chunks(rows: list[tuple[int, bytes, bytes, bytes]], downsample: int) -> ScalarColumns:
    """The points `sample_indices` picks from the chunks' concatenation, taken from each chunk in place: a series of a
    million points is not copied to read a thousand of them."""
    starts = np.cumsum([0, *(row[0] for row in rows)])
    indices = sample_indices(int(starts[-1]), downsample)
    chunk_of = np.searchsorted(starts, indices, side="right") - 1
    dtypes = ("<i8", "<f8", "<f8")
    columns = [np.empty(len(indices), dtype) for dtype in dtypes]
    for chunk in np.unique(chunk_of):
        chosen = chunk_of == chunk
        positions = indices[chosen] - starts[chunk]
        for column, blob, dtype in zip(columns, rows[chunk][1:], dtypes, strict=True):
            column[chosen] = np.frombuffer(blob, dtype)[positions]
    return ScalarColumns(steps=columns[0], wall_times=columns[1], values=columns[2])


def _refresh_summaries(db: sqlite3.Connection, series_ids: Iterable[int]) -> None:
    """Recompute the per-series summary after points were deleted."""
    for series_id in series_ids:
        scalar_count, scalar_max_step = db.execute(
            "SELECT SUM(point_count), MAX(max_step) FROM scalar_chunks WHERE series_id = ?", (series_id,)
        ).fetchone()
        tensor_count, tensor_max_step, tensor_max_wall_time = db.execute(
            "SELECT COUNT(*), MAX(step), MAX(wall_time) FROM tensor_points WHERE series_id = ?", (series_id,)
        ).fetchone()
        blob_count, blob_max_step, blob_max_wall_time, max_length = db.execute(
            "SELECT COUNT(*), MAX(step), MAX(wall_time), MAX(length) FROM blob_points WHERE series_id = ?",
            (series_id,),
        ).fetchone()
        steps = [s for s in (scalar_max_step, tensor_max_step, blob_max_step) if s is not None]
        wall_times = [w for w in (tensor_max_wall_time, blob_max_wall_time) if w is not None]
        wall_times += [
            max(_unpack("d", blob))
            for (blob,) in db.execute("SELECT wall_times FROM scalar_chunks WHERE series_id = ?", (series_id,))
        ]
        db.execute(
            "UPDATE series SET point_count = ?, max_step = ?, max_wall_time = ?, max_length = ? WHERE id = ?",
            (
                (scalar_count or 0) + tensor_count + blob_count,
                max(steps, default=None),
                max(wall_times, default=None),
                max_length or 0,
                series_id,
            ),
        )


def _unpack(typecode: str, blob: bytes) -> array[Any]:
    values: array[Any] = array(typecode)
    values.frombytes(blob)
    return values
