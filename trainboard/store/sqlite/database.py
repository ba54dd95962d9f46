"""The embedded backend: one SQLite file in WAL mode, one writer connection, a read-only connection per thread."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import itertools
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np
import orjson

from trainboard.names import loggable
from trainboard.normaliser.points import DataClass, RunState, SeriesMetadata
from trainboard.reader.tail import FileCursor
from trainboard.store.database import (
    BlobSequenceRecord,
    FileSave,
    SavedFile,
    ScalarChunk,
    SummaryDelta,
    TensorRecord,
    saved_one_by_one,
)
from trainboard.store.errors import StaleOffsetError, StoreDamaged, StoreUnavailable
from trainboard.store.migrations import migrate, unexpected
from trainboard.store.run_filter import RunFilter
from trainboard.store.run_filter_sql import SQLITE, Derived, Matches, Source
from trainboard.store.run_values import HParamRow, ValueRow
from trainboard.store.runs_table import TableQuery
from trainboard.store.sql_runs_table import RunQueries
from trainboard.store.sqlite.accounts import SqliteAccounts
from trainboard.store.sqlite.first_load import FirstLoad, sync
from trainboard.store.sqlite.large import LARGE_VALUE, insert_large
from trainboard.store.sqlite.migrations import (
    BACKFILLS,
    MIGRATIONS,
    OLD_MIGRATIONS,
    REFRESH_RUN_TIMES,
    REFRESH_SERIES_SUMMARIES,
)
from trainboard.store.sqlite.run_metadata import SqliteRunMetadata
from trainboard.store.summaries import COLUMNS as SUMMARY_COLUMNS
from trainboard.store.values import (
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
)

# Packed columns are stored little-endian, the machine's own order.
if sys.byteorder != "little":
    raise ImportError("trainboard's SQLite store packs arrays in native order and needs a little-endian machine")

# The packed columns of a scalar chunk, each of 8-byte little-endian records.
PACKED_COLUMNS = ("steps", "wall_times", "scalar_values")
PACKED_DTYPES = ("<i8", "<f8", "<f8")
# Above this many points picked from one chunk, reading the chunk whole costs less than one read per point.
FEW_PICKS = 16
# SQLite clamps this to its compiled-in maximum (2 GB in most builds).
READ_MMAP_BYTES = 1 << 40
# Pages of new stores: a quarter of the system calls of SQLite's 4 KiB in writes, the log's checkpoints and reads (a
# chunk of points spans overflow pages). Measured on a first pass, two workers: the engine logdir 0.61-0.73 -> 0.54-0.55
# s, ten times its size 6.0 -> 4.8 s, 10,000 small runs 9.95 -> 9.22 s and 432 -> 295 MB on disk; synced as
# `trainboard ingest` writes, 10,000 small runs wrote 998 -> 807 MB.
PAGE_SIZE = 16384


# An experiment's rows in every table but `blobs` (the blob store's), children first; its tokens are revoked, not
# deleted, so that their sessions end and `trainboard tokens list` still shows them.
_IN_SERIES = "series_id IN (SELECT id FROM series WHERE experiment_id = :experiment)"
DELETE_EXPERIMENT = (
    "DELETE FROM definitions WHERE experiment_id = :experiment",
    "DELETE FROM pin_series WHERE experiment_id = :experiment",
    "DELETE FROM pin_runs WHERE experiment_id = :experiment",
    "DELETE FROM pins WHERE experiment_id = :experiment",
    f"DELETE FROM blob_refs WHERE point_id IN (SELECT id FROM blob_points WHERE {_IN_SERIES})",
    f"DELETE FROM blob_points WHERE {_IN_SERIES}",
    f"DELETE FROM tensor_points WHERE {_IN_SERIES}",
    f"DELETE FROM scalar_chunks WHERE {_IN_SERIES}",
    "DELETE FROM series WHERE experiment_id = :experiment",
    "DELETE FROM files WHERE experiment_id = :experiment",
    "DELETE FROM run_hparams WHERE experiment_id = :experiment",
    "DELETE FROM runs WHERE experiment_id = :experiment",
    "DELETE FROM experiment_roles WHERE experiment_id = :experiment",
    "DELETE FROM claim_roles WHERE experiment_id = :experiment",
    "DELETE FROM run_metadata WHERE experiment_id = :experiment",
    "DELETE FROM run_labels WHERE experiment_id = :experiment",
    "DELETE FROM saved_views WHERE experiment_id = :experiment",
    "UPDATE tokens SET revoked = :now WHERE experiment_id = :experiment AND revoked IS NULL",
    "DELETE FROM experiments WHERE id = :experiment",
)


# Chunks' summaries merged into their series' (trainboard.store.summaries): the first points written set its first
# point, ties keep the earlier min and max.
_ADD_TO_SUMMARIES = (
    "UPDATE series SET point_count = point_count + :count, max_step = MAX(COALESCE(max_step, :max_step), :max_step),"
    " max_wall_time = MAX(COALESCE(max_wall_time, :max_wall_time), :max_wall_time),"
    " max_length = MAX(max_length, :max_length),"
    # A delta without scalars (last_step NULL) leaves the scalar summary as it is.
    " nonfinite_count = CASE WHEN :last_step IS NULL THEN nonfinite_count"
    " ELSE COALESCE(nonfinite_count, 0) + :nonfinite_count END,"
    " value_sum = COALESCE(value_sum + :value_sum, value_sum, :value_sum),"
    " min_value_step = CASE WHEN min_value IS NULL OR :min_value < min_value THEN :min_value_step"
    " ELSE min_value_step END,"
    " min_value = CASE WHEN min_value IS NULL OR :min_value < min_value THEN :min_value ELSE min_value END,"
    " max_value_step = CASE WHEN max_value IS NULL OR :max_value > max_value THEN :max_value_step"
    " ELSE max_value_step END,"
    " max_value = CASE WHEN max_value IS NULL OR :max_value > max_value THEN :max_value ELSE max_value END,"
    " first_wall_time = CASE WHEN first_step IS NULL THEN :first_wall_time ELSE first_wall_time END,"
    " first_value = CASE WHEN first_step IS NULL THEN :first_value ELSE first_value END,"
    " first_step = COALESCE(first_step, :first_step),"
    " last_step = COALESCE(:last_step, last_step),"
    " last_wall_time = CASE WHEN :last_step IS NULL THEN last_wall_time ELSE :last_wall_time END,"
    " last_value = CASE WHEN :last_step IS NULL THEN last_value ELSE :last_value END WHERE id = :id"
)
# The summary columns of a delta without scalars.
_NO_SCALARS = dict.fromkeys(SUMMARY_COLUMNS)
# What the run filter and the runs table read (trainboard.store.run_filter_sql), live and as of a pin.
_LIVE = Source(
    runs="SELECT id AS run_id, name, start_time, last_step, last_wall_time, end_status FROM runs"
    " WHERE experiment_id = :experiment",
    series="series {a} ON {a}.run_id = r.run_id AND {a}.data_class = :scalar",
    hparams="run_hparams {a} ON {a}.run_id = r.run_id",
    metrics=(
        "SELECT run_id, tag AS key, last_value AS number FROM series WHERE experiment_id = :experiment"
        " AND data_class = :scalar"
    ),
    first_point_time=(
        "(SELECT MIN(t.first_wall_time) FROM series t WHERE t.run_id = r.run_id AND t.data_class = :scalar)"
    ),
)
_PINNED = Source(
    runs="SELECT p.run_id, p.name, p.start_time, x.last_step, x.last_wall_time, x.end_status FROM pin_runs p"
    " JOIN runs x ON x.id = p.run_id AND x.name = p.name WHERE p.experiment_id = :experiment AND p.pin_id = :pin",
    series="(SELECT p.* FROM pin_series p JOIN series x ON x.id = p.series_id AND x.tag = p.tag"
    " AND x.data_class = :scalar WHERE p.experiment_id = :experiment AND p.pin_id = :pin) {a} ON {a}.run_id = r.run_id",
    hparams=_LIVE.hparams,
    metrics=(
        "SELECT p.run_id, p.tag AS key, p.last_value AS number FROM pin_series p JOIN series s ON s.id = p.series_id"
        " AND s.tag = p.tag WHERE p.experiment_id = :experiment AND p.pin_id = :pin AND s.data_class = :scalar"
    ),
    first_point_time=(
        "(SELECT MIN(t.first_wall_time) FROM pin_series t JOIN series x ON x.id = t.series_id AND x.tag = t.tag"
        " AND x.data_class = :scalar WHERE t.experiment_id = :experiment AND t.pin_id = :pin AND t.run_id = r.run_id)"
    ),
)
_QUERIES = RunQueries(SQLITE, _LIVE, _PINNED)


# What the store says of damage to the database's own structure, unless its owner knows better (`damage_hint`).
RESTORE_HINT = "restore it from a backup, or move it away and ingest again"
# Checked by SQLite at open: the tables of metadata, small beside the points.
CHECKED_AT_OPEN = ("migrations", "experiments", "runs", "files", "series")
# SQLite's primary result codes for a database whose structure is broken.
DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)

Self = TypeVar("Self", bound="Guarded")
Params = ParamSpec("Params")
Result = TypeVar("Result")


# Every read names its experiment, and ids are unique across experiments: a point is read only through a series of the
# experiment named. One series, checked once (bound: series id, experiment id).
_SERIES_OF_EXPERIMENT = "(SELECT id FROM series WHERE id = ? AND experiment_id = ?)"
# Of series ids given as JSON, those of the experiment, each looked up by its key (bound: the ids, experiment id).
_SERIES_IN_EXPERIMENT = "SELECT value FROM json_each(?) WHERE (SELECT experiment_id FROM series WHERE id = value) = ?"


def _of_experiment(points: str) -> str:
    """A condition keeping the rows of `points` (a point table or its alias) whose series is the experiment's (bound:
    experiment id)."""
    return f"(SELECT experiment_id FROM series WHERE id = {points}.series_id) = ?"


def _json(values: Collection[object]) -> str:
    return orjson.dumps(list(values)).decode()


def is_damage(error: sqlite3.Error) -> bool:
    """Whether SQLite found its own structure broken ("database disk image is malformed", "file is not a database")."""
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) in DAMAGE_CODES


class Guarded:
    """Has a backend whose damage its methods report (`guarded`)."""

    sqlite: SqliteDatabase


def guarded(method: Callable[Concatenate[Self, Params], Result]) -> Callable[Concatenate[Self, Params], Result]:
    """`method`, raising `StoreDamaged` (structural) where SQLite finds its structure broken, never its own error; and
    for any error of a database already found damaged: a request that took it before it was moved aside may open its
    path while the new one there has no tables yet ("no such table")."""

    @functools.wraps(method)
    def checked(self: Self, *args: Params.args, **kwargs: Params.kwargs) -> Result:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as error:
            if not is_damage(error) and self.sqlite.damage is None:
                raise
            raise self.sqlite.damaged(error) from None

    return checked  # type: ignore[return-value]


Class = TypeVar("Class", bound=type)


def guard_methods(cls: Class) -> Class:
    """The class with each of its public methods `guarded`."""
    for name, value in list(vars(cls).items()):
        if callable(value) and not name.startswith("_") and name != "damaged":
            setattr(cls, name, guarded(value))
    return cls


# How long a write waits for another process's write transaction: while opening, and after.
OPEN_BUSY_SECONDS = 10
BUSY_SECONDS = 120


@guard_methods
class SqliteDatabase(Guarded):
    def __init__(self, path: str | Path, first_load: FirstLoad | None = None) -> None:
        """The store at `path`; with `first_load`, filled without waiting for the disk until `settle`."""
        self.path = Path(path)
        self.first_load = first_load
        self.sqlite = self
        # The first damage to the database's structure found, once found; `on_damage` is called then.
        self.damage: str | None = None
        self.on_damage: Callable[[], None] = lambda: None
        self.damage_hint = RESTORE_HINT
        # Only its owner may read the store: the directory trainboard makes and the file (SQLite gives its -wal and
        # -shm the database file's mode).
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(self.path, os.O_RDONLY | os.O_CREAT, 0o600))
        # Another process writing the same file: wait for its commits rather than fail; at open, only as long as a
        # commit takes, so that a store locked for good is an error at start rather than a silent wait.
        self.writer = sqlite3.connect(
            self.path, timeout=OPEN_BUSY_SECONDS, check_same_thread=False, isolation_level=None
        )
        # Only a new file takes it; a store made with other pages keeps them.
        self.writer.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        self.writer.execute("PRAGMA journal_mode = WAL")
        self.writer.execute(f"PRAGMA synchronous = {'OFF' if first_load else 'NORMAL'}")
        # Reentrant: the database's own blob store writes inside a batch's transaction, on this thread.
        self.write_lock = threading.RLock()
        self._readers = threading.local()
        self._reader_connections: list[sqlite3.Connection] = []
        self._writer_locks: list[int] = []
        self._migrate()
        self._check_small_tables()
        self.writer.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")
        self.accounts = SqliteAccounts(self.read_connection, self.writer, self.write_lock)
        self.run_metadata = SqliteRunMetadata(self.read_connection, self._immediate)

    def damaged(self, error: sqlite3.Error) -> StoreDamaged:
        """The error to raise for damage SQLite found in its own structure, noted and told to `on_damage` once."""
        first = self.damage is None
        self.damage = self.damage or str(error)
        if first:
            self.on_damage()
        return StoreDamaged(f"the store {self.path} is damaged ({self.damage}): {self.damage_hint}", structural=True)

    def _check_small_tables(self) -> None:
        """SQLite's own check of the tables every answer starts from, small beside the points (milliseconds): their
        rows, and their indexes against them. The points are checked by checksums as they are read."""
        for table in CHECKED_AT_OPEN:
            problems = [problem for (problem,) in self.writer.execute(f"PRAGMA integrity_check({table})")]
            if problems != ["ok"]:
                raise self.damaged(sqlite3.DatabaseError(f"{table}: {problems[0]}"))

    def _migrate(self) -> None:
        # Write transactions take turns across processes, and SQLite changes its schema in one.
        migrate(
            MIGRATIONS,
            self._immediate,
            placeholder="?",
            location=f"the store {self.path}",
            backfills=BACKFILLS,
            retired=OLD_MIGRATIONS,
        )

    @contextlib.contextmanager
    def _immediate(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the writer connection, begun before its first read so that it reads what it
        writes over: no other connection commits until it ends."""
        with self.write_lock:
            db = self.writer
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def read_connection(self) -> sqlite3.Connection:
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
        """Fold the write-ahead log into the database file: reads through a long WAL are slower. After a first load,
        the store is on disk and synced the usual way from then on."""
        with self.write_lock:
            if self.first_load is not None:
                self.writer.execute("PRAGMA synchronous = NORMAL")
            self.writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if self.first_load is not None:
                # The checkpoint syncs the database only when no reader kept it from copying every page.
                for suffix in ("", "-wal"):
                    sync(f"{self.path}{suffix}")
                self.first_load.end()
                self.first_load = None

    def check(self) -> None:
        # The connections open keep reading a file removed or replaced under them: the path must still name it.
        if not self.path.is_file():
            raise StoreUnavailable(f"the store {self.path} is gone")
        try:
            applied = [name for (name,) in self.read_connection().execute("SELECT name FROM migrations")]
        except sqlite3.Error as error:
            raise StoreUnavailable(f"cannot read the store {self.path}: {error}") from None
        if problem := unexpected(MIGRATIONS, applied, retired=OLD_MIGRATIONS):
            raise StoreUnavailable(f"the store {self.path}: {problem}")

    def pool_stats(self) -> dict[str, int]:
        return {}

    def close(self) -> None:
        if self.first_load is not None:
            # Not synced, the sentinel stays: the next opener builds the store again.
            with contextlib.suppress(sqlite3.Error, StoreDamaged):
                self.settle()
        for descriptor in self._writer_locks:
            os.close(descriptor)  # releases its lock
        self._writer_locks.clear()
        for connection in self._reader_connections:
            connection.close()
        self._reader_connections.clear()
        self.writer.close()

    # Experiments.

    def experiments(self) -> list[ExperimentRow]:
        rows = self.read_connection().execute(
            "SELECT e.id, e.name, e.description, e.location, e.created, e.updated,"
            " (SELECT COUNT(*) FROM runs r WHERE r.experiment_id = e.id), e.owner_id"
            " FROM experiments e ORDER BY e.created, e.id"
        )
        return [ExperimentRow(*row) for row in rows]

    def create_experiment(self, experiment_id: str, name: str, description: str, location: str) -> ExperimentRow:
        now = time.time()
        with self.write_lock:
            self.writer.execute(
                "INSERT INTO experiments (id, name, description, location, created, updated) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (experiment_id, name, description, location, now, now),
            )
        return next(e for e in self.experiments() if e.name == name and e.owner_id is None)

    def generation(self, experiment_id: str) -> int:
        row = (
            self.read_connection()
            .execute("SELECT generation FROM experiments WHERE id = ?", (experiment_id,))
            .fetchone()
        )
        return -1 if row is None else int(row[0])

    # Reads.

    def runs(self, experiment_id: str) -> list[RunRow]:
        rows = self.read_connection().execute(
            "SELECT name, start_time FROM runs WHERE experiment_id = ? ORDER BY id", (experiment_id,)
        )
        return [RunRow(name=name, start_time=start_time) for name, start_time in rows]

    def run_state(self, experiment_id: str, run: str) -> RunState | None:
        row = (
            self.read_connection()
            .execute(
                "SELECT file_version, most_recent_step, seen_session_start, start_time FROM runs"
                " WHERE experiment_id = ? AND name = ?",
                (experiment_id, run),
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
        )

    def plugin_names(self, experiment_id: str) -> list[str]:
        rows = self.read_connection().execute(
            "SELECT DISTINCT plugin_name FROM series WHERE experiment_id = ? ORDER BY plugin_name", (experiment_id,)
        )
        return [name for (name,) in rows]

    def series(
        self,
        experiment_id: str,
        *,
        plugin_name: str | None,
        data_class: DataClass | None,
        runs: Collection[str] | None,
        tags: Collection[str] | None,
    ) -> list[SeriesRow]:
        sql = (
            "SELECT s.id, r.name, s.tag, s.plugin_name, s.data_class, s.plugin_content, s.display_name,"
            " s.description, s.point_count, s.max_step, s.max_wall_time, s.max_length"
            " FROM series s JOIN runs r ON r.id = s.run_id WHERE s.experiment_id = ?"
        )
        params: list[object] = [experiment_id]
        if plugin_name is not None:
            sql += " AND s.plugin_name = ?"
            params.append(plugin_name)
        if data_class is not None:
            sql += " AND s.data_class = ?"
            params.append(int(data_class))
        if runs is not None:
            sql += " AND r.name IN (SELECT value FROM json_each(?))"
            params.append(_json(runs))
        if tags is not None:
            sql += " AND s.tag IN (SELECT value FROM json_each(?))"
            params.append(_json(tags))
        sql += " ORDER BY r.id, s.id"
        return [SeriesRow.of(row) for row in self.read_connection().execute(sql, params)]

    def scalar_chunk_index(self, experiment_id: str, series_id: int) -> ChunkIndex:
        rows = self.read_connection().execute(
            "SELECT id, point_count, min_step, max_step, COALESCE(checksum, -1) FROM scalar_chunks"
            f" WHERE series_id = {_SERIES_OF_EXPERIMENT} ORDER BY id",
            (series_id, experiment_id),
        )
        return ChunkIndex.of(rows.fetchall())

    def scalar_chunks(self, experiment_id: str, chunk_ids: Collection[int]) -> list[tuple[ScalarColumns, int]]:
        return [(_unpacked(*blobs), checksum) for *blobs, checksum in self._chunk_columns(experiment_id, chunk_ids)]

    def scalar_picks(self, experiment_id: str, picks: list[tuple[int, list[int]]]) -> ScalarColumns:
        """Read in place through SQLite's incremental blob I/O: a chunk that gives few points gives only those 8-byte
        records, one that gives many is read whole (one call instead of one per point)."""
        connection = self.read_connection()
        at = 0
        connection.execute("BEGIN")  # one snapshot for every column of every chunk
        try:
            owned = {
                chunk_id
                for (chunk_id,) in connection.execute(
                    "SELECT c.id FROM scalar_chunks c WHERE c.id IN (SELECT value FROM json_each(?))"
                    f" AND {_of_experiment('c')}",
                    (_json([chunk_id for chunk_id, _ in picks]), experiment_id),
                )
            }
            picks = [(chunk_id, positions) for chunk_id, positions in picks if chunk_id in owned]
            count = sum(len(positions) for _, positions in picks)
            columns = [np.empty(count, dtype) for dtype in PACKED_DTYPES]
            for chunk_id, positions in picks:
                chosen = slice(at, at + len(positions))
                for column, name, dtype in zip(columns, PACKED_COLUMNS, PACKED_DTYPES, strict=True):
                    with connection.blobopen("scalar_chunks", name, chunk_id, readonly=True) as blob:
                        if len(positions) > FEW_PICKS:
                            column[chosen] = np.frombuffer(blob.read(), dtype)[positions]
                            continue
                        records = []
                        for position in positions:
                            blob.seek(position * 8)
                            records.append(blob.read(8))
                        column[chosen] = np.frombuffer(b"".join(records), dtype)
                at += len(positions)
        finally:
            connection.execute("COMMIT")
        return ScalarColumns(*columns)

    def _chunk_columns(self, experiment_id: str, chunk_ids: Collection[int]) -> list[tuple[bytes, bytes, bytes, int]]:
        """The packed columns and checksum (-1: none) of those of these chunks that are the experiment's, in the order
        of `chunk_ids` (a series' chunks in order have increasing ids: the rowid order, which needs no sort of rows
        that hold the blobs)."""
        rows = self.read_connection().execute(
            "SELECT c.id, c.steps, c.wall_times, c.scalar_values, COALESCE(c.checksum, -1) FROM scalar_chunks c"
            f" WHERE c.id IN (SELECT value FROM json_each(?)) AND {_of_experiment('c')} ORDER BY c.id",
            (_json(chunk_ids), experiment_id),
        )
        by_id = {chunk_id: columns for chunk_id, *columns in rows}
        return [by_id[chunk_id] for chunk_id in chunk_ids if chunk_id in by_id]

    def run_values(
        self,
        experiment_id: str,
        *,
        pin_id: str | None,
        where: RunFilter | None,
        matches: Matches,
        stalled_since: float,
        derived: Derived,
    ) -> list[ValueRow]:
        sql, params = _QUERIES.values(
            experiment_id, pin_id=pin_id, where=where, matches=matches, stalled_since=stalled_since, derived=derived
        )
        return self.read_connection().execute(sql, params).fetchall()

    def runs_table(
        self,
        experiment_id: str,
        *,
        pin_id: str | None,
        query: TableQuery,
        matches: Matches,
        stalled_since: float,
        derived: Derived,
    ) -> list[tuple[object, ...]]:
        sql, params = _QUERIES.table(
            experiment_id, pin_id=pin_id, query=query, matches=matches, stalled_since=stalled_since, derived=derived
        )
        return self.read_connection().execute(sql, params).fetchall()

    def table_fields(self, experiment_id: str) -> tuple[list[str], list[str]]:
        connection = self.read_connection()
        (hparams_sql, params), (tags_sql, _) = _QUERIES.fields(experiment_id)
        hparams = connection.execute(hparams_sql, params)
        tags = connection.execute(tags_sql, params)
        return sorted(name for (name,) in hparams), sorted(tag for (tag,) in tags)

    def hparam_texts(self, experiment_id: str, name: str) -> list[str]:
        sql, params = _QUERIES.hparam_texts(experiment_id, name)
        return [text for (text,) in self.read_connection().execute(sql, params)]

    def last_scalars(
        self, experiment_id: str, series_ids: Collection[int]
    ) -> dict[int, tuple[int, int, ScalarColumns]]:
        rows = self.read_connection().execute(
            "SELECT c.series_id, c.id, COALESCE(c.checksum, -1), c.steps, c.wall_times, c.scalar_values"
            " FROM scalar_chunks c JOIN (SELECT MAX(id) AS id FROM scalar_chunks"
            f" WHERE series_id IN ({_SERIES_IN_EXPERIMENT}) GROUP BY series_id) last ON c.id = last.id",
            (_json(series_ids), experiment_id),
        )
        return {
            series_id: (
                chunk_id,
                checksum,
                ScalarColumns(
                    steps=np.frombuffer(steps, dtype="<i8")[-1:],
                    wall_times=np.frombuffer(wall_times, dtype="<f8")[-1:],
                    values=np.frombuffer(values, dtype="<f8")[-1:],
                ),
            )
            for series_id, chunk_id, checksum, steps, wall_times, values in rows
        }

    def tensor_index(self, experiment_id: str, series_id: int, steps: StepRange) -> PointIndex:
        sql, params = _in_steps(
            f"SELECT id, step, wall_time FROM tensor_points WHERE series_id = {_SERIES_OF_EXPERIMENT}",
            [series_id, experiment_id],
            steps,
        )
        rows = self.read_connection().execute(sql + " ORDER BY id", params).fetchall()
        return PointIndex(
            ids=np.array([row[0] for row in rows], dtype=np.int64),
            steps=np.array([row[1] for row in rows], dtype=np.int64),
            wall_times=np.array([row[2] for row in rows], dtype=np.float64),
        )

    def tensor_values(self, experiment_id: str, point_ids: Collection[int]) -> list[tuple[bytes, int]]:
        """With their checksums; a large tensor is read through incremental blob I/O: as a column it would be copied
        twice more."""
        db = self.read_connection()
        rows = db.execute(
            "SELECT t.id, CASE WHEN length(t.tensor) < ? THEN t.tensor END, COALESCE(t.checksum, -1)"
            f" FROM json_each(?) j JOIN tensor_points t ON t.id = j.value WHERE {_of_experiment('t')} ORDER BY j.key",
            (LARGE_VALUE, _json(point_ids), experiment_id),
        ).fetchall()
        found = []
        for point_id, tensor, checksum in rows:
            if tensor is None:
                with db.blobopen("tensor_points", "tensor", point_id, readonly=True) as blob:
                    tensor = blob.read()
            found.append((bytes(tensor), checksum))
        return found

    def blob_sequences(self, experiment_id: str, series_id: int, steps: StepRange) -> list[BlobSequenceRow]:
        sql, params = _in_steps(
            "SELECT p.step, p.wall_time, (SELECT json_group_array(blob_key) FROM"
            " (SELECT blob_key FROM blob_refs WHERE point_id = p.id ORDER BY position))"
            f" FROM blob_points p WHERE p.series_id = {_SERIES_OF_EXPERIMENT}",
            [series_id, experiment_id],
            steps,
            column="p.step",
        )
        rows = self.read_connection().execute(sql + " ORDER BY p.id", params)
        return [
            BlobSequenceRow(step=step, wall_time=wall_time, blob_keys=tuple(orjson.loads(keys)))
            for step, wall_time, keys in rows
        ]

    def file_cursors(self, experiment_id: str) -> dict[str, FileCursor]:
        rows = self.read_connection().execute(
            "SELECT path, read_offset, size, mtime, head FROM files WHERE experiment_id = ?", (experiment_id,)
        )
        return {
            path: FileCursor(path=path, offset=offset, size=size, mtime=mtime, head=bytes(head))
            for path, offset, size, mtime, head in rows
        }

    def file_cursor(self, experiment_id: str, path: str) -> FileCursor | None:
        rows = self.read_connection().execute(
            "SELECT read_offset, size, mtime, head FROM files WHERE experiment_id = ? AND path = ?",
            (experiment_id, path),
        )
        return next((FileCursor(path, offset, size, mtime, bytes(head)) for offset, size, mtime, head in rows), None)

    def file_run(self, experiment_id: str, path: str) -> str | None:
        found = (
            self.read_connection()
            .execute(
                "SELECT runs.name FROM files JOIN runs ON runs.id = files.run_id"
                " WHERE files.experiment_id = ? AND files.path = ?",
                (experiment_id, path),
            )
            .fetchone()
        )
        return None if found is None else str(found[0])

    def damaged_files(
        self,
        experiment_id: str,
        *,
        chunk_ids: Collection[int] = (),
        tensor_ids: Collection[int] = (),
        blob_keys: Collection[str] = (),
    ) -> list[str]:
        rows = self.read_connection().execute(
            "SELECT path FROM files WHERE experiment_id = ? AND id IN ("
            " SELECT file_id FROM scalar_chunks WHERE id IN (SELECT value FROM json_each(?))"
            " UNION SELECT file_id FROM tensor_points WHERE id IN (SELECT value FROM json_each(?))"
            " UNION SELECT p.file_id FROM blob_refs r JOIN blob_points p ON p.id = r.point_id"
            " WHERE r.blob_key IN (SELECT value FROM json_each(?))) ORDER BY path",
            (experiment_id, _json(chunk_ids), _json(tensor_ids), _json(blob_keys)),
        )
        return [path for (path,) in rows]

    def adopt_claims(self, other: SqliteDatabase) -> None:
        """Hold the writer claims `other` holds (a store built again in its place)."""
        self._writer_locks += other._writer_locks
        other._writer_locks = []

    # Writes.

    def claim_writer(self, experiment_id: str) -> bool:
        """A lock on a file beside the store's, which the system releases when the process ends."""
        descriptor = self._lock_writer(experiment_id)
        if descriptor is None:
            return False
        self._writer_locks.append(descriptor)
        return True

    def _writer_file(self, experiment_id: str) -> str:
        return f"{self.path}.{experiment_id}.writer"

    def _lock_writer(self, experiment_id: str) -> int | None:
        """A descriptor holding the experiment's writer lock; None when another one holds it."""
        descriptor = os.open(self._writer_file(experiment_id), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            return None
        return descriptor

    @contextlib.contextmanager
    def transaction(self, experiment_id: str) -> Iterator[SqliteTransaction]:
        with self._immediate() as db:
            yield SqliteTransaction(self, db, experiment_id)
            db.execute(
                "UPDATE experiments SET generation = generation + 1, updated = ? WHERE id = ?",
                (time.time(), experiment_id),
            )

    def delete_experiment(self, experiment_id: str) -> bool:
        descriptor = self._lock_writer(experiment_id)
        if descriptor is None:
            return False
        try:
            with self._immediate() as db:
                for statement in DELETE_EXPERIMENT:
                    db.execute(statement, {"experiment": experiment_id, "now": time.time()})
            os.unlink(self._writer_file(experiment_id))
        finally:
            os.close(descriptor)
        return True

    # Pins.

    def create_pin(self, experiment_id: str, pin_id: str, created: float, creator: int | None) -> None:
        params = {"experiment": experiment_id, "pin": pin_id, "created": created, "creator": creator}
        with self._immediate() as db:
            db.execute(
                "INSERT INTO pins (experiment_id, id, created, creator) SELECT id, :pin, :created, :creator"
                " FROM experiments WHERE id = :experiment",
                params,
            )
            db.execute(
                "INSERT INTO pin_runs (experiment_id, pin_id, run_id, name, start_time)"
                " SELECT experiment_id, :pin, id, name, start_time FROM runs WHERE experiment_id = :experiment",
                params,
            )
            db.execute(
                "INSERT INTO pin_series (experiment_id, pin_id, series_id, run_id, tag, point_count, max_step,"
                f" max_wall_time, max_length, {', '.join(SUMMARY_COLUMNS)}) SELECT experiment_id, :pin, id, run_id,"
                f" tag, point_count, max_step, max_wall_time, max_length, {', '.join(SUMMARY_COLUMNS)}"
                " FROM series WHERE experiment_id = :experiment",
                params,
            )

    def pin(self, experiment_id: str, pin_id: str) -> Pin | None:
        connection = self.read_connection()
        params = (experiment_id, pin_id)
        connection.execute("BEGIN")  # one snapshot
        try:
            found = connection.execute("SELECT created FROM pins WHERE experiment_id = ? AND id = ?", params).fetchone()
            if found is None:
                return None
            runs = connection.execute(
                "SELECT run_id, name, start_time FROM pin_runs WHERE experiment_id = ? AND pin_id = ? ORDER BY run_id",
                params,
            ).fetchall()
            series = connection.execute(
                "SELECT series_id, run_id, tag, point_count, max_step, max_wall_time, max_length FROM pin_series"
                " WHERE experiment_id = ? AND pin_id = ?",
                params,
            ).fetchall()
        finally:
            connection.execute("COMMIT")
        return Pin.of(pin_id, found[0], runs, series)

    def pins(self, experiment_id: str) -> list[PinRow]:
        rows = self.read_connection().execute(
            "SELECT id, created, creator FROM pins WHERE experiment_id = ? ORDER BY created, id", (experiment_id,)
        )
        return [PinRow(pin_id, created, creator) for pin_id, created, creator in rows]

    def pin_count(self, creator: int) -> int:
        (count,) = self.read_connection().execute("SELECT count(*) FROM pins WHERE creator = ?", (creator,)).fetchone()
        return int(count)

    def delete_pin(self, experiment_id: str, pin_id: str) -> bool:
        params = (experiment_id, pin_id)
        with self._immediate() as db:
            db.execute("DELETE FROM pin_series WHERE experiment_id = ? AND pin_id = ?", params)
            db.execute("DELETE FROM pin_runs WHERE experiment_id = ? AND pin_id = ?", params)
            return db.execute("DELETE FROM pins WHERE experiment_id = ? AND id = ?", params).rowcount > 0

    # Derived metrics.

    def definitions(self, experiment_id: str) -> list[Definition]:
        rows = self.read_connection().execute(
            "SELECT name, expression, align FROM definitions WHERE experiment_id = ?", (experiment_id,)
        )
        # Sorted here, not by the database's collation: both backends list them alike.
        return sorted((Definition(name, expression, align) for name, expression, align in rows), key=lambda d: d.name)

    def save_definition(self, experiment_id: str, definition: Definition, created: float) -> None:
        with self._immediate() as db:
            db.execute(
                "INSERT INTO definitions (experiment_id, name, expression, align, created) SELECT id, ?, ?, ?, ?"
                " FROM experiments WHERE id = ? ON CONFLICT (experiment_id, name) DO UPDATE"
                " SET expression = excluded.expression, align = excluded.align, created = excluded.created",
                (definition.name, definition.expression, definition.align, created, experiment_id),
            )
            db.execute("UPDATE experiments SET generation = generation + 1 WHERE id = ?", (experiment_id,))

    def delete_definition(self, experiment_id: str, name: str) -> bool:
        with self._immediate() as db:
            params = (experiment_id, name)
            if not db.execute("DELETE FROM definitions WHERE experiment_id = ? AND name = ?", params).rowcount:
                return False
            db.execute("UPDATE experiments SET generation = generation + 1 WHERE id = ?", (experiment_id,))
            return True


@guard_methods
class SqliteTransaction(Guarded):
    def __init__(self, sqlite: SqliteDatabase, db: sqlite3.Connection, experiment_id: str) -> None:
        self.sqlite = sqlite
        self._db = db
        self._experiment_id = experiment_id

    def save_files(self, files: Sequence[FileSave]) -> list[SavedFile]:
        # Statements in the process cost no round trip.
        return saved_one_by_one(self, files)

    def save_run(self, run: str, state: RunState) -> int:
        (run_id,) = self._db.execute(
            "INSERT INTO runs (experiment_id, name, start_time, file_version, most_recent_step, seen_session_start)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (experiment_id, name) DO UPDATE SET"
            " start_time = excluded.start_time, file_version = excluded.file_version,"
            " most_recent_step = excluded.most_recent_step, seen_session_start = excluded.seen_session_start"
            " RETURNING id",
            (
                self._experiment_id,
                run,
                state.start_time,
                state.file_version,
                state.most_recent_step,
                int(state.seen_session_start),
            ),
        ).fetchone()
        return int(run_id)

    def save_file(self, run_id: int, cursor: FileCursor, *, expected_offset: int | None) -> int:
        db = self._db
        row = db.execute(
            "SELECT read_offset FROM files WHERE experiment_id = ? AND path = ?", (self._experiment_id, cursor.path)
        ).fetchone()
        if (None if row is None else row[0]) != expected_offset:
            raise StaleOffsetError(f"{loggable(cursor.path)}: read from {expected_offset}, but the store is at {row}")
        (file_id,) = db.execute(
            "INSERT INTO files (experiment_id, run_id, path, read_offset, size, mtime, head)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (experiment_id, path) DO UPDATE SET"
            " run_id = excluded.run_id, read_offset = excluded.read_offset, size = excluded.size,"
            " mtime = excluded.mtime, head = excluded.head RETURNING id",
            (self._experiment_id, run_id, cursor.path, cursor.offset, cursor.size, cursor.mtime, cursor.head),
        ).fetchone()
        return int(file_id)

    def save_series(self, run_id: int, metadata: dict[str, SeriesMetadata]) -> dict[str, int]:
        db = self._db
        db.executemany(
            "INSERT INTO series (experiment_id, run_id, tag, plugin_name, data_class, plugin_content, display_name,"
            " description) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, tag) DO NOTHING",
            [
                (
                    self._experiment_id,
                    run_id,
                    tag,
                    m.plugin_name,
                    int(m.data_class),
                    m.plugin_content,
                    m.display_name,
                    m.description,
                )
                for tag, m in metadata.items()
            ],
        )
        return dict(
            db.execute(
                "SELECT tag, id FROM series WHERE run_id = ? AND experiment_id = ?", (run_id, self._experiment_id)
            ).fetchall()
        )

    def save_hparams(self, run_id: int, hparams: list[HParamRow]) -> None:
        self._db.executemany(
            "INSERT INTO run_hparams (experiment_id, run_id, name, number, text) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (run_id, name) DO NOTHING",
            [(self._experiment_id, run_id, name, number, text) for name, number, text in hparams],
        )

    def insert_scalar_chunks(self, chunks: list[ScalarChunk]) -> None:
        self._db.executemany(
            "INSERT INTO scalar_chunks (series_id, file_id, point_count, min_step, max_step, max_wall_time, steps,"
            f" wall_times, scalar_values, checksum, {', '.join(SUMMARY_COLUMNS)})"
            f" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {', '.join('?' * len(SUMMARY_COLUMNS))})",
            [
                (
                    c.series_id,
                    c.file_id,
                    len(c.columns),
                    c.min_step,
                    c.max_step,
                    c.max_wall_time,
                    *_packed(c),
                    c.checksum,
                    *c.summary.row(),
                )
                for c in chunks
            ],
        )

    def insert_tensors(self, records: list[TensorRecord]) -> None:
        """In order (ids are the order of points at one step): small ones together, large ones a piece at a time."""
        sql = (
            "INSERT INTO tensor_points (series_id, file_id, step, wall_time, checksum, tensor)"
            " VALUES (?, ?, ?, ?, ?, {})"
        )
        for large, group in itertools.groupby(records, lambda r: len(r.tensor) >= LARGE_VALUE):
            if not large:
                self._db.executemany(
                    sql.format("?"),
                    [(r.series_id, r.file_id, r.step, r.wall_time, r.checksum, r.tensor) for r in group],
                )
                continue
            for r in group:
                insert_large(
                    self._db,
                    sql.format("zeroblob(?)") + " RETURNING id",
                    (r.series_id, r.file_id, r.step, r.wall_time, r.checksum),
                    "tensor_points",
                    "tensor",
                    r.tensor,
                )

    def insert_blob_sequences(self, records: list[BlobSequenceRecord]) -> None:
        db = self._db
        for record in records:
            (point_id,) = db.execute(
                "INSERT INTO blob_points (series_id, file_id, step, wall_time, length) VALUES (?, ?, ?, ?, ?)"
                " RETURNING id",
                (record.series_id, record.file_id, record.step, record.wall_time, len(record.blob_keys)),
            ).fetchone()
            db.executemany(
                "INSERT INTO blob_refs (point_id, position, blob_key) VALUES (?, ?, ?)",
                [(point_id, position, key) for position, key in enumerate(record.blob_keys)],
            )

    def add_to_summaries(self, deltas: list[SummaryDelta]) -> None:
        # One statement: each series' row (and its index entries) is written once.
        self._db.executemany(
            _ADD_TO_SUMMARIES,
            [
                {
                    "id": d.series_id,
                    "count": d.count,
                    "max_step": d.max_step,
                    "max_wall_time": d.max_wall_time,
                    "max_length": d.max_length,
                    **(dict(zip(SUMMARY_COLUMNS, d.scalars.row(), strict=True)) if d.scalars else _NO_SCALARS),
                }
                for d in deltas
            ],
        )

    def advance_run(self, run_id: int, last_step: int, last_wall_time: float) -> None:
        self._db.execute(
            "UPDATE runs SET last_step = MAX(COALESCE(last_step, :step), :step),"
            " last_wall_time = MAX(COALESCE(last_wall_time, :time), :time) WHERE id = :run",
            {"step": last_step, "time": last_wall_time, "run": run_id},
        )

    def save_end_status(self, run_id: int, status: str | None) -> None:
        self._db.execute("UPDATE runs SET end_status = ? WHERE id = ?", (status, run_id))

    def series_reaching(self, run_id: int, step: int, tags: Collection[str] | None) -> list[int]:
        sql = "SELECT id FROM series WHERE run_id = ? AND experiment_id = ? AND max_step >= ?"
        params: list[object] = [run_id, self._experiment_id, step]
        if tags is not None:
            sql += " AND tag IN (SELECT value FROM json_each(?))"
            params.append(_json(tags))
        return [series_id for (series_id,) in self._db.execute(sql, params)]

    def delete_points_from(self, series_ids: Collection[int], step: int) -> list[str]:
        params = (_json(series_ids), self._experiment_id, step)
        db = self._db
        db.execute(f"DELETE FROM scalar_chunks WHERE series_id IN ({_SERIES_IN_EXPERIMENT}) AND min_step >= ?", params)
        db.execute(f"DELETE FROM tensor_points WHERE series_id IN ({_SERIES_IN_EXPERIMENT}) AND step >= ?", params)
        return self._delete_blob_points(
            f"SELECT id FROM blob_points WHERE series_id IN ({_SERIES_IN_EXPERIMENT}) AND step >= ?", params
        )

    def chunks_straddling(self, series_ids: Collection[int], step: int) -> list[tuple[int, ScalarColumns, int]]:
        rows = self._db.execute(
            "SELECT id, steps, wall_times, scalar_values, COALESCE(checksum, -1) FROM scalar_chunks"
            f" WHERE series_id IN ({_SERIES_IN_EXPERIMENT}) AND min_step < ? AND max_step >= ?",
            (_json(series_ids), self._experiment_id, step, step),
        )
        return [(chunk_id, _unpacked(*blobs), checksum) for chunk_id, *blobs, checksum in rows]

    def replace_chunk(self, chunk_id: int, chunk: ScalarChunk) -> None:
        self._db.execute(
            "UPDATE scalar_chunks SET point_count = ?, min_step = ?, max_step = ?, max_wall_time = ?, steps = ?,"
            f" wall_times = ?, scalar_values = ?, checksum = ?, {', '.join(f'{c} = ?' for c in SUMMARY_COLUMNS)}"
            " WHERE id = ?",
            (
                len(chunk.columns),
                chunk.min_step,
                chunk.max_step,
                chunk.max_wall_time,
                *_packed(chunk),
                chunk.checksum,
                *chunk.summary.row(),
                chunk_id,
            ),
        )

    def delete_file_points(self, file_id: int) -> list[str]:
        db = self._db
        row = db.execute(
            "SELECT run_id FROM files WHERE id = ? AND experiment_id = ?", (file_id, self._experiment_id)
        ).fetchone()
        if row is None:
            return []
        (run_id,) = row
        db.execute("DELETE FROM scalar_chunks WHERE file_id = ?", (file_id,))
        db.execute("DELETE FROM tensor_points WHERE file_id = ?", (file_id,))
        deleted = self._delete_blob_points("SELECT id FROM blob_points WHERE file_id = ?", (file_id,))
        self.refresh_summaries([s for (s,) in db.execute("SELECT id FROM series WHERE run_id = ?", (run_id,))])
        return deleted

    def delete_files(self, paths: Collection[str]) -> list[str]:
        db = self._db
        files = db.execute(
            "SELECT id, run_id FROM files WHERE experiment_id = ? AND path IN (SELECT value FROM json_each(?))",
            (self._experiment_id, _json(paths)),
        ).fetchall()
        deleted: list[str] = []
        for file_id, _ in files:
            deleted += self.delete_file_points(file_id)
            db.execute("DELETE FROM files WHERE id = ?", (file_id,))
        run_ids = _json({run_id for _, run_id in files})
        db.execute(
            "DELETE FROM series WHERE run_id IN (SELECT value FROM json_each(?)) AND point_count = 0", (run_ids,)
        )
        db.execute(
            "DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?))"
            " AND NOT EXISTS (SELECT 1 FROM files f WHERE f.run_id = runs.id)",
            (run_ids,),
        )
        db.execute(
            "DELETE FROM run_hparams WHERE run_id IN (SELECT value FROM json_each(?))"
            " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = run_hparams.run_id)",
            (run_ids,),
        )
        return deleted

    def refresh_summaries(self, series_ids: Collection[int]) -> None:
        self._db.execute(
            "UPDATE series SET"
            " point_count = COALESCE((SELECT SUM(point_count) FROM scalar_chunks c WHERE c.series_id = series.id), 0)"
            " + (SELECT COUNT(*) FROM tensor_points t WHERE t.series_id = series.id)"
            " + (SELECT COUNT(*) FROM blob_points b WHERE b.series_id = series.id),"
            " max_step = (SELECT MAX(m) FROM (SELECT MAX(max_step) AS m FROM scalar_chunks WHERE series_id = series.id"
            " UNION ALL SELECT MAX(step) FROM tensor_points WHERE series_id = series.id"
            " UNION ALL SELECT MAX(step) FROM blob_points WHERE series_id = series.id)),"
            " max_wall_time = (SELECT MAX(m) FROM (SELECT MAX(max_wall_time) AS m FROM scalar_chunks"
            " WHERE series_id = series.id UNION ALL SELECT MAX(wall_time) FROM tensor_points"
            " WHERE series_id = series.id UNION ALL SELECT MAX(wall_time) FROM blob_points"
            " WHERE series_id = series.id)),"
            " max_length = COALESCE((SELECT MAX(length) FROM blob_points WHERE series_id = series.id), 0)"
            " WHERE id IN (SELECT value FROM json_each(?)) AND experiment_id = ?",
            (_json(series_ids), self._experiment_id),
        )
        chosen = (_json(series_ids), self._experiment_id)
        self._db.execute(
            f"{REFRESH_SERIES_SUMMARIES} WHERE id IN (SELECT value FROM json_each(?)) AND experiment_id = ?", chosen
        )
        self._db.execute(
            f"{REFRESH_RUN_TIMES} WHERE id IN (SELECT run_id FROM series WHERE id IN (SELECT value FROM json_each(?))"
            " AND experiment_id = ?)",
            chosen,
        )

    def unreferenced(self, blob_keys: Collection[str]) -> list[str]:
        rows = self._db.execute(
            "SELECT j.value FROM json_each(?) j"
            " WHERE NOT EXISTS (SELECT 1 FROM blob_refs r WHERE r.blob_key = j.value)",
            (_json(blob_keys),),
        )
        return [key for (key,) in rows]

    def _delete_blob_points(self, select_ids: str, params: tuple[Any, ...]) -> list[str]:
        db = self._db
        keys = [
            key for (key,) in db.execute(f"SELECT blob_key FROM blob_refs WHERE point_id IN ({select_ids})", params)
        ]
        db.execute(f"DELETE FROM blob_refs WHERE point_id IN ({select_ids})", params)
        db.execute(f"DELETE FROM blob_points WHERE id IN ({select_ids})", params)
        return keys


def _in_steps(sql: str, params: list[object], steps: StepRange, *, column: str = "step") -> tuple[str, list[object]]:
    if steps.first is not None:
        sql += f" AND {column} >= ?"
        params.append(steps.first)
    if steps.last is not None:
        sql += f" AND {column} <= ?"
        params.append(steps.last)
    return sql, params


def _packed(chunk: ScalarChunk) -> tuple[bytes, bytes, bytes]:
    columns = chunk.columns
    return (
        columns.steps.astype("<i8", copy=False).tobytes(),
        columns.wall_times.astype("<f8", copy=False).tobytes(),
        columns.values.astype("<f8", copy=False).tobytes(),
    )


def _unpacked(steps: bytes, wall_times: bytes, values: bytes) -> ScalarColumns:
    return ScalarColumns(
        steps=np.frombuffer(steps, dtype="<i8"),
        wall_times=np.frombuffer(wall_times, dtype="<f8"),
        values=np.frombuffer(values, dtype="<f8"),
    )
