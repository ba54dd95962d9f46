"""The SQLite store's schema as named, ordered migrations, each applied once and recorded in `migrations`."""

from __future__ import annotations

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            start_time REAL,
            file_version REAL,
            most_recent_step INTEGER NOT NULL DEFAULT -1,
            seen_session_start INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs (id),
            path TEXT NOT NULL UNIQUE,
            read_offset INTEGER NOT NULL,
            size INTEGER NOT NULL,
            head BLOB NOT NULL
        );
        CREATE TABLE series (
            id INTEGER PRIMARY KEY,
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
        CREATE INDEX series_by_plugin ON series (plugin_name, run_id);
        -- Scalars are packed per chunk: little-endian int64 steps, float64 wall times, float64 values.
        CREATE TABLE scalar_chunks (
            id INTEGER PRIMARY KEY,
            series_id INTEGER NOT NULL REFERENCES series (id),
            file_id INTEGER NOT NULL REFERENCES files (id),
            point_count INTEGER NOT NULL,
            min_step INTEGER NOT NULL,
            max_step INTEGER NOT NULL,
            steps BLOB NOT NULL,
            wall_times BLOB NOT NULL,
            scalar_values BLOB NOT NULL
        );
        CREATE INDEX scalar_chunks_by_series ON scalar_chunks (series_id, id);
        CREATE TABLE tensor_points (
            id INTEGER PRIMARY KEY,
            series_id INTEGER NOT NULL REFERENCES series (id),
            file_id INTEGER NOT NULL REFERENCES files (id),
            step INTEGER NOT NULL,
            wall_time REAL NOT NULL,
            tensor BLOB NOT NULL
        );
        CREATE INDEX tensor_points_by_series ON tensor_points (series_id, id);
        CREATE TABLE blob_points (
            id INTEGER PRIMARY KEY,
            series_id INTEGER NOT NULL REFERENCES series (id),
            file_id INTEGER NOT NULL REFERENCES files (id),
            step INTEGER NOT NULL,
            wall_time REAL NOT NULL,
            length INTEGER NOT NULL
        );
        CREATE INDEX blob_points_by_series ON blob_points (series_id, id);
        CREATE TABLE blobs (
            point_id INTEGER NOT NULL REFERENCES blob_points (id),
            position INTEGER NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (point_id, position)
        );
        """,
    ),
    (
        "0002_generation",
        """
        -- Bumped by every write: readers cache what they derived from the store until it changes.
        CREATE TABLE generation (value INTEGER NOT NULL);
        INSERT INTO generation (value) VALUES (0);
        """,
    ),
]
