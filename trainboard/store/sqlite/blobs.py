"""Blobs kept in the SQLite file itself (no --blobs), in chunks so that a blob may be larger than SQLite's limit; a
large one written a piece at a time."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import orjson

from trainboard.store.sqlite.database import Guarded, SqliteDatabase, guard_methods
from trainboard.store.sqlite.large import LARGE_VALUE, insert_large

CHUNK_BYTES = 64 << 20


@guard_methods
class SqliteBlobs(Guarded):
    """Writes on the backend's writer connection: inside a batch's transaction when called from one."""

    def __init__(self, database: SqliteDatabase) -> None:
        self._database = database
        self.sqlite = database

    def put(self, blobs: Mapping[str, bytes | memoryview]) -> None:
        if not blobs:
            return
        small = {key: data for key, data in blobs.items() if len(data) < LARGE_VALUE}
        with self._database.write_lock:
            writer = self._database.writer
            writer.executemany(
                "INSERT INTO blobs (blob_key, chunk, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [(key, 0, data) for key, data in small.items()],
            )
            for key, data in blobs.items():
                if key in small:
                    continue
                with memoryview(data) as view:
                    for chunk, start in enumerate(range(0, len(view), CHUNK_BYTES)):
                        insert_large(
                            writer,
                            "INSERT INTO blobs (blob_key, chunk, data) VALUES (?, ?, zeroblob(?))"
                            " ON CONFLICT DO NOTHING RETURNING rowid",
                            (key, chunk),
                            "blobs",
                            "data",
                            view[start : start + CHUNK_BYTES],
                        )

    def get(self, key: str) -> bytes | None:
        rows = (
            self._database.read_connection()
            .execute("SELECT data FROM blobs WHERE blob_key = ? ORDER BY chunk", (key,))
            .fetchall()
        )
        return None if not rows else b"".join(bytes(data) for (data,) in rows)

    def url(self, key: str) -> str | None:
        return None

    def delete(self, keys: Collection[str]) -> None:
        if not keys:
            return
        with self._database.write_lock:
            self._database.writer.execute(
                "DELETE FROM blobs WHERE blob_key IN (SELECT value FROM json_each(?))",
                (orjson.dumps(list(keys)).decode(),),
            )

    def delete_experiment(self, experiment_id: str) -> None:
        # Its keys, `<experiment id>/<hex digest>`, sort between these two ('/' comes just before '0').
        with self._database.write_lock:
            self._database.writer.execute(
                "DELETE FROM blobs WHERE blob_key > ? AND blob_key < ?", (f"{experiment_id}/", f"{experiment_id}0")
            )

    def check(self) -> None:
        """Nothing of its own: the blobs are in the database, which the store checks."""

    def close(self) -> None:
        """The database closes the connection."""
