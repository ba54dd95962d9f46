"""What users wrote into a local store, carried from a database moved aside into the one built in its place.

A local store is a copy of its logdir, built again when found damaged or when its first load did not end; the
points come back from the logdir, but run notes, labels, stars, colours, display names, saved views and derived
metrics exist only in the store. Every row of theirs the old file still yields is copied, with its experiment (same
id and name, so the experiment opened next is the same one); a table that cannot be read to its end keeps the rows
read before the damage, and the loss is logged.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from pathlib import Path

logger = logging.getLogger("trainboard.store")

# The tables written by users rather than ingest, experiments first (the others reference them).
AUTHORED_TABLES = ("experiments", "run_metadata", "run_labels", "saved_views", "definitions")
# An owner's experiment is a team server's, never a local store's: only ownerless ones are carried.
OWNERLESS = {"experiments": "owner_id IS NULL"}


def salvage(old_path: str | Path, new: sqlite3.Connection) -> int:
    """Copy the authored rows still readable in the database at `old_path` into `new` (a writer; rows already there
    are kept); how many rows were copied."""
    copied = 0
    try:
        old = sqlite3.connect(f"file:{old_path}?mode=ro", uri=True)
    except sqlite3.Error as error:
        logger.warning("nothing could be carried from %s: %s", old_path, error)
        return 0
    with contextlib.closing(old):
        for table in AUTHORED_TABLES:
            copied += _copy_table(old, new, table, old_path)
    new.commit()
    return copied


def _copy_table(old: sqlite3.Connection, new: sqlite3.Connection, table: str, old_path: str | Path) -> int:
    """The rows of `table` read from `old` before any damage, inserted into `new` in the columns both share."""
    try:
        columns = [c for c in _columns(old, table) if c in _columns(new, table)]
    except sqlite3.Error as error:
        logger.warning("the %s of %s could not be carried: %s", table, old_path, error)
        return 0
    if not columns:
        return 0  # written before that table existed
    names = ", ".join(columns)
    where = f" WHERE {OWNERLESS[table]}" if table in OWNERLESS else ""
    rows: list[tuple[object, ...]] = []
    try:
        for row in old.execute(f"SELECT {names} FROM {table}{where}"):
            rows.append(row)
    except sqlite3.Error as error:
        logger.warning("%s: %d rows of %s carried, the rest were damaged: %s", old_path, len(rows), table, error)
    placeholders = ", ".join("?" for _ in columns)
    cursor = new.executemany(f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({placeholders})", rows)
    return max(cursor.rowcount, 0)


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [name for _, name, *_ in db.execute(f"PRAGMA table_info({table})")]
