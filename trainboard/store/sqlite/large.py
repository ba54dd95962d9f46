"""Large values written into SQLite a piece at a time.

Bound as a parameter, a value is copied by the sqlite3 module and again into the record SQLite builds: a 200 MB
tensor costs 400 MB more while it is inserted. Inserted as a zeroblob and filled through incremental blob I/O, it
costs one piece.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

# Values at least this large are written in pieces of this size.
LARGE_VALUE = 8 << 20


def insert_large(
    db: sqlite3.Connection,
    sql: str,
    parameters: Sequence[object],
    table: str,
    column: str,
    data: bytes | memoryview,
) -> None:
    """Run `sql`, an INSERT whose last parameter is the value's length, to be taken by `zeroblob(?)`, and that
    returns the new row's id (none when it inserted nothing); then write `data` into that row's `column`."""
    row = db.execute(sql, (*parameters, len(data))).fetchone()
    if row is None:
        return
    with memoryview(data) as view, db.blobopen(table, column, row[0]) as blob:
        for start in range(0, len(view), LARGE_VALUE):
            blob.write(view[start : start + LARGE_VALUE])
