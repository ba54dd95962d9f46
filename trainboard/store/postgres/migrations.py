"""The PostgreSQL schema as named, ordered migrations, which `trainboard.store.migrations` applies each once.

Every primary key starts with `experiment_id`, and every foreign key and unique constraint includes it, so that the
tables can be distributed by experiment (Citus) without a rewrite; docs/storage.md explains the layout. Ids are
bigint identities, unique across experiments, that never leave the store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import psycopg

from trainboard.reader.hparams_names import HPARAMS_PLUGIN, SESSION_END_INFO_TAG, SESSION_START_INFO_TAG
from trainboard.store.postgres.float_sums import summed
from trainboard.store.run_values import final_value, hparam_rows
from trainboard.store.sql_schema import (
    AUDIT_LOG,
    CLAIM_ROLES,
    DEFINITIONS,
    PIN_CREATORS,
    POSTGRES,
    RUN_METADATA,
    in_dialect,
)
from trainboard.store.summaries import COLUMNS, chunk_summary, end_status
from trainboard.store.values import ScalarColumns

# One packed scalar point of `scalar_chunks.points`.
POINT = np.dtype([("step", "<i8"), ("wall_time", "<f8"), ("value", "<f8")])

# A series' summaries from its chunks' (trainboard.store.summaries), for the series %(s)s of experiment %(e)s. Every
# subquery names the experiment itself, not through the outer row: Citus plans it on one shard only then.
_IN_CHUNKS = "FROM scalar_chunks c WHERE c.experiment_id = %(e)s AND c.series_id = s.series_id"
REFRESH_SERIES_SUMMARIES = (
    "UPDATE series s SET (nonfinite_count, value_sum, min_value, max_value) ="
    f" (SELECT sum(c.nonfinite_count), {summed('c.value_sum')}, min(c.min_value), max(c.max_value) {_IN_CHUNKS}),"
    f" min_value_step = (SELECT c.min_value_step {_IN_CHUNKS} AND c.min_value IS NOT NULL"
    " ORDER BY c.min_value, c.chunk_id LIMIT 1),"
    f" max_value_step = (SELECT c.max_value_step {_IN_CHUNKS} AND c.max_value IS NOT NULL"
    " ORDER BY c.max_value DESC, c.chunk_id LIMIT 1),"
    " (first_step, first_wall_time, first_value) ="
    f" (SELECT c.first_step, c.first_wall_time, c.first_value {_IN_CHUNKS} ORDER BY c.chunk_id LIMIT 1),"
    " (last_step, last_wall_time, last_value) ="
    f" (SELECT c.last_step, c.last_wall_time, c.last_value {_IN_CHUNKS} ORDER BY c.chunk_id DESC LIMIT 1)"
    " WHERE s.experiment_id = %(e)s AND s.series_id = ANY(%(s)s::bigint[])"
)
# The last step and wall time (of any point) of the runs of series %(s)s of experiment %(e)s, from their series'.
REFRESH_RUN_TIMES = (
    "UPDATE runs r SET (last_step, last_wall_time) = (SELECT max(s.max_step), max(s.max_wall_time) FROM series s"
    " WHERE s.experiment_id = %(e)s AND s.run_id = r.run_id)"
    " WHERE r.experiment_id = %(e)s AND r.run_id IN"
    " (SELECT run_id FROM series WHERE experiment_id = %(e)s AND series_id = ANY(%(s)s::bigint[]))"
)

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_experiments",
        """
        -- A small table that every other one refers to: Citus would replicate it to every node (a reference table).
        CREATE TABLE experiments (
            experiment_id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            description TEXT NOT NULL DEFAULT '',
            -- Where its data was read from (a logdir), when one process ingests it.
            location TEXT NOT NULL DEFAULT '',
            created DOUBLE PRECISION NOT NULL
        );
        -- What every write changes, apart from `experiments` so that a write touches one node. A write transaction
        -- locks its experiment's row here first: writers of one experiment take turns, readers never wait.
        CREATE TABLE experiment_state (
            experiment_id TEXT PRIMARY KEY REFERENCES experiments,
            -- Bumped by every write: readers cache what they derived from an experiment until it changes.
            generation BIGINT NOT NULL DEFAULT 0,
            updated DOUBLE PRECISION NOT NULL
        );
        CREATE TABLE runs (
            experiment_id TEXT NOT NULL REFERENCES experiments,
            run_id BIGINT GENERATED ALWAYS AS IDENTITY,
            name TEXT NOT NULL,
            start_time DOUBLE PRECISION,
            file_version DOUBLE PRECISION,
            most_recent_step BIGINT NOT NULL DEFAULT -1,
            seen_session_start BOOLEAN NOT NULL DEFAULT FALSE,
            PRIMARY KEY (experiment_id, run_id),
            UNIQUE (experiment_id, name)
        );
        CREATE TABLE files (
            experiment_id TEXT NOT NULL,
            file_id BIGINT GENERATED ALWAYS AS IDENTITY,
            run_id BIGINT NOT NULL,
            path TEXT NOT NULL,
            read_offset BIGINT NOT NULL,
            size BIGINT NOT NULL,
            mtime DOUBLE PRECISION NOT NULL,
            head BYTEA NOT NULL,
            PRIMARY KEY (experiment_id, file_id),
            UNIQUE (experiment_id, path),
            FOREIGN KEY (experiment_id, run_id) REFERENCES runs
        );
        CREATE TABLE series (
            experiment_id TEXT NOT NULL,
            series_id BIGINT GENERATED ALWAYS AS IDENTITY,
            run_id BIGINT NOT NULL,
            tag TEXT NOT NULL,
            plugin_name TEXT NOT NULL,
            data_class SMALLINT NOT NULL,
            plugin_content BYTEA NOT NULL,
            display_name TEXT NOT NULL,
            description TEXT NOT NULL,
            point_count BIGINT NOT NULL DEFAULT 0,
            max_step BIGINT,
            max_wall_time DOUBLE PRECISION,
            max_length INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (experiment_id, series_id),
            UNIQUE (experiment_id, run_id, tag),
            FOREIGN KEY (experiment_id, run_id) REFERENCES runs
        );
        CREATE INDEX series_by_plugin ON series (experiment_id, plugin_name, run_id);
        -- Scalars are packed per chunk of at most CHUNK_POINTS points, one 24-byte record per point: little-endian
        -- int64 step, float64 wall time, float64 value. Stored uncompressed (EXTERNAL), so that substring() of a
        -- record reads only the TOAST slice that holds it: a downsampled read of a long series fetches only the points
        -- it returns.
        CREATE TABLE scalar_chunks (
            experiment_id TEXT NOT NULL,
            chunk_id BIGINT GENERATED ALWAYS AS IDENTITY,
            series_id BIGINT NOT NULL,
            file_id BIGINT NOT NULL,
            point_count INTEGER NOT NULL,
            min_step BIGINT NOT NULL,
            max_step BIGINT NOT NULL,
            max_wall_time DOUBLE PRECISION NOT NULL,
            points BYTEA NOT NULL,
            PRIMARY KEY (experiment_id, chunk_id),
            FOREIGN KEY (experiment_id, series_id) REFERENCES series,
            FOREIGN KEY (experiment_id, file_id) REFERENCES files
        );
        ALTER TABLE scalar_chunks ALTER COLUMN points SET STORAGE EXTERNAL;
        -- A series' chunk index is read from this index alone.
        CREATE INDEX scalar_chunks_by_series ON scalar_chunks (experiment_id, series_id, chunk_id)
            INCLUDE (point_count, min_step, max_step);
        CREATE INDEX scalar_chunks_by_file ON scalar_chunks (experiment_id, file_id);
        CREATE TABLE tensor_points (
            experiment_id TEXT NOT NULL,
            point_id BIGINT GENERATED ALWAYS AS IDENTITY,
            series_id BIGINT NOT NULL,
            file_id BIGINT NOT NULL,
            step BIGINT NOT NULL,
            wall_time DOUBLE PRECISION NOT NULL,
            tensor BYTEA NOT NULL,
            PRIMARY KEY (experiment_id, point_id),
            FOREIGN KEY (experiment_id, series_id) REFERENCES series,
            FOREIGN KEY (experiment_id, file_id) REFERENCES files
        );
        -- A tensor series' steps are read from this index alone, its values only for the points chosen.
        CREATE INDEX tensor_points_by_series ON tensor_points (experiment_id, series_id, point_id)
            INCLUDE (step, wall_time);
        CREATE INDEX tensor_points_by_file ON tensor_points (experiment_id, file_id);
        CREATE TABLE blob_points (
            experiment_id TEXT NOT NULL,
            point_id BIGINT GENERATED ALWAYS AS IDENTITY,
            series_id BIGINT NOT NULL,
            file_id BIGINT NOT NULL,
            step BIGINT NOT NULL,
            wall_time DOUBLE PRECISION NOT NULL,
            -- The blob store's keys (<experiment id>/<sha-256>), in sequence order.
            blob_keys TEXT[] NOT NULL,
            PRIMARY KEY (experiment_id, point_id),
            FOREIGN KEY (experiment_id, series_id) REFERENCES series,
            FOREIGN KEY (experiment_id, file_id) REFERENCES files
        );
        CREATE INDEX blob_points_by_series ON blob_points (experiment_id, series_id, point_id);
        CREATE INDEX blob_points_by_file ON blob_points (experiment_id, file_id);
        -- Whether any point still holds a blob, before the blob is deleted.
        CREATE INDEX blob_points_by_key ON blob_points USING GIN (blob_keys);
        -- Blobs kept in the database (no --blobs): content in chunks, so that a blob may be of any size. Images and
        -- audio are compressed already: stored as they are.
        CREATE TABLE blobs (
            experiment_id TEXT NOT NULL,
            blob_key TEXT NOT NULL,
            chunk INTEGER NOT NULL,
            data BYTEA NOT NULL,
            PRIMARY KEY (experiment_id, blob_key, chunk)
        );
        ALTER TABLE blobs ALTER COLUMN data SET STORAGE EXTERNAL;
        """,
    ),
    (
        # Who may see what (trainboard.access). `users` and `tokens` are small and read by every request: Citus would
        # make them reference tables; `experiment_roles` is keyed by experiment like the rest.
        "0002_accounts",
        """
        CREATE TABLE users (
            user_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created DOUBLE PRECISION NOT NULL
        );
        ALTER TABLE experiments
            ADD COLUMN owner_id BIGINT REFERENCES users,
            ADD COLUMN public BOOLEAN NOT NULL DEFAULT FALSE;
        CREATE TABLE tokens (
            -- The token's public id, the part of `tbk_<id>_<secret>` that lists and revocation name.
            token_id TEXT PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users,
            -- The SHA-256 of the whole token, in hexadecimal: the token itself is never stored.
            secret_hash TEXT NOT NULL UNIQUE,
            experiment_id TEXT REFERENCES experiments,
            role SMALLINT,
            created DOUBLE PRECISION NOT NULL,
            expires DOUBLE PRECISION,
            revoked DOUBLE PRECISION
        );
        CREATE INDEX tokens_by_user ON tokens (user_id);
        CREATE TABLE experiment_roles (
            experiment_id TEXT NOT NULL REFERENCES experiments,
            user_id BIGINT NOT NULL REFERENCES users,
            role SMALLINT NOT NULL,
            PRIMARY KEY (experiment_id, user_id)
        );
        CREATE INDEX experiment_roles_by_user ON experiment_roles (user_id, experiment_id);
        """,
    ),
    (
        # Browsers' sessions (`POST /auth/session`), each opened with a token whose limits it carries; stored as the
        # SHA-256 of the cookie's secret. Small and read by every signed-in request, as `tokens`: a reference table.
        "0005_sessions",
        """
        CREATE TABLE sessions (
            secret_hash TEXT PRIMARY KEY,
            token_id TEXT NOT NULL REFERENCES tokens,
            created DOUBLE PRECISION NOT NULL,
            expires DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX sessions_by_expiry ON sessions (expires);
        """,
    ),
    (
        # Pins (`POST /experiment/<id>/pins`): an experiment's runs and the summary of each of its series at one moment,
        # which a pinned view cuts every series to. Tokens limited to an experiment are revoked when it is deleted and
        # outlive it (their sessions refer to them): they no longer refer to `experiments`.
        "0006_pins",
        """
        CREATE TABLE pins (
            experiment_id TEXT NOT NULL REFERENCES experiments,
            pin_id TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (experiment_id, pin_id)
        );
        CREATE TABLE pin_runs (
            experiment_id TEXT NOT NULL,
            pin_id TEXT NOT NULL,
            run_id BIGINT NOT NULL,
            name TEXT NOT NULL,
            start_time DOUBLE PRECISION,
            PRIMARY KEY (experiment_id, pin_id, run_id),
            FOREIGN KEY (experiment_id, pin_id) REFERENCES pins
        );
        CREATE TABLE pin_series (
            experiment_id TEXT NOT NULL,
            pin_id TEXT NOT NULL,
            series_id BIGINT NOT NULL,
            run_id BIGINT NOT NULL,
            tag TEXT NOT NULL,
            point_count BIGINT NOT NULL,
            max_step BIGINT,
            max_wall_time DOUBLE PRECISION,
            max_length INTEGER NOT NULL,
            PRIMARY KEY (experiment_id, pin_id, series_id),
            FOREIGN KEY (experiment_id, pin_id) REFERENCES pins
        );
        ALTER TABLE tokens DROP CONSTRAINT tokens_experiment_id_fkey;
        """,
    ),
    (
        # Checksums (trainboard.store.checksums), checked on read; rows from before have none and are served unchecked.
        # A series' chunk index, checksums included, is still read from its index alone.
        "0007_checksums",
        """
        ALTER TABLE scalar_chunks ADD COLUMN checksum BIGINT;
        DROP INDEX scalar_chunks_by_series;
        CREATE INDEX scalar_chunks_by_series ON scalar_chunks (experiment_id, series_id, chunk_id)
            INCLUDE (point_count, min_step, max_step, checksum);
        ALTER TABLE tensor_points ADD COLUMN checksum BIGINT;
        """,
    ),
    (
        # What the run filter (trainboard.store.run_filter) compares in SQL: as SQLite's 0008_run_values.
        "0008_run_values",
        """
        ALTER TABLE scalar_chunks ADD COLUMN last_value DOUBLE PRECISION;
        DROP INDEX scalar_chunks_by_series;
        CREATE INDEX scalar_chunks_by_series ON scalar_chunks (experiment_id, series_id, chunk_id)
            INCLUDE (point_count, min_step, max_step, checksum, last_value);
        ALTER TABLE pin_series ADD COLUMN last_value DOUBLE PRECISION;
        CREATE TABLE run_hparams (
            experiment_id TEXT NOT NULL,
            run_id BIGINT NOT NULL,
            name TEXT NOT NULL,
            number DOUBLE PRECISION,
            text TEXT,
            PRIMARY KEY (experiment_id, run_id, name),
            FOREIGN KEY (experiment_id, run_id) REFERENCES runs ON DELETE CASCADE
        );
        """,
    ),
    (
        # Tensors (histograms: float32 rows of noise) gain little from pglz and cost most of an ingest's server time
        # compressing: stored as they come, like chunks and blobs; one of up to a page's size stays in its row.
        "0009_tensors_uncompressed",
        """
        ALTER TABLE tensor_points ALTER COLUMN tensor SET STORAGE EXTERNAL;
        ALTER TABLE tensor_points SET (toast_tuple_target = 8160);
        """,
    ),
    (
        # The audit log (trainboard.access.audit): as SQLite's 0009_audit. Not keyed by experiment (most events name
        # none): under Citus it stays a table of the coordinator.
        "0010_audit",
        in_dialect(AUDIT_LOG, POSTGRES),
    ),
    (
        # Who made each pin (a user's id; none for pins made without accounts): each user may make so many
        # (--max_pins_per_user), and lists and deletes their own.
        "0011_leaks_pin_creators",
        in_dialect(PIN_CREATORS, POSTGRES),
    ),
    (
        # Experiment names unique per owner (trainboard.store.experiment_names), no longer across the store; those
        # without an owner (-1 here: user ids are positive) share one more set of names. A unique index, not a
        # constraint: an expression's. `experiments` stays a reference table under Citus.
        "0012_names_per_owner",
        """
        ALTER TABLE experiments DROP CONSTRAINT experiments_name_key;
        CREATE UNIQUE INDEX experiments_by_owner_and_name ON experiments ((coalesce(owner_id, -1)), name);
        """,
    ),
    (
        # Series summaries (trainboard.store.summaries): as SQLite's 0012_series_summaries; series by tag and
        # hyperparameters by name, so that the runs table reads one tag's series (one name's values) of every run
        # at once (a hash join on run) rather than one lookup per run, and lists the tags and names with a seek each.
        "0013_series_summaries",
        """
        ALTER TABLE scalar_chunks ADD COLUMN nonfinite_count INTEGER,
            ADD COLUMN min_value DOUBLE PRECISION,
            ADD COLUMN min_value_step BIGINT,
            ADD COLUMN max_value DOUBLE PRECISION,
            ADD COLUMN max_value_step BIGINT,
            ADD COLUMN value_sum DOUBLE PRECISION,
            ADD COLUMN first_step BIGINT,
            ADD COLUMN first_wall_time DOUBLE PRECISION,
            ADD COLUMN first_value DOUBLE PRECISION,
            ADD COLUMN last_step BIGINT,
            ADD COLUMN last_wall_time DOUBLE PRECISION;
        ALTER TABLE series ADD COLUMN nonfinite_count INTEGER,
            ADD COLUMN min_value DOUBLE PRECISION,
            ADD COLUMN min_value_step BIGINT,
            ADD COLUMN max_value DOUBLE PRECISION,
            ADD COLUMN max_value_step BIGINT,
            ADD COLUMN value_sum DOUBLE PRECISION,
            ADD COLUMN first_step BIGINT,
            ADD COLUMN first_wall_time DOUBLE PRECISION,
            ADD COLUMN first_value DOUBLE PRECISION,
            ADD COLUMN last_step BIGINT,
            ADD COLUMN last_wall_time DOUBLE PRECISION,
            ADD COLUMN last_value DOUBLE PRECISION;
        ALTER TABLE pin_series ADD COLUMN nonfinite_count INTEGER,
            ADD COLUMN min_value DOUBLE PRECISION,
            ADD COLUMN min_value_step BIGINT,
            ADD COLUMN max_value DOUBLE PRECISION,
            ADD COLUMN max_value_step BIGINT,
            ADD COLUMN value_sum DOUBLE PRECISION,
            ADD COLUMN first_step BIGINT,
            ADD COLUMN first_wall_time DOUBLE PRECISION,
            ADD COLUMN first_value DOUBLE PRECISION,
            ADD COLUMN last_step BIGINT,
            ADD COLUMN last_wall_time DOUBLE PRECISION;
        CREATE INDEX series_by_tag ON series (experiment_id, data_class, tag);
        CREATE INDEX run_hparams_by_name ON run_hparams (experiment_id, name);
        ALTER TABLE runs ADD COLUMN last_step BIGINT,
            ADD COLUMN last_wall_time DOUBLE PRECISION,
            ADD COLUMN end_status TEXT;
        """,
    ),
    (
        # Run metadata and saved views: as SQLite's 0013_run_metadata. Keyed by experiment first, as every table.
        "0014_run_metadata",
        in_dialect(RUN_METADATA, POSTGRES),
    ),
    (
        # Derived metrics (trainboard.provider.derived): a named expression over an experiment's scalar tags, keyed by
        # experiment like the rest.
        "0015_definitions",
        in_dialect(DEFINITIONS, POSTGRES),
    ),
    (
        # The runs table reads one tag's series of every run from the index alone (an index-only scan), not from
        # 10,000 heap pages a tag: `series_by_tag` again, with the run and the summaries the terms read.
        "0016_series_by_tag_summaries",
        """
        CREATE INDEX series_by_tag_summaries ON series (experiment_id, data_class, tag) INCLUDE (run_id, point_count,
            nonfinite_count, min_value, min_value_step, max_value, max_value_step, value_sum, first_value, last_value);
        DROP INDEX series_by_tag;
        """,
    ),
    ("0018_claim_roles", in_dialect(CLAIM_ROLES, POSTGRES)),
]


def _backfill_run_values(connection: psycopg.Connection[Any]) -> None:
    """The hyperparameters of the runs and the last values of the series' last chunks stored before 0008."""
    for experiment_id, run_id, content in connection.execute(
        "SELECT experiment_id, run_id, plugin_content FROM series WHERE plugin_name = %s AND tag = %s",
        (HPARAMS_PLUGIN, SESSION_START_INFO_TAG),
    ).fetchall():
        for row in hparam_rows(content):
            connection.execute(
                "INSERT INTO run_hparams (experiment_id, run_id, name, number, text) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (experiment_id, run_id, *row),
            )
    for experiment_id, chunk_id, packed in connection.execute(
        f"SELECT DISTINCT ON (experiment_id, series_id) experiment_id, chunk_id,"
        f" substring(points FROM (point_count - 1) * {POINT.itemsize} + 1 FOR {POINT.itemsize})"
        " FROM scalar_chunks ORDER BY experiment_id, series_id, chunk_id DESC"
    ).fetchall():
        last = np.frombuffer(packed, POINT)
        connection.execute(
            "UPDATE scalar_chunks SET last_value = %s WHERE experiment_id = %s AND chunk_id = %s",
            (final_value(ScalarColumns(last["step"], last["wall_time"], last["value"])), experiment_id, chunk_id),
        )


def _backfill_series_summaries(connection: psycopg.Connection[Any]) -> None:
    """The summaries of the chunks, series and runs stored before 0013, and their runs' end status."""
    assignments = ", ".join(f"{name} = %s" for name in COLUMNS)
    with connection.cursor(name="chunks") as chunks:
        chunks.execute("SELECT experiment_id, chunk_id, points FROM scalar_chunks")
        for experiment_id, chunk_id, packed in chunks:
            points = np.frombuffer(packed, POINT)
            if len(points):
                summary = chunk_summary(ScalarColumns(points["step"], points["wall_time"], points["value"]))
                connection.execute(
                    f"UPDATE scalar_chunks SET {assignments} WHERE experiment_id = %s AND chunk_id = %s",
                    (*summary.row(), experiment_id, chunk_id),
                )
    for (experiment_id,) in connection.execute("SELECT experiment_id FROM experiments").fetchall():
        series_ids = [
            series_id
            for (series_id,) in connection.execute(
                "SELECT series_id FROM series WHERE experiment_id = %s", (experiment_id,)
            ).fetchall()
        ]
        connection.execute(REFRESH_SERIES_SUMMARIES, {"e": experiment_id, "s": series_ids})
        connection.execute(REFRESH_RUN_TIMES, {"e": experiment_id, "s": series_ids})
    for experiment_id, run_id, content in connection.execute(
        "SELECT experiment_id, run_id, plugin_content FROM series WHERE plugin_name = %s AND tag = %s",
        (HPARAMS_PLUGIN, SESSION_END_INFO_TAG),
    ).fetchall():
        connection.execute(
            "UPDATE runs SET end_status = %s WHERE experiment_id = %s AND run_id = %s",
            (end_status(content), experiment_id, run_id),
        )


# Run after a migration, in its transaction: what SQL alone cannot fill.
BACKFILLS: dict[str, Callable[[psycopg.Connection[Any]], None]] = {
    "0008_run_values": _backfill_run_values,
    "0013_series_summaries": _backfill_series_summaries,
}
