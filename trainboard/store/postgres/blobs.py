"""Blobs kept in the PostgreSQL database itself (no --blobs), in chunks so that a blob may be of any size."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from trainboard.store.blobs import split_blob_key
from trainboard.store.postgres.database import PostgresDatabase

# bytea values are limited to 1 GB, and each chunk is one parameter held in memory on both sides.
CHUNK_BYTES = 16 << 20


class PostgresBlobs:
    """Writes inside the batch's transaction when called from one, so that a batch's blobs commit with its points."""

    def __init__(self, database: PostgresDatabase) -> None:
        self._database = database

    def put(self, blobs: Mapping[str, bytes | memoryview]) -> None:
        if not blobs:
            return
        # Chunks are views: a large blob is held once, and each chunk copied only as it is sent.
        rows = [
            (split_blob_key(key)[0], key, chunk, view[start : start + CHUNK_BYTES])
            for key, data in blobs.items()
            for view in [memoryview(data)]
            for chunk, start in enumerate(range(0, max(1, len(view)), CHUNK_BYTES))
        ]
        with self._database.writing() as connection, connection.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO blobs (experiment_id, blob_key, chunk, data) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                rows,
            )

    def get(self, key: str) -> bytes | None:
        with self._database.pool.connection() as connection:
            rows = connection.execute(
                "SELECT data FROM blobs WHERE experiment_id = %s AND blob_key = %s ORDER BY chunk",
                (split_blob_key(key)[0], key),
                binary=True,
            ).fetchall()
        return None if not rows else b"".join(data for (data,) in rows)

    def url(self, key: str) -> str | None:
        return None

    def delete(self, keys: Collection[str]) -> None:
        if not keys:
            return
        with self._database.writing() as connection:
            connection.execute(
                "DELETE FROM blobs b USING unnest(%s::text[], %s::text[]) AS gone (experiment_id, blob_key)"
                " WHERE b.experiment_id = gone.experiment_id AND b.blob_key = gone.blob_key",
                ([split_blob_key(key)[0] for key in keys], list(keys)),
            )

    def delete_experiment(self, experiment_id: str) -> None:
        with self._database.writing() as connection:
            connection.execute("DELETE FROM blobs WHERE experiment_id = %s", (experiment_id,))

    def check(self) -> None:
        """Nothing of its own: the blobs are in the database, which the store checks."""

    def close(self) -> None:
        """The database closes the pool."""
