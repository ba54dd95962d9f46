"""The SQLite schema as named, ordered migrations, which `trainboard.store.migrations` applies each once."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import numpy as np

from trainboard.reader.hparams_names import HPARAMS_PLUGIN, SESSION_END_INFO_TAG, SESSION_START_INFO_TAG
from trainboard.store.run_values import hparam_rows
from trainboard.store.sql_schema import (
    AUDIT_LOG,
    CLAIM_ROLES,
    DEFINITIONS,
    PIN_CREATORS,
    RUN_METADATA,
    SQLITE,
    in_dialect,
)
from trainboard.store.summaries import COLUMNS, chunk_summary, end_status
from trainboard.store.values import ScalarColumns

# A series' summaries from its chunks' (trainboard.store.summaries), for the series a WHERE clause appended names.
_CHUNKS = "FROM scalar_chunks c WHERE c.series_id = series.id"
REFRESH_SERIES_SUMMARIES = (
    f"UPDATE series SET nonfinite_count = (SELECT SUM(c.nonfinite_count) {_CHUNKS}),"
    f" value_sum = (SELECT SUM(c.value_sum) {_CHUNKS}),"
    f" min_value = (SELECT MIN(c.min_value) {_CHUNKS}),"
    f" min_value_step = (SELECT c.min_value_step {_CHUNKS} AND c.min_value IS NOT NULL ORDER BY c.min_value, c.id"
    " LIMIT 1),"
    f" max_value = (SELECT MAX(c.max_value) {_CHUNKS}),"
    f" max_value_step = (SELECT c.max_value_step {_CHUNKS} AND c.max_value IS NOT NULL"
    " ORDER BY c.max_value DESC, c.id LIMIT 1),"
    " (first_step, first_wall_time, first_value) ="
    f" (SELECT c.first_step, c.first_wall_time, c.first_value {_CHUNKS} ORDER BY c.id LIMIT 1),"
    " (last_step, last_wall_time, last_value) ="
    f" (SELECT c.last_step, c.last_wall_time, c.last_value {_CHUNKS} ORDER BY c.id DESC LIMIT 1)"
)
# A run's last step and wall time (of any point) from its series', for the runs a WHERE clause appended names.
REFRESH_RUN_TIMES = (
    "UPDATE runs SET last_step = (SELECT MAX(s.max_step) FROM series s WHERE s.run_id = runs.id),"
    " last_wall_time = (SELECT MAX(s.max_wall_time) FROM series s WHERE s.run_id = runs.id)"
)

# Migrations of stores from before experiments, which 0003_experiments replaces.
OLD_MIGRATIONS = frozenset({"0001_initial", "0002_generation"})
MIGRATIONS: list[tuple[str, str]] = [
    (
        # Stores of one logdir before experiments (0001_initial, 0002_generation) are a cache of their logdir: their
        # tables go, and the logdir is read again into the layout below.
        "0003_experiments",
        """
        DROP TABLE IF EXISTS blobs;
        DROP TABLE IF EXISTS blob_points;
        DROP TABLE IF EXISTS tensor_points;
        DROP TABLE IF EXISTS scalar_chunks;
        DROP TABLE IF EXISTS series;
        DROP TABLE IF EXISTS files;
        DROP TABLE IF EXISTS runs;
        DROP TABLE IF EXISTS generation;
        CREATE TABLE experiments (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            description TEXT NOT NULL DEFAULT '',
            -- Where its data was read from (a logdir), when one process ingests it.
            location TEXT NOT NULL DEFAULT '',
            created REAL NOT NULL,
            updated REAL NOT NULL,
            -- Bumped by every write: readers cache what they derived from an experiment until it changes.
            generation INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            experiment_id TEXT NOT NULL REFERENCES experiments (id),
            name TEXT NOT NULL,
            start_time REAL,
            file_version REAL,
            most_recent_step INTEGER NOT NULL DEFAULT -1,
            seen_session_start INTEGER NOT NULL DEFAULT 0,
            UNIQUE (experiment_id, name)
        );
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            experiment_id TEXT NOT NULL REFERENCES experiments (id),
            run_id INTEGER NOT NULL REFERENCES runs (id),
            path TEXT NOT NULL,
            read_offset INTEGER NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            head BLOB NOT NULL,
            UNIQUE (experiment_id, path)
        );
        CREATE TABLE series (
            id INTEGER PRIMARY KEY,
            experiment_id TEXT NOT NULL REFERENCES experiments (id),
            run_id INTEGER NOT NULL REFERENCES runs (id),
            tag TEXT NOT NULL,
            plugin_name TEXT NOT NULL,
            data_class INTEGER NOT NULL,
            plugin_content BLOB NOT NULL,
            display_name TEXT NOT NULL,
            description TEXT NOT NULL,
            point_count INTEGER NOT NULL DEFAULT 0,
            max_step INTEGER,
            max_wall_time REAL,
            max_length INTEGER NOT NULL DEFAULT 0,
            UNIQUE (run_id, tag)
        );
        CREATE INDEX series_by_plugin ON series (experiment_id, plugin_name, run_id);
        -- Scalars are packed per chunk: little-endian int64 steps, float64 wall times, float64 values.
        CREATE TABLE scalar_chunks (
            id INTEGER PRIMARY KEY,
            series_id INTEGER NOT NULL REFERENCES series (id),
            file_id INTEGER NOT NULL REFERENCES files (id),
            point_count INTEGER NOT NULL,
            min_step INTEGER NOT NULL,
            max_step INTEGER NOT NULL,
            max_wall_time REAL NOT NULL,
            steps BLOB NOT NULL,
            wall_times BLOB NOT NULL,
            scalar_values BLOB NOT NULL
        );
        CREATE INDEX scalar_chunks_by_series ON scalar_chunks (series_id, id);
        CREATE INDEX scalar_chunks_by_file ON scalar_chunks (file_id);
        CREATE TABLE tensor_points (
            id INTEGER PRIMARY KEY,
            series_id INTEGER NOT NULL REFERENCES series (id),
            file_id INTEGER NOT NULL REFERENCES files (id),
            step INTEGER NOT NULL,
            wall_time REAL NOT NULL,
            tensor BLOB NOT NULL
        );
        CREATE INDEX tensor_points_by_series ON tensor_points (series_id, id);
        CREATE INDEX tensor_points_by_file ON tensor_points (file_id);
        CREATE TABLE blob_points (
            id INTEGER PRIMARY KEY,
            series_id INTEGER NOT NULL REFERENCES series (id),
            file_id INTEGER NOT NULL REFERENCES files (id),
            step INTEGER NOT NULL,
            wall_time REAL NOT NULL,
            length INTEGER NOT NULL
        );
        CREATE INDEX blob_points_by_series ON blob_points (series_id, id);
        CREATE INDEX blob_points_by_file ON blob_points (file_id);
        -- The blob store's key of each blob of a sequence.
        CREATE TABLE blob_refs (
            point_id INTEGER NOT NULL REFERENCES blob_points (id),
            position INTEGER NOT NULL,
            blob_key TEXT NOT NULL,
            PRIMARY KEY (point_id, position)
        );
        CREATE INDEX blob_refs_by_key ON blob_refs (blob_key);
        -- Blobs kept in the database (no --blobs): content in chunks, so that a blob may be of any size.
        CREATE TABLE blobs (
            blob_key TEXT NOT NULL,
            chunk INTEGER NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (blob_key, chunk)
        );
        """,
    ),
    (
        # Who may see what (trainboard.access): users, tokens stored as the SHA-256 of the whole token, an experiment's
        # owner and public-read flag, and the roles users were given on experiments.
        "0004_accounts",
        """
        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created REAL NOT NULL
        );
        ALTER TABLE experiments ADD COLUMN owner_id INTEGER REFERENCES users (id);
        ALTER TABLE experiments ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE tokens (
            -- The token's public id, the part of `tbk_<id>_<secret>` that lists and revocation name.
            id TEXT PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users (id),
            secret_hash TEXT NOT NULL UNIQUE,
            experiment_id TEXT REFERENCES experiments (id),
            role INTEGER,
            created REAL NOT NULL,
            expires REAL,
            revoked REAL
        );
        CREATE INDEX tokens_by_user ON tokens (user_id);
        CREATE TABLE experiment_roles (
            experiment_id TEXT NOT NULL REFERENCES experiments (id),
            user_id INTEGER NOT NULL REFERENCES users (id),
            role INTEGER NOT NULL,
            PRIMARY KEY (experiment_id, user_id)
        );
        CREATE INDEX experiment_roles_by_user ON experiment_roles (user_id);
        """,
    ),
    (
        # Browsers' sessions (`POST /auth/session`), each opened with a token whose limits it carries; stored as the
        # SHA-256 of the cookie's secret.
        "0005_sessions",
        """
        CREATE TABLE sessions (
            secret_hash TEXT PRIMARY KEY,
            token_id TEXT NOT NULL REFERENCES tokens (id),
            created REAL NOT NULL,
            expires REAL NOT NULL
        );
        CREATE INDEX sessions_by_expiry ON sessions (expires);
        """,
    ),
    (
        # Pins (`POST /experiment/<id>/pins`): an experiment's runs and the summary of each of its series at one moment,
        # which a pinned view cuts every series to.
        "0006_pins",
        """
        CREATE TABLE pins (
            experiment_id TEXT NOT NULL REFERENCES experiments (id),
            id TEXT NOT NULL,
            created REAL NOT NULL,
            PRIMARY KEY (experiment_id, id)
        ) WITHOUT ROWID;
        CREATE TABLE pin_runs (
            experiment_id TEXT NOT NULL,
            pin_id TEXT NOT NULL,
            run_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            start_time REAL,
            PRIMARY KEY (experiment_id, pin_id, run_id),
            FOREIGN KEY (experiment_id, pin_id) REFERENCES pins
        ) WITHOUT ROWID;
        CREATE TABLE pin_series (
            experiment_id TEXT NOT NULL,
            pin_id TEXT NOT NULL,
            series_id INTEGER NOT NULL,
            run_id INTEGER NOT NULL,
            tag TEXT NOT NULL,
            point_count INTEGER NOT NULL,
            max_step INTEGER,
            max_wall_time REAL,
            max_length INTEGER NOT NULL,
            PRIMARY KEY (experiment_id, pin_id, series_id),
            FOREIGN KEY (experiment_id, pin_id) REFERENCES pins
        ) WITHOUT ROWID;
        """,
    ),
    (
        # Checksums (trainboard.store.checksums), checked on read; rows from before have none and are served unchecked.
        # A series' chunk index, checksums included, is read from its index alone: a column added to scalar_chunks
        # comes after the packed columns, which SQLite would walk to reach it.
        "0007_checksums",
        """
        ALTER TABLE scalar_chunks ADD COLUMN checksum INTEGER;
        DROP INDEX scalar_chunks_by_series;
        CREATE INDEX scalar_chunks_by_series
            ON scalar_chunks (series_id, id, point_count, min_step, max_step, checksum);
        ALTER TABLE tensor_points ADD COLUMN checksum INTEGER;
        """,
    ),
    (
        # What the run filter (trainboard.store.run_filter) compares in SQL: each run's hyperparameters, read from its
        # hparams session start (bools as 1 and 0, numbers, strings), and the last value of each chunk, so that a
        # series' final value is its last chunk's, read from the series' chunk index (as 0007's columns); a pin keeps
        # each series' final value as the pin saw it.
        # `trainboard.store.run_values.backfill` fills both for what was stored before.
        "0008_run_values",
        """
        ALTER TABLE scalar_chunks ADD COLUMN last_value REAL;
        DROP INDEX scalar_chunks_by_series;
        CREATE INDEX scalar_chunks_by_series
            ON scalar_chunks (series_id, id, point_count, min_step, max_step, checksum, last_value);
        ALTER TABLE pin_series ADD COLUMN last_value REAL;
        CREATE TABLE run_hparams (
            experiment_id TEXT NOT NULL,
            run_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            number REAL,
            text TEXT,
            PRIMARY KEY (run_id, name)
        );
        CREATE INDEX run_hparams_by_experiment ON run_hparams (experiment_id, name);
        """,
    ),
    (
        # The audit log (trainboard.access.audit): who did what, from where. Its rows name users, tokens and
        # experiments by value, without foreign keys, so that they outlive what they name; read newest first, by time,
        # user or experiment.
        "0009_audit",
        in_dialect(AUDIT_LOG, SQLITE),
    ),
    (
        # Who made each pin (a user's id; none for pins made without accounts): each user may make so many
        # (--max_pins_per_user), and lists and deletes their own.
        "0010_leaks_pin_creators",
        in_dialect(PIN_CREATORS, SQLITE),
    ),
    (
        # Experiment names unique per owner (trainboard.store.experiment_names), no longer across the store; those
        # without an owner (-1 here: user ids are positive) share one more set of names. SQLite cannot drop the
        # column's UNIQUE: the table is built again, as its documentation says (a new table, the rows copied, the old
        # one dropped, the new one renamed), which leaves the other tables' references to `experiments` as they are.
        "0011_names_per_owner",
        """
        CREATE TABLE experiments_per_owner (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            location TEXT NOT NULL DEFAULT '',
            created REAL NOT NULL,
            updated REAL NOT NULL,
            generation INTEGER NOT NULL DEFAULT 0,
            owner_id INTEGER REFERENCES users (id),
            public INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO experiments_per_owner (id, name, description, location, created, updated, generation, owner_id,
            public)
            SELECT id, name, description, location, created, updated, generation, owner_id, public FROM experiments;
        DROP TABLE experiments;
        ALTER TABLE experiments_per_owner RENAME TO experiments;
        CREATE UNIQUE INDEX experiments_by_owner_and_name ON experiments (coalesce(owner_id, -1), name);
        """,
    ),
    (
        # Series summaries (trainboard.store.summaries), exact over every point: each scalar chunk's, each series'
        # (merged from its chunks' as they are written, computed again from them after deletions) and each pin's copy
        # of its series'; each run's last step and wall time (of any point) and its hparams session's end status, for
        # its status and times. The runs table reads a run's series of a tag from `series_summaries` alone (a series'
        # row is far from the next run's: 5 times slower to read at 10,000 runs x 50 tags), a run's hyperparameter
        # from `run_hparams_values` alone, and an experiment's scalar tags from `series_tags` (one seek per tag, where
        # DISTINCT read every series: 0.1 ms against 700 ms). `_backfill_series_summaries` fills them for what was
        # stored before; a pin made before keeps only its last values.
        "0012_series_summaries",
        """
        ALTER TABLE scalar_chunks ADD COLUMN nonfinite_count INTEGER;
        ALTER TABLE scalar_chunks ADD COLUMN min_value REAL;
        ALTER TABLE scalar_chunks ADD COLUMN min_value_step INTEGER;
        ALTER TABLE scalar_chunks ADD COLUMN max_value REAL;
        ALTER TABLE scalar_chunks ADD COLUMN max_value_step INTEGER;
        ALTER TABLE scalar_chunks ADD COLUMN value_sum REAL;
        ALTER TABLE scalar_chunks ADD COLUMN first_step INTEGER;
        ALTER TABLE scalar_chunks ADD COLUMN first_wall_time REAL;
        ALTER TABLE scalar_chunks ADD COLUMN first_value REAL;
        ALTER TABLE scalar_chunks ADD COLUMN last_step INTEGER;
        ALTER TABLE scalar_chunks ADD COLUMN last_wall_time REAL;
        ALTER TABLE series ADD COLUMN nonfinite_count INTEGER;
        ALTER TABLE series ADD COLUMN min_value REAL;
        ALTER TABLE series ADD COLUMN min_value_step INTEGER;
        ALTER TABLE series ADD COLUMN max_value REAL;
        ALTER TABLE series ADD COLUMN max_value_step INTEGER;
        ALTER TABLE series ADD COLUMN value_sum REAL;
        ALTER TABLE series ADD COLUMN first_step INTEGER;
        ALTER TABLE series ADD COLUMN first_wall_time REAL;
        ALTER TABLE series ADD COLUMN first_value REAL;
        ALTER TABLE series ADD COLUMN last_step INTEGER;
        ALTER TABLE series ADD COLUMN last_wall_time REAL;
        ALTER TABLE series ADD COLUMN last_value REAL;
        ALTER TABLE pin_series ADD COLUMN nonfinite_count INTEGER;
        ALTER TABLE pin_series ADD COLUMN min_value REAL;
        ALTER TABLE pin_series ADD COLUMN min_value_step INTEGER;
        ALTER TABLE pin_series ADD COLUMN max_value REAL;
        ALTER TABLE pin_series ADD COLUMN max_value_step INTEGER;
        ALTER TABLE pin_series ADD COLUMN value_sum REAL;
        ALTER TABLE pin_series ADD COLUMN first_step INTEGER;
        ALTER TABLE pin_series ADD COLUMN first_wall_time REAL;
        ALTER TABLE pin_series ADD COLUMN first_value REAL;
        ALTER TABLE pin_series ADD COLUMN last_step INTEGER;
        ALTER TABLE pin_series ADD COLUMN last_wall_time REAL;
        CREATE INDEX series_summaries ON series (run_id, tag, data_class, point_count, nonfinite_count, min_value,
            min_value_step, max_value, max_value_step, value_sum, first_value, last_value);
        CREATE INDEX series_tags ON series (experiment_id, data_class, tag);
        CREATE INDEX run_hparams_values ON run_hparams (run_id, name, number, text);
        ALTER TABLE runs ADD COLUMN last_step INTEGER;
        ALTER TABLE runs ADD COLUMN last_wall_time REAL;
        ALTER TABLE runs ADD COLUMN end_status TEXT;
        """,
    ),
    (
        # Run metadata and saved views (trainboard.store.run_metadata), keyed by run name, without references to
        # `runs`: they outlive a run's rows, so that a run ingested again finds them. Notes may be long: `run_metadata`
        # keeps its rowid.
        "0013_run_metadata",
        in_dialect(RUN_METADATA, SQLITE),
    ),
    (
        # Derived metrics (trainboard.provider.derived): a named expression over an experiment's scalar tags.
        "0014_definitions",
        in_dialect(DEFINITIONS, SQLITE),
    ),
    ("0016_claim_roles", in_dialect(CLAIM_ROLES, SQLITE)),
]


def _backfill_run_values(db: sqlite3.Connection) -> None:
    """The hyperparameters of the runs and the last values of the series' last chunks stored before 0008."""
    for experiment_id, run_id, content in db.execute(
        "SELECT experiment_id, run_id, plugin_content FROM series WHERE plugin_name = ? AND tag = ?",
        (HPARAMS_PLUGIN, SESSION_START_INFO_TAG),
    ).fetchall():
        db.executemany(
            "INSERT OR IGNORE INTO run_hparams (experiment_id, run_id, name, number, text) VALUES (?, ?, ?, ?, ?)",
            [(experiment_id, run_id, *row) for row in hparam_rows(content)],
        )
    for chunk_id, values in db.execute(
        "SELECT id, scalar_values FROM scalar_chunks WHERE id IN (SELECT MAX(id) FROM scalar_chunks GROUP BY series_id)"
    ).fetchall():
        last = np.frombuffer(values, dtype="<f8")[-1:]
        if len(last) and last[0] == last[0]:
            db.execute("UPDATE scalar_chunks SET last_value = ? WHERE id = ?", (float(last[0]), chunk_id))


def _backfill_series_summaries(db: sqlite3.Connection) -> None:
    """The summaries of the chunks, series and runs stored before 0012, and their runs' end status."""
    assignments = ", ".join(f"{name} = ?" for name in COLUMNS)
    for chunk_id, steps, wall_times, values in db.execute(
        "SELECT id, steps, wall_times, scalar_values FROM scalar_chunks"
    ).fetchall():
        columns = ScalarColumns(
            np.frombuffer(steps, "<i8"), np.frombuffer(wall_times, "<f8"), np.frombuffer(values, "<f8")
        )
        if len(columns):
            db.execute(
                f"UPDATE scalar_chunks SET {assignments} WHERE id = ?", (*chunk_summary(columns).row(), chunk_id)
            )
    db.execute(f"{REFRESH_SERIES_SUMMARIES} WHERE id IN (SELECT DISTINCT series_id FROM scalar_chunks)")
    db.execute(f"{REFRESH_RUN_TIMES} WHERE 1 = 1")
    for run_id, content in db.execute(
        "SELECT run_id, plugin_content FROM series WHERE plugin_name = ? AND tag = ?",
        (HPARAMS_PLUGIN, SESSION_END_INFO_TAG),
    ).fetchall():
        db.execute("UPDATE runs SET end_status = ? WHERE id = ?", (end_status(content), run_id))


# Run after a migration, in its transaction: what SQL alone cannot fill.
BACKFILLS: dict[str, Callable[[sqlite3.Connection], None]] = {
    "0008_run_values": _backfill_run_values,
    "0012_series_summaries": _backfill_series_summaries,
}
