"""The server backend: PostgreSQL through psycopg 3, a pool of connections, COPY for the points of a batch.

Reads run on pooled connections in autocommit, so each sees the last committed batch and never waits for a writer.
A write transaction first locks its experiment's row in `experiment_state`: writers of one experiment take turns (in
this process or any other), writers of different experiments run side by side.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import psycopg
import psycopg_pool

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
from trainboard.store.errors import StaleOffsetError, StoreUnavailable
from trainboard.store.migrations import migrate, unexpected
from trainboard.store.postgres.accounts import PostgresAccounts
from trainboard.store.postgres.distribution import distribute, keep_new_tables_plain
from trainboard.store.postgres.float_sums import added
from trainboard.store.postgres.migrations import (
    BACKFILLS,
    MIGRATIONS,
    POINT,
    REFRESH_RUN_TIMES,
    REFRESH_SERIES_SUMMARIES,
)
from trainboard.store.postgres.pool import Pool
from trainboard.store.postgres.run_metadata import PostgresRunMetadata
from trainboard.store.postgres.standbys import Standbys
from trainboard.store.run_filter import RunFilter
from trainboard.store.run_filter_sql import POSTGRES, Derived, Matches, Source
from trainboard.store.run_values import HParamRow, ValueRow
from trainboard.store.runs_table import TableQuery
from trainboard.store.sql_runs_table import RunQueries
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

CONNECT_SECONDS = 10
POOL_SIZE = 16
# How long a readiness check waits for a connection of the pool.
CHECK_SECONDS = 2
# The points at (chunk id, byte offset + 1) pairs, in the order given.
PICKS_SQL = (
    f"SELECT substring(c.points FROM wanted.start FOR {POINT.itemsize})"
    " FROM unnest(%s::bigint[], %s::integer[]) WITH ORDINALITY AS wanted (chunk_id, start, n)"
    " JOIN scalar_chunks c ON c.experiment_id = %s AND c.chunk_id = wanted.chunk_id ORDER BY wanted.n"
)
# Advisory lock keys, the same in every trainboard process: migrations of one database run one at a time, and an
# experiment's writer claim is a lock keyed by a hash of its id seeded with WRITER_LOCKS.
MIGRATION_LOCK = 0x7472_6169_6E62_6F61
WRITER_LOCKS = 0x7772_6974_6572


# An experiment's rows in every table but `blobs` (the blob store's), children first; its tokens are revoked, not
# deleted, so that their sessions end and `trainboard tokens list` still shows them.
DELETE_EXPERIMENT = (
    *(
        f"DELETE FROM {table} WHERE experiment_id = %(experiment)s"
        for table in (
            "definitions",
            "pin_series",
            "pin_runs",
            "pins",
            "scalar_chunks",
            "tensor_points",
            "blob_points",
            "series",
            "files",
            "run_hparams",
            "runs",
            "experiment_roles",
            "claim_roles",
            "run_metadata",
            "run_labels",
            "saved_views",
        )
    ),
    "UPDATE tokens SET revoked = %(now)s WHERE experiment_id = %(experiment)s AND revoked IS NULL",
    "DELETE FROM experiment_state WHERE experiment_id = %(experiment)s",
    "DELETE FROM experiments WHERE experiment_id = %(experiment)s",
)
# The binary COPY types of the summary columns.
SUMMARY_TYPES = (
    "int4",
    "float8",
    "int8",
    "float8",
    "int8",
    "float8",
    "int8",
    "float8",
    "float8",
    "int8",
    "float8",
    "float8",
)
# One statement, so that the runs and the series are read from one snapshot.
CREATE_PIN_SQL = (
    "WITH pin AS (INSERT INTO pins (experiment_id, pin_id, created, creator)"
    " SELECT experiment_id, %(pin)s, %(created)s, %(creator)s FROM experiments WHERE experiment_id = %(experiment)s"
    " RETURNING experiment_id, pin_id),"
    " pinned_runs AS (INSERT INTO pin_runs (experiment_id, pin_id, run_id, name, start_time)"
    " SELECT r.experiment_id, pin.pin_id, r.run_id, r.name, r.start_time FROM pin JOIN runs r USING (experiment_id))"
    " INSERT INTO pin_series (experiment_id, pin_id, series_id, run_id, tag, point_count, max_step, max_wall_time,"
    f" max_length, {', '.join(SUMMARY_COLUMNS)}) SELECT s.experiment_id, pin.pin_id, s.series_id, s.run_id, s.tag,"
    f" s.point_count, s.max_step, s.max_wall_time, s.max_length, {', '.join(f's.{c}' for c in SUMMARY_COLUMNS)}"
    " FROM pin JOIN series s USING (experiment_id)"
)
# Chunks' summaries merged into their series' (trainboard.store.summaries): the first points written set its first
# point, ties keep the earlier min and max.
_ADD_TO_SUMMARIES = (
    "UPDATE series s SET point_count = s.point_count + d.count, max_step = GREATEST(s.max_step, d.max_step),"
    " max_wall_time = GREATEST(s.max_wall_time, d.max_wall_time), max_length = GREATEST(s.max_length, d.max_length),"
    # A delta without scalars (last_step NULL) leaves the scalar summary as it is.
    " nonfinite_count = CASE WHEN d.last_step IS NULL THEN s.nonfinite_count"
    " ELSE COALESCE(s.nonfinite_count, 0) + d.nonfinite_count END,"
    f" value_sum = COALESCE({added('s.value_sum', 'd.value_sum')}, s.value_sum, d.value_sum),"
    " min_value_step = CASE WHEN s.min_value IS NULL OR d.min_value < s.min_value THEN d.min_value_step"
    " ELSE s.min_value_step END,"
    " min_value = CASE WHEN s.min_value IS NULL OR d.min_value < s.min_value THEN d.min_value ELSE s.min_value END,"
    " max_value_step = CASE WHEN s.max_value IS NULL OR d.max_value > s.max_value THEN d.max_value_step"
    " ELSE s.max_value_step END,"
    " max_value = CASE WHEN s.max_value IS NULL OR d.max_value > s.max_value THEN d.max_value ELSE s.max_value END,"
    " first_wall_time = CASE WHEN s.first_step IS NULL THEN d.first_wall_time ELSE s.first_wall_time END,"
    " first_value = CASE WHEN s.first_step IS NULL THEN d.first_value ELSE s.first_value END,"
    " first_step = COALESCE(s.first_step, d.first_step),"
    " last_step = COALESCE(d.last_step, s.last_step),"
    " last_wall_time = CASE WHEN d.last_step IS NULL THEN s.last_wall_time ELSE d.last_wall_time END,"
    " last_value = CASE WHEN d.last_step IS NULL THEN s.last_value ELSE d.last_value END"
    " FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::float8[], %s::integer[], %s::int[], %s::float8[],"
    " %s::bigint[], %s::float8[], %s::bigint[], %s::float8[], %s::bigint[], %s::float8[], %s::float8[], %s::bigint[],"
    " %s::float8[], %s::float8[])"
    f" AS d (series_id, count, max_step, max_wall_time, max_length, {', '.join(SUMMARY_COLUMNS)})"
    " WHERE s.experiment_id = %s AND s.series_id = d.series_id"
)
# The summary columns of a delta without scalars.
_NO_SCALARS = (None,) * len(SUMMARY_COLUMNS)
# What the run filter and the runs table read (trainboard.store.run_filter_sql), live and as of a pin.
_LIVE = Source(
    runs="SELECT run_id, name, start_time, last_step, last_wall_time, end_status FROM runs"
    " WHERE experiment_id = %(experiment)s",
    series="series {a} ON {a}.experiment_id = %(experiment)s AND {a}.run_id = r.run_id AND {a}.data_class = %(scalar)s",
    hparams="run_hparams {a} ON {a}.experiment_id = %(experiment)s AND {a}.run_id = r.run_id",
    metrics=(
        "SELECT run_id, tag AS key, last_value AS number FROM series WHERE experiment_id = %(experiment)s"
        " AND data_class = %(scalar)s"
    ),
    first_point_time=(
        "(SELECT MIN(t.first_wall_time) FROM series t WHERE t.experiment_id = %(experiment)s AND t.run_id = r.run_id"
        " AND t.data_class = %(scalar)s)"
    ),
)
_PINNED = Source(
    runs="SELECT p.run_id, p.name, p.start_time, x.last_step, x.last_wall_time, x.end_status FROM pin_runs p"
    " JOIN runs x ON x.experiment_id = p.experiment_id AND x.run_id = p.run_id AND x.name = p.name"
    " WHERE p.experiment_id = %(experiment)s AND p.pin_id = %(pin)s",
    series="(SELECT p.* FROM pin_series p JOIN series x ON x.experiment_id = p.experiment_id"
    " AND x.series_id = p.series_id AND x.tag = p.tag AND x.data_class = %(scalar)s"
    " WHERE p.experiment_id = %(experiment)s AND p.pin_id = %(pin)s) {a} ON {a}.run_id = r.run_id",
    hparams=_LIVE.hparams,
    metrics=(
        "SELECT p.run_id, p.tag AS key, p.last_value AS number FROM pin_series p JOIN series s"
        " ON s.experiment_id = p.experiment_id AND s.series_id = p.series_id AND s.tag = p.tag"
        " WHERE p.experiment_id = %(experiment)s AND p.pin_id = %(pin)s AND s.data_class = %(scalar)s"
    ),
    first_point_time=(
        "(SELECT MIN(t.first_wall_time) FROM pin_series t JOIN series x ON x.experiment_id = t.experiment_id"
        " AND x.series_id = t.series_id AND x.tag = t.tag AND x.data_class = %(scalar)s"
        " WHERE t.experiment_id = %(experiment)s AND t.pin_id = %(pin)s AND t.run_id = r.run_id)"
    ),
)
_QUERIES = RunQueries(POSTGRES, _LIVE, _PINNED)


class PostgresDatabase:
    def __init__(
        self,
        url: str,
        *,
        location: str | None = None,
        pool_size: int = POOL_SIZE,
        standbys: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Open the database at `url` (a postgresql:// URL) and bring its schema up to date; `location` names it in
        messages (the URL without its password). Its reads go to the hot `standbys` (URL and location each) that
        have replayed what they must see (trainboard.store.postgres.standbys)."""
        self.location = location or url
        # PostgreSQL checks its own structure: damage here is only what checksums find (trainboard.store.store).
        self.damage: str | None = None
        self.on_damage: Callable[[], None] = lambda: None
        self.damage_hint = ""
        try:
            with psycopg.connect(url, connect_timeout=CONNECT_SECONDS, autocommit=True) as connection:
                _migrate(connection, self.location)
        except psycopg.OperationalError as error:
            raise StoreUnavailable(f"cannot reach the database {self.location}: {_reason(error)}") from None
        self.pool = _pool(url, self.location, pool_size, "trainboard")
        self._standbys = (
            Standbys(
                self.pool,
                [
                    _pool(url, location, pool_size, f"trainboard-standby-{n}")
                    for n, (url, location) in enumerate(standbys)
                ],
            )
            if standbys
            else None
        )
        self._url = url
        self.accounts = PostgresAccounts(self.pool)
        self.run_metadata = PostgresRunMetadata(self.pool)
        # One connection per experiment this store writes, holding the writer's claim (a session advisory lock)
        # until it closes: however the process ends, the server releases the claim with its connection.
        self._claims: list[psycopg.Connection[Any]] = []
        # The connection of the write transaction open on this thread, if any: the database's own blob store writes
        # inside it, so a batch's blobs commit with its points.
        self._writing = threading.local()

    @contextlib.contextmanager
    def writing(self) -> Iterator[psycopg.Connection[Any]]:
        """The connection of the write transaction open on this thread, else a pooled one (in autocommit)."""
        connection: psycopg.Connection[Any] | None = getattr(self._writing, "connection", None)
        if connection is not None:
            yield connection
            return
        with self.pool.writing() as connection:
            yield connection

    def _rows(self, sql: str, params: Sequence[object] | Mapping[str, object] = ()) -> list[tuple[Any, ...]]:
        if self._standbys is not None:
            return self._standbys.rows(sql, params)
        with self.pool.connection() as connection:
            return connection.execute(sql, params, binary=True).fetchall()

    def settle(self) -> None:
        """Nothing to do: PostgreSQL's autovacuum keeps tables fit to read."""

    def check(self) -> None:
        try:
            with self.pool.connection(timeout=CHECK_SECONDS) as connection:
                applied = [name for (name,) in connection.execute("SELECT name FROM migrations").fetchall()]
        except psycopg.Error as error:
            raise StoreUnavailable(f"cannot reach the database {self.location}: {_reason(error)}") from None
        if problem := unexpected(MIGRATIONS, applied):
            raise StoreUnavailable(f"the database {self.location}: {problem}")

    def pool_stats(self) -> dict[str, int]:
        return self.pool.get_stats()

    def close(self) -> None:
        for claim in self._claims:
            # Released before the connection closes: the server ends a closed session's locks only when it notices,
            # and a delete_experiment just after this close must find the claim gone.
            with contextlib.suppress(psycopg.Error):
                claim.execute("SELECT pg_advisory_unlock_all()")
            claim.close()
        self._claims.clear()
        if self._standbys is not None:
            self._standbys.close()
        self.pool.close()

    # Experiments.

    def experiments(self) -> list[ExperimentRow]:
        rows = self._rows(
            # A join, not a count in a subquery per row: Citus runs it on every shard at once.
            "SELECT e.experiment_id, e.name, e.description, e.location, e.created, s.updated,"
            " COALESCE(r.count, 0), e.owner_id FROM experiments e JOIN experiment_state s USING (experiment_id)"
            " LEFT JOIN (SELECT experiment_id, count(*) AS count FROM runs GROUP BY experiment_id) r"
            " USING (experiment_id) ORDER BY e.created, e.experiment_id"
        )
        return [ExperimentRow(*row) for row in rows]

    def create_experiment(self, experiment_id: str, name: str, description: str, location: str) -> ExperimentRow:
        with self.pool.writing() as connection:
            # Two processes creating one name at once: the second inserts nothing and finds the first's.
            connection.execute(
                "WITH created AS (INSERT INTO experiments (experiment_id, name, description, location, created)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING experiment_id, created)"
                " INSERT INTO experiment_state (experiment_id, updated) SELECT experiment_id, created FROM created",
                (experiment_id, name, description, location, time.time()),
            )
        return next(e for e in self.experiments() if e.name == name and e.owner_id is None)

    def generation(self, experiment_id: str) -> int:
        rows = self._rows("SELECT generation FROM experiment_state WHERE experiment_id = %s", (experiment_id,))
        return -1 if not rows else int(rows[0][0])

    def delete_experiment(self, experiment_id: str) -> bool:
        with self.pool.writing() as connection, connection.transaction():
            # The writer's claim is a session lock on the same key: while another session holds it, this one fails.
            row = connection.execute(
                "SELECT pg_try_advisory_xact_lock(hashtextextended(%s, %s))", (experiment_id, WRITER_LOCKS)
            ).fetchone()
            if row is None or not row[0]:
                return False
            for statement in DELETE_EXPERIMENT:
                connection.execute(statement, {"experiment": experiment_id, "now": time.time()})
        return True

    # Pins.

    def create_pin(self, experiment_id: str, pin_id: str, created: float, creator: int | None) -> None:
        params = {"experiment": experiment_id, "pin": pin_id, "created": created, "creator": creator}
        with self.pool.writing() as connection:
            connection.execute(CREATE_PIN_SQL, params)

    def pin(self, experiment_id: str, pin_id: str) -> Pin | None:
        params = (experiment_id, pin_id)
        found = self._rows("SELECT created FROM pins WHERE experiment_id = %s AND pin_id = %s", params)
        if not found:
            return None
        runs = self._rows(
            "SELECT run_id, name, start_time FROM pin_runs WHERE experiment_id = %s AND pin_id = %s ORDER BY run_id",
            params,
        )
        series = self._rows(
            "SELECT series_id, run_id, tag, point_count, max_step, max_wall_time, max_length FROM pin_series"
            " WHERE experiment_id = %s AND pin_id = %s",
            params,
        )
        return Pin.of(pin_id, found[0][0], runs, series)

    def pins(self, experiment_id: str) -> list[PinRow]:
        rows = self._rows(
            "SELECT pin_id, created, creator FROM pins WHERE experiment_id = %s ORDER BY created, pin_id",
            (experiment_id,),
        )
        return [PinRow(pin_id, created, creator) for pin_id, created, creator in rows]

    def pin_count(self, creator: int) -> int:
        return int(self._rows("SELECT count(*) FROM pins WHERE creator = %s", (creator,))[0][0])

    def delete_pin(self, experiment_id: str, pin_id: str) -> bool:
        params = (experiment_id, pin_id)
        with self.pool.writing() as connection, connection.transaction():
            connection.execute("DELETE FROM pin_series WHERE experiment_id = %s AND pin_id = %s", params)
            connection.execute("DELETE FROM pin_runs WHERE experiment_id = %s AND pin_id = %s", params)
            deleted = connection.execute("DELETE FROM pins WHERE experiment_id = %s AND pin_id = %s", params)
            return deleted.rowcount > 0

    # Derived metrics.

    def definitions(self, experiment_id: str) -> list[Definition]:
        rows = self._rows("SELECT name, expression, align FROM definitions WHERE experiment_id = %s", (experiment_id,))
        # Sorted here, not by the database's collation: both backends list them alike.
        return sorted((Definition(name, expression, align) for name, expression, align in rows), key=lambda d: d.name)

    def save_definition(self, experiment_id: str, definition: Definition, created: float) -> None:
        with self.pool.writing() as connection, connection.transaction():
            connection.execute(
                "INSERT INTO definitions (experiment_id, name, expression, align, created) SELECT experiment_id, %s,"
                " %s, %s, %s FROM experiments WHERE experiment_id = %s ON CONFLICT (experiment_id, name) DO UPDATE"
                " SET expression = excluded.expression, align = excluded.align, created = excluded.created",
                (definition.name, definition.expression, definition.align, created, experiment_id),
            )
            connection.execute(
                "UPDATE experiment_state SET generation = generation + 1 WHERE experiment_id = %s", (experiment_id,)
            )

    def delete_definition(self, experiment_id: str, name: str) -> bool:
        with self.pool.writing() as connection, connection.transaction():
            deleted = connection.execute(
                "DELETE FROM definitions WHERE experiment_id = %s AND name = %s", (experiment_id, name)
            )
            if not deleted.rowcount:
                return False
            connection.execute(
                "UPDATE experiment_state SET generation = generation + 1 WHERE experiment_id = %s", (experiment_id,)
            )
            return True

    # Reads.

    def runs(self, experiment_id: str) -> list[RunRow]:
        rows = self._rows(
            "SELECT name, start_time FROM runs WHERE experiment_id = %s ORDER BY run_id", (experiment_id,)
        )
        return [RunRow(name=name, start_time=start_time) for name, start_time in rows]

    def run_state(self, experiment_id: str, run: str) -> RunState | None:
        rows = self._rows(
            "SELECT file_version, most_recent_step, seen_session_start, start_time FROM runs"
            " WHERE experiment_id = %s AND name = %s",
            (experiment_id, run),
        )
        if not rows:
            return None
        file_version, most_recent_step, seen_session_start, start_time = rows[0]
        return RunState(
            file_version=file_version,
            most_recent_step=most_recent_step,
            seen_session_start=seen_session_start,
            start_time=start_time,
        )

    def plugin_names(self, experiment_id: str) -> list[str]:
        rows = self._rows(
            "SELECT DISTINCT plugin_name FROM series WHERE experiment_id = %s ORDER BY plugin_name", (experiment_id,)
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
            "SELECT s.series_id, r.name, s.tag, s.plugin_name, s.data_class, s.plugin_content, s.display_name,"
            " s.description, s.point_count, s.max_step, s.max_wall_time, s.max_length"
            " FROM series s JOIN runs r USING (experiment_id, run_id) WHERE s.experiment_id = %s"
        )
        params: list[object] = [experiment_id]
        if plugin_name is not None:
            sql += " AND s.plugin_name = %s"
            params.append(plugin_name)
        if data_class is not None:
            sql += " AND s.data_class = %s"
            params.append(int(data_class))
        if runs is not None:
            sql += " AND r.name = ANY(%s::text[])"
            params.append(list(runs))
        if tags is not None:
            sql += " AND s.tag = ANY(%s::text[])"
            params.append(list(tags))
        sql += " ORDER BY s.run_id, s.series_id"
        return [SeriesRow.of(row) for row in self._rows(sql, params)]

    def scalar_chunk_index(self, experiment_id: str, series_id: int) -> ChunkIndex:
        rows = self._rows(
            "SELECT chunk_id, point_count, min_step, max_step, COALESCE(checksum, -1) FROM scalar_chunks"
            " WHERE experiment_id = %s AND series_id = %s ORDER BY chunk_id",
            (experiment_id, series_id),
        )
        return ChunkIndex.of(rows)

    def scalar_chunks(self, experiment_id: str, chunk_ids: Collection[int]) -> list[tuple[ScalarColumns, int]]:
        rows = self._rows(
            "SELECT c.points, COALESCE(c.checksum, -1)"
            " FROM unnest(%s::bigint[]) WITH ORDINALITY AS wanted (chunk_id, n)"
            " JOIN scalar_chunks c ON c.experiment_id = %s AND c.chunk_id = wanted.chunk_id ORDER BY wanted.n",
            (list(chunk_ids), experiment_id),
        )
        return [(_unpacked(points), checksum) for points, checksum in rows]

    def scalar_picks(self, experiment_id: str, picks: list[tuple[int, list[int]]]) -> ScalarColumns:
        # One query for every point picked: substring() of an uncompressed value reads only the slices it needs.
        chunk_ids = [chunk_id for chunk_id, positions in picks for _ in positions]
        offsets = [position * POINT.itemsize + 1 for _, positions in picks for position in positions]
        rows = self._rows(PICKS_SQL, (chunk_ids, offsets, experiment_id))
        return _unpacked(b"".join(point for (point,) in rows))

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
        return self._rows(sql, params)

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
        return self._rows(sql, params)

    def table_fields(self, experiment_id: str) -> tuple[list[str], list[str]]:
        (hparams_sql, params), (tags_sql, _) = _QUERIES.fields(experiment_id)
        hparams = self._rows(hparams_sql, params)
        tags = self._rows(tags_sql, params)
        return sorted(name for (name,) in hparams), sorted(tag for (tag,) in tags)

    def hparam_texts(self, experiment_id: str, name: str) -> list[str]:
        sql, params = _QUERIES.hparam_texts(experiment_id, name)
        return [text for (text,) in self._rows(sql, params)]

    def last_scalars(
        self, experiment_id: str, series_ids: Collection[int]
    ) -> dict[int, tuple[int, int, ScalarColumns]]:
        rows = self._rows(
            f"SELECT DISTINCT ON (series_id) series_id, chunk_id, COALESCE(checksum, -1),"
            f" substring(points FROM (point_count - 1) * {POINT.itemsize} + 1 FOR {POINT.itemsize})"
            " FROM scalar_chunks WHERE experiment_id = %s AND series_id = ANY(%s::bigint[])"
            " ORDER BY series_id, chunk_id DESC",
            (experiment_id, list(series_ids)),
        )
        return {series_id: (chunk_id, checksum, _unpacked(point)) for series_id, chunk_id, checksum, point in rows}

    def tensor_index(self, experiment_id: str, series_id: int, steps: StepRange) -> PointIndex:
        sql, params = _in_steps(
            "SELECT point_id, step, wall_time FROM tensor_points WHERE experiment_id = %s AND series_id = %s",
            [experiment_id, series_id],
            steps,
        )
        rows = self._rows(sql + " ORDER BY point_id", params)
        return PointIndex(
            ids=np.array([row[0] for row in rows], dtype=np.int64),
            steps=np.array([row[1] for row in rows], dtype=np.int64),
            wall_times=np.array([row[2] for row in rows], dtype=np.float64),
        )

    def tensor_values(self, experiment_id: str, point_ids: Collection[int]) -> list[tuple[bytes, int]]:
        rows = self._rows(
            "SELECT t.tensor, COALESCE(t.checksum, -1)"
            " FROM unnest(%s::bigint[]) WITH ORDINALITY AS wanted (point_id, n)"
            " JOIN tensor_points t ON t.experiment_id = %s AND t.point_id = wanted.point_id ORDER BY wanted.n",
            (list(point_ids), experiment_id),
        )
        return [(tensor, checksum) for tensor, checksum in rows]

    def blob_sequences(self, experiment_id: str, series_id: int, steps: StepRange) -> list[BlobSequenceRow]:
        sql, params = _in_steps(
            "SELECT step, wall_time, blob_keys FROM blob_points WHERE experiment_id = %s AND series_id = %s",
            [experiment_id, series_id],
            steps,
        )
        return [
            BlobSequenceRow(step=step, wall_time=wall_time, blob_keys=tuple(keys))
            for step, wall_time, keys in self._rows(sql + " ORDER BY point_id", params)
        ]

    def file_cursors(self, experiment_id: str) -> dict[str, FileCursor]:
        rows = self._rows(
            "SELECT path, read_offset, size, mtime, head FROM files WHERE experiment_id = %s", (experiment_id,)
        )
        return {
            path: FileCursor(path=path, offset=offset, size=size, mtime=mtime, head=head)
            for path, offset, size, mtime, head in rows
        }

    def file_cursor(self, experiment_id: str, path: str) -> FileCursor | None:
        rows = self._rows(
            "SELECT read_offset, size, mtime, head FROM files WHERE experiment_id = %s AND path = %s",
            (experiment_id, path),
        )
        return next((FileCursor(path, offset, size, mtime, head) for offset, size, mtime, head in rows), None)

    def file_run(self, experiment_id: str, path: str) -> str | None:
        rows = self._rows(
            "SELECT runs.name FROM files JOIN runs USING (experiment_id, run_id)"
            " WHERE files.experiment_id = %s AND files.path = %s",
            (experiment_id, path),
        )
        return str(rows[0][0]) if rows else None

    def damaged_files(
        self,
        experiment_id: str,
        *,
        chunk_ids: Collection[int] = (),
        tensor_ids: Collection[int] = (),
        blob_keys: Collection[str] = (),
    ) -> list[str]:
        rows = self._rows(
            "SELECT path FROM files WHERE experiment_id = %(e)s AND file_id IN ("
            " SELECT file_id FROM scalar_chunks WHERE experiment_id = %(e)s AND chunk_id = ANY(%(c)s::bigint[])"
            " UNION SELECT file_id FROM tensor_points WHERE experiment_id = %(e)s AND point_id = ANY(%(t)s::bigint[])"
            " UNION SELECT file_id FROM blob_points WHERE experiment_id = %(e)s AND blob_keys && %(b)s::text[])"
            " ORDER BY path",
            {"e": experiment_id, "c": list(chunk_ids), "t": list(tensor_ids), "b": list(blob_keys)},
        )
        return [path for (path,) in rows]

    # Writes.

    def claim_writer(self, experiment_id: str) -> bool:
        try:
            connection = psycopg.connect(self._url, connect_timeout=CONNECT_SECONDS, autocommit=True)
        except psycopg.OperationalError as error:
            raise StoreUnavailable(f"cannot reach the database {self.location}: {_reason(error)}") from None
        row = connection.execute(
            "SELECT pg_try_advisory_lock(hashtextextended(%s, %s))", (experiment_id, WRITER_LOCKS)
        ).fetchone()
        if row is None or not row[0]:
            connection.close()
            return False
        self._claims.append(connection)
        return True

    @contextlib.contextmanager
    def transaction(self, experiment_id: str) -> Iterator[PostgresTransaction]:
        with self.pool.writing() as connection, connection.transaction():
            # The experiment's row stays locked until the commit: the next writer of this experiment waits here.
            connection.execute(
                "UPDATE experiment_state SET generation = generation + 1 WHERE experiment_id = %s", (experiment_id,)
            )
            self._writing.connection = connection
            try:
                yield PostgresTransaction(connection, experiment_id)
            finally:
                self._writing.connection = None
            connection.execute(
                "UPDATE experiment_state SET updated = %s WHERE experiment_id = %s", (time.time(), experiment_id)
            )


# Rows of one multi-row INSERT: its parameters stay far below PostgreSQL's 65,535.
ROWS_PER_STATEMENT = 1_000

T = TypeVar("T")


def _parts(rows: Sequence[T]) -> Iterator[Sequence[T]]:
    for start in range(0, len(rows), ROWS_PER_STATEMENT):
        yield rows[start : start + ROWS_PER_STATEMENT]


def _values(rows: int, columns: int) -> str:
    """The VALUES list of a multi-row INSERT (Citus routes one whose rows all name one experiment to one shard)."""
    row = f"({', '.join(['%s'] * columns)})"
    return ", ".join([row] * rows)


class PostgresTransaction:
    def __init__(self, connection: psycopg.Connection[Any], experiment_id: str) -> None:
        self._db = connection
        self._experiment_id = experiment_id

    def _rows(self, sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        return self._db.execute(sql, params, binary=True).fetchall()

    def _ids(self, sql: str, params: Sequence[object]) -> list[int]:
        return [row[0] for row in self._rows(sql, params)]

    def save_files(self, files: Sequence[FileSave]) -> list[SavedFile]:
        """Each kind of row of all the files in one statement (per `ROWS_PER_STATEMENT`): on Citus, where the
        coordinator forwards each statement, 10,000 files' cursors took 72-112 s written one by one."""
        paths = [file.cursor.path for file in files]
        if len(set(paths)) < len(paths):
            # A file written twice in one transaction is read from its first write's offset: checked in turn.
            return saved_one_by_one(self, files)
        # A run written by several files keeps the last one's state, as one by one.
        states = {file.run: file.state for file in files}
        run_ids: dict[str, int] = {}
        for runs in _parts(list(states.items())):
            run_ids.update(
                self._rows(
                    "INSERT INTO runs (experiment_id, name, start_time, file_version, most_recent_step,"
                    f" seen_session_start) VALUES {_values(len(runs), 6)} ON CONFLICT (experiment_id, name) DO UPDATE"
                    " SET start_time = excluded.start_time, file_version = excluded.file_version,"
                    " most_recent_step = excluded.most_recent_step, seen_session_start = excluded.seen_session_start"
                    " RETURNING name, run_id",
                    [
                        value
                        for run, state in runs
                        for value in (
                            self._experiment_id,
                            run,
                            state.start_time,
                            state.file_version,
                            state.most_recent_step,
                            state.seen_session_start,
                        )
                    ],
                )
            )
        stored = dict(
            self._rows(
                "SELECT path, read_offset FROM files WHERE experiment_id = %s AND path = ANY(%s::text[])",
                (self._experiment_id, paths),
            )
        )
        for file in files:
            if stored.get(file.cursor.path) != file.expected_offset:
                found = stored.get(file.cursor.path)
                raise StaleOffsetError(
                    f"{loggable(file.cursor.path)}: read from {file.expected_offset}, but the store is at {found}"
                )
        file_ids: dict[str, int] = {}
        for some_files in _parts(files):
            file_ids.update(
                self._rows(
                    "INSERT INTO files (experiment_id, run_id, path, read_offset, size, mtime, head)"
                    f" VALUES {_values(len(some_files), 7)} ON CONFLICT (experiment_id, path) DO UPDATE SET"
                    " run_id = excluded.run_id, read_offset = excluded.read_offset, size = excluded.size,"
                    " mtime = excluded.mtime, head = excluded.head RETURNING path, file_id",
                    [
                        value
                        for f in some_files
                        for value in (
                            self._experiment_id,
                            run_ids[f.run],
                            f.cursor.path,
                            f.cursor.offset,
                            f.cursor.size,
                            f.cursor.mtime,
                            f.cursor.head,
                        )
                    ],
                )
            )
        # A tag's first metadata is kept: the first row of a series inserts it, later ones do nothing.
        series = [(run_ids[file.run], tag, m) for file in files for tag, m in file.metadata.items()]
        for some_series in _parts(series):
            self._db.execute(
                "INSERT INTO series (experiment_id, run_id, tag, plugin_name, data_class, plugin_content,"
                f" display_name, description) VALUES {_values(len(some_series), 8)}"
                " ON CONFLICT (experiment_id, run_id, tag) DO NOTHING",
                [
                    value
                    for run_id, tag, m in some_series
                    for value in (
                        self._experiment_id,
                        run_id,
                        tag,
                        m.plugin_name,
                        int(m.data_class),
                        m.plugin_content,
                        m.display_name,
                        m.description,
                    )
                ],
            )
        series_ids: dict[int, dict[str, int]] = {run_id: {} for run_id in run_ids.values()}
        for run_id, tag, series_id in self._rows(
            "SELECT run_id, tag, series_id FROM series WHERE experiment_id = %s AND run_id = ANY(%s::bigint[])",
            (self._experiment_id, list(series_ids)),
        ):
            series_ids[run_id][tag] = series_id
        return [
            SavedFile(run_ids[file.run], file_ids[file.cursor.path], series_ids[run_ids[file.run]]) for file in files
        ]

    def save_run(self, run: str, state: RunState) -> int:
        (run_id,) = self._ids(
            "INSERT INTO runs (experiment_id, name, start_time, file_version, most_recent_step, seen_session_start)"
            " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (experiment_id, name) DO UPDATE SET"
            " start_time = excluded.start_time, file_version = excluded.file_version,"
            " most_recent_step = excluded.most_recent_step, seen_session_start = excluded.seen_session_start"
            " RETURNING run_id",
            (
                self._experiment_id,
                run,
                state.start_time,
                state.file_version,
                state.most_recent_step,
                state.seen_session_start,
            ),
        )
        return run_id

    def save_file(self, run_id: int, cursor: FileCursor, *, expected_offset: int | None) -> int:
        stored = self._ids(
            "SELECT read_offset FROM files WHERE experiment_id = %s AND path = %s", (self._experiment_id, cursor.path)
        )
        if (stored[0] if stored else None) != expected_offset:
            raise StaleOffsetError(
                f"{loggable(cursor.path)}: read from {expected_offset}, but the store is at {stored}"
            )
        (file_id,) = self._ids(
            "INSERT INTO files (experiment_id, run_id, path, read_offset, size, mtime, head)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (experiment_id, path) DO UPDATE SET"
            " run_id = excluded.run_id, read_offset = excluded.read_offset, size = excluded.size,"
            " mtime = excluded.mtime, head = excluded.head RETURNING file_id",
            (self._experiment_id, run_id, cursor.path, cursor.offset, cursor.size, cursor.mtime, cursor.head),
        )
        return file_id

    def save_series(self, run_id: int, metadata: dict[str, SeriesMetadata]) -> dict[str, int]:
        if metadata:
            tags, values = list(metadata), list(metadata.values())
            self._db.execute(
                "INSERT INTO series (experiment_id, run_id, tag, plugin_name, data_class, plugin_content,"
                " display_name, description) SELECT %s, %s, * FROM unnest(%s::text[], %s::text[], %s::smallint[],"
                " %s::bytea[], %s::text[], %s::text[]) ON CONFLICT (experiment_id, run_id, tag) DO NOTHING",
                (
                    self._experiment_id,
                    run_id,
                    tags,
                    [m.plugin_name for m in values],
                    [int(m.data_class) for m in values],
                    [m.plugin_content for m in values],
                    [m.display_name for m in values],
                    [m.description for m in values],
                ),
            )
        rows = self._rows(
            "SELECT tag, series_id FROM series WHERE experiment_id = %s AND run_id = %s", (self._experiment_id, run_id)
        )
        return {tag: series_id for tag, series_id in rows}

    def save_hparams(self, run_id: int, hparams: list[HParamRow]) -> None:
        if hparams:
            self._db.execute(
                "INSERT INTO run_hparams (experiment_id, run_id, name, number, text) SELECT %s, %s, * FROM"
                " unnest(%s::text[], %s::float8[], %s::text[]) ON CONFLICT DO NOTHING",
                (
                    self._experiment_id,
                    run_id,
                    [name for name, _, _ in hparams],
                    [number for _, number, _ in hparams],
                    [text for _, _, text in hparams],
                ),
            )

    def insert_scalar_chunks(self, chunks: list[ScalarChunk]) -> None:
        self._copy(
            "scalar_chunks",
            (
                "series_id",
                "file_id",
                "point_count",
                "min_step",
                "max_step",
                "max_wall_time",
                "points",
                "checksum",
                *SUMMARY_COLUMNS,
            ),
            ("int8", "int8", "int4", "int8", "int8", "float8", "bytea", "int8", *SUMMARY_TYPES),
            (
                (
                    c.series_id,
                    c.file_id,
                    len(c.columns),
                    c.min_step,
                    c.max_step,
                    c.max_wall_time,
                    _packed(c.columns),
                    c.checksum,
                    *c.summary.row(),
                )
                for c in chunks
            ),
        )

    def insert_tensors(self, records: list[TensorRecord]) -> None:
        self._copy(
            "tensor_points",
            ("series_id", "file_id", "step", "wall_time", "tensor", "checksum"),
            ("int8", "int8", "int8", "float8", "bytea", "int8"),
            ((r.series_id, r.file_id, r.step, r.wall_time, r.tensor, r.checksum) for r in records),
        )

    def insert_blob_sequences(self, records: list[BlobSequenceRecord]) -> None:
        self._copy(
            "blob_points",
            ("series_id", "file_id", "step", "wall_time", "blob_keys"),
            ("int8", "int8", "int8", "float8", "text[]"),
            ((r.series_id, r.file_id, r.step, r.wall_time, list(r.blob_keys)) for r in records),
        )

    def _copy(self, table: str, columns: Sequence[str], types: Sequence[str], rows: Iterator[tuple[Any, ...]]) -> None:
        """COPY rows in binary, in order: their identities increase in the order given."""
        with self._db.cursor() as cursor:
            names = ", ".join(("experiment_id", *columns))
            with cursor.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["text", *types])
                for row in rows:
                    copy.write_row((self._experiment_id, *row))

    def add_to_summaries(self, deltas: list[SummaryDelta]) -> None:
        if not deltas:
            return
        # GREATEST ignores NULLs: a series' first points set its maxima. One statement: each series' row is written
        # once (twice would leave PostgreSQL twice the dead rows to clean).
        rows = [
            (
                d.series_id,
                d.count,
                d.max_step,
                d.max_wall_time,
                d.max_length,
                *(d.scalars.row() if d.scalars else _NO_SCALARS),
            )
            for d in deltas
        ]
        columns = [list(column) for column in zip(*rows, strict=True)]
        self._db.execute(_ADD_TO_SUMMARIES, (*columns, self._experiment_id))

    def advance_run(self, run_id: int, last_step: int, last_wall_time: float) -> None:
        # GREATEST ignores NULLs: a run's first points set them.
        self._db.execute(
            "UPDATE runs SET last_step = GREATEST(last_step, %s), last_wall_time = GREATEST(last_wall_time, %s)"
            " WHERE experiment_id = %s AND run_id = %s",
            (last_step, last_wall_time, self._experiment_id, run_id),
        )

    def save_end_status(self, run_id: int, status: str | None) -> None:
        self._db.execute(
            "UPDATE runs SET end_status = %s WHERE experiment_id = %s AND run_id = %s",
            (status, self._experiment_id, run_id),
        )

    def series_reaching(self, run_id: int, step: int, tags: Collection[str] | None) -> list[int]:
        sql = "SELECT series_id FROM series WHERE experiment_id = %s AND run_id = %s AND max_step >= %s"
        params: list[object] = [self._experiment_id, run_id, step]
        if tags is not None:
            sql += " AND tag = ANY(%s::text[])"
            params.append(list(tags))
        return self._ids(sql, params)

    def delete_points_from(self, series_ids: Collection[int], step: int) -> list[str]:
        params = (self._experiment_id, list(series_ids), step)
        where = "WHERE experiment_id = %s AND series_id = ANY(%s::bigint[])"
        self._db.execute(f"DELETE FROM scalar_chunks {where} AND min_step >= %s", params)
        self._db.execute(f"DELETE FROM tensor_points {where} AND step >= %s", params)
        return self._deleted_keys(f"DELETE FROM blob_points {where} AND step >= %s RETURNING blob_keys", params)

    def chunks_straddling(self, series_ids: Collection[int], step: int) -> list[tuple[int, ScalarColumns, int]]:
        rows = self._rows(
            "SELECT chunk_id, points, COALESCE(checksum, -1) FROM scalar_chunks WHERE experiment_id = %s"
            " AND series_id = ANY(%s::bigint[]) AND min_step < %s AND max_step >= %s",
            (self._experiment_id, list(series_ids), step, step),
        )
        return [(chunk_id, _unpacked(points), checksum) for chunk_id, points, checksum in rows]

    def replace_chunk(self, chunk_id: int, chunk: ScalarChunk) -> None:
        self._db.execute(
            "UPDATE scalar_chunks SET point_count = %s, min_step = %s, max_step = %s, max_wall_time = %s, points = %s,"
            f" checksum = %s, {', '.join(f'{c} = %s' for c in SUMMARY_COLUMNS)} WHERE experiment_id = %s"
            " AND chunk_id = %s",
            (
                len(chunk.columns),
                chunk.min_step,
                chunk.max_step,
                chunk.max_wall_time,
                _packed(chunk.columns),
                chunk.checksum,
                *chunk.summary.row(),
                self._experiment_id,
                chunk_id,
            ),
        )

    def delete_file_points(self, file_id: int) -> list[str]:
        params = (self._experiment_id, file_id)
        self._db.execute("DELETE FROM scalar_chunks WHERE experiment_id = %s AND file_id = %s", params)
        self._db.execute("DELETE FROM tensor_points WHERE experiment_id = %s AND file_id = %s", params)
        deleted = self._deleted_keys(
            "DELETE FROM blob_points WHERE experiment_id = %s AND file_id = %s RETURNING blob_keys", params
        )
        self.refresh_summaries(
            self._ids(
                "SELECT s.series_id FROM series s JOIN files f USING (experiment_id, run_id)"
                " WHERE f.experiment_id = %s AND f.file_id = %s",
                params,
            )
        )
        return deleted

    def delete_files(self, paths: Collection[str]) -> list[str]:
        files = self._rows(
            "SELECT file_id, run_id FROM files WHERE experiment_id = %s AND path = ANY(%s::text[])",
            (self._experiment_id, list(paths)),
        )
        deleted: list[str] = []
        for file_id, _ in files:
            deleted += self.delete_file_points(file_id)
        params = (self._experiment_id, [file_id for file_id, _ in files])
        self._db.execute("DELETE FROM files WHERE experiment_id = %s AND file_id = ANY(%s::bigint[])", params)
        run_ids = (self._experiment_id, list({run_id for _, run_id in files}))
        self._db.execute(
            "DELETE FROM series WHERE experiment_id = %s AND run_id = ANY(%s::bigint[]) AND point_count = 0", run_ids
        )
        self._db.execute(
            "DELETE FROM runs r WHERE r.experiment_id = %s AND r.run_id = ANY(%s::bigint[]) AND NOT EXISTS"
            " (SELECT 1 FROM files f WHERE f.experiment_id = r.experiment_id AND f.run_id = r.run_id)",
            run_ids,
        )
        return deleted

    def refresh_summaries(self, series_ids: Collection[int]) -> None:
        if not series_ids:
            return
        self._db.execute(
            "WITH totals AS (SELECT series_id, sum(count) AS count, max(max_step) AS max_step,"
            " max(max_wall_time) AS max_wall_time, max(max_length) AS max_length FROM ("
            " SELECT series_id, point_count AS count, max_step, max_wall_time, 0 AS max_length FROM scalar_chunks"
            " WHERE experiment_id = %(e)s AND series_id = ANY(%(s)s::bigint[])"
            " UNION ALL SELECT series_id, 1, step, wall_time, 0 FROM tensor_points"
            " WHERE experiment_id = %(e)s AND series_id = ANY(%(s)s::bigint[])"
            " UNION ALL SELECT series_id, 1, step, wall_time, cardinality(blob_keys) FROM blob_points"
            " WHERE experiment_id = %(e)s AND series_id = ANY(%(s)s::bigint[])) points GROUP BY series_id)"
            " UPDATE series s SET point_count = COALESCE(t.count, 0), max_step = t.max_step,"
            " max_wall_time = t.max_wall_time, max_length = COALESCE(t.max_length, 0)"
            " FROM unnest(%(s)s::bigint[]) AS wanted (series_id) LEFT JOIN totals t USING (series_id)"
            " WHERE s.experiment_id = %(e)s AND s.series_id = wanted.series_id",
            {"e": self._experiment_id, "s": list(series_ids)},
        )
        self._db.execute(REFRESH_SERIES_SUMMARIES, {"e": self._experiment_id, "s": list(series_ids)})
        self._db.execute(REFRESH_RUN_TIMES, {"e": self._experiment_id, "s": list(series_ids)})

    def unreferenced(self, blob_keys: Collection[str]) -> list[str]:
        if not blob_keys:
            return []
        rows = self._rows(
            "SELECT key FROM unnest(%s::text[]) AS candidates (key) WHERE NOT EXISTS (SELECT 1 FROM blob_points p"
            " WHERE p.experiment_id = %s AND p.blob_keys @> ARRAY[candidates.key])",
            (list(blob_keys), self._experiment_id),
        )
        return [key for (key,) in rows]

    def _deleted_keys(self, delete_returning_keys: str, params: Sequence[object]) -> list[str]:
        return [key for (keys,) in self._rows(delete_returning_keys, params) for key in keys]


def _pool(url: str, location: str, size: int, name: str) -> Pool:
    return Pool(
        url,
        location=location,
        min_size=1,
        max_size=size,
        kwargs={"autocommit": True, "connect_timeout": CONNECT_SECONDS},
        check=psycopg_pool.ConnectionPool.check_connection,
        open=True,
        name=name,
    )


def _migrate(connection: psycopg.Connection[Any], location: str) -> None:
    @contextlib.contextmanager
    def in_turn() -> Iterator[psycopg.Connection[Any]]:
        with connection.transaction():
            # Held until the transaction ends: another process opening the same database waits, then finds it
            # migrated.
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            keep_new_tables_plain(connection)
            yield connection

    migrate(MIGRATIONS, in_turn, placeholder="%s", location=f"the database {location}", backfills=BACKFILLS)
    with in_turn():
        distribute(connection)


def _reason(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _in_steps(sql: str, params: list[object], steps: StepRange) -> tuple[str, list[object]]:
    if steps.first is not None:
        sql += " AND step >= %s"
        params.append(steps.first)
    if steps.last is not None:
        sql += " AND step <= %s"
        params.append(steps.last)
    return sql, params


def _packed(columns: ScalarColumns) -> bytes:
    points = np.empty(len(columns), POINT)
    points["step"] = columns.steps
    points["wall_time"] = columns.wall_times
    points["value"] = columns.values
    return points.tobytes()


def _unpacked(packed: bytes) -> ScalarColumns:
    points = np.frombuffer(packed, POINT)
    return ScalarColumns(
        steps=points["step"].astype(np.int64),
        wall_times=points["wall_time"].astype(np.float64),
        values=points["value"].astype(np.float64),
    )
