"""`open_store(db, blobs)`: a store from URLs, the backend picked by scheme.

`db`: a bare path, `sqlite:PATH`, `sqlite:///PATH` (TensorBoard's forms) or `postgresql://...`. `blobs`: None to keep
blobs in the database, or `s3://bucket/prefix` (credentials and endpoint from the standard AWS environment).
A database without a schema gets it: migrations run at open. `standbys`: URLs of hot standbys of a PostgreSQL `db`
that take its reads (trainboard.store.postgres.standbys).

`rebuildable`: the store is a copy of a logdir that this process ingests (`trainboard --logdir`): a SQLite database
found damaged, at open or later (`Store.rebuild`), is moved aside (`<name>.damaged-<time>`) and built again; at open,
only a file that starts as a SQLite database does, unless `cached` (the store is in trainboard's cache directory,
never a file the user named).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from trainboard.store.blobs import BlobStore
from trainboard.store.database import Database
from trainboard.store.errors import StoreDamaged, StoreUnavailable
from trainboard.store.store import Store

if TYPE_CHECKING:
    from trainboard.store.sqlite.database import SqliteDatabase
    from trainboard.store.sqlite.first_load import FirstLoad

logger = logging.getLogger("trainboard.store")

POSTGRES_SCHEMES = ("postgresql", "postgres")
# The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def open_store(
    db: str,
    blobs: str | None = None,
    *,
    rebuildable: bool = False,
    cached: bool = False,
    standbys: Sequence[str] = (),
) -> Store:
    scheme = urlsplit(db).scheme if "://" in db or db.startswith("sqlite:") else ""
    if scheme in POSTGRES_SCHEMES:
        from trainboard.store.postgres.blobs import PostgresBlobs
        from trainboard.store.postgres.database import PostgresDatabase

        blob_store = _blob_store(blobs)
        try:
            postgres = PostgresDatabase(
                db, location=redacted(db), standbys=[(standby, redacted(standby)) for standby in standbys]
            )
        except StoreUnavailable:
            if blob_store is not None:
                blob_store.close()
            raise
        return Store(postgres, blob_store or PostgresBlobs(postgres), location=redacted(db))
    if standbys:
        raise StoreUnavailable(f"{redacted(db)}: standbys (--read_db) are for a PostgreSQL store (postgresql://)")
    if scheme not in ("", "sqlite"):
        raise StoreUnavailable(f"{db}: unknown store scheme {scheme!r} (expected a path, sqlite: or postgresql://)")
    from trainboard.store.sqlite.blobs import SqliteBlobs
    from trainboard.store.sqlite.database import SqliteDatabase, is_damage

    path = sqlite_path(db)
    first_load, moved = _first_load(path) if rebuildable else (None, None)
    try:
        sqlite = SqliteDatabase(path, first_load)
    except (sqlite3.DatabaseError, StoreDamaged) as error:
        damaged = isinstance(error, StoreDamaged) or is_damage(error)
        if not (rebuildable and damaged and (cached or _is_sqlite_file(path))):
            raise StoreUnavailable(_sqlite_failure(path, error)) from None
        moved = move_aside(path)
        logger.warning("the store %s was damaged (%s): moved it aside to %s; building it again", path, error, moved)
        sqlite = _opened_sqlite(path, first_load)
    except OSError as error:
        raise StoreUnavailable(_sqlite_failure(path, error)) from None
    if moved is not None:
        _carry_authored(moved, sqlite)

    def renew(old: Database) -> tuple[Database, BlobStore, str]:
        assert isinstance(old, SqliteDatabase)
        moved = move_aside(path)
        new = _opened_sqlite(path)
        new.adopt_claims(old)
        _carry_authored(moved, new)
        return new, _blob_store(blobs) or SqliteBlobs(new), moved

    return Store(
        sqlite, _blob_store(blobs) or SqliteBlobs(sqlite), location=str(path), renew=renew if rebuildable else None
    )


def _first_load(path: Path) -> tuple[FirstLoad | None, str | None]:
    """A rebuildable store's first load, to make here (trainboard.store.sqlite.first_load); a store left by one that
    did not end is moved aside (where to, the second value)."""
    from trainboard.store.sqlite.first_load import FirstLoad

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        first_load = FirstLoad.claim(path)
    except OSError as error:
        raise StoreUnavailable(_sqlite_failure(path, error)) from None
    if first_load is not None and first_load.interrupted:
        moved = move_aside(path)
        logger.warning("the first load of the store %s did not end: moved it aside to %s; loading again", path, moved)
        return first_load, moved
    return first_load, None


def _carry_authored(moved: str, new: SqliteDatabase) -> None:
    """What users wrote in the store moved aside (notes, labels, views, definitions), into the one in its place."""
    from trainboard.store.sqlite.salvage import salvage

    with new.write_lock:
        copied = salvage(moved, new.writer)
    if copied:
        logger.warning(
            "carried %d rows written by users (run notes, labels, views, definitions) from %s", copied, moved
        )


def _opened_sqlite(path: Path, first_load: FirstLoad | None = None) -> SqliteDatabase:
    from trainboard.store.sqlite.database import SqliteDatabase

    try:
        return SqliteDatabase(path, first_load)
    except (OSError, sqlite3.Error) as error:
        raise StoreUnavailable(_sqlite_failure(path, error)) from None


def move_aside(path: Path) -> str:
    """Rename a SQLite database and its write-ahead log files to `<name>.damaged-<time>...`; the new name."""
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    return str(aside)


def _is_sqlite_file(path: Path) -> bool:
    """Whether the file starts as a SQLite database does: one damaged, not another kind of file given by mistake."""
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def sqlite_path(db: str) -> Path:
    """The file of a SQLite store URL: `sqlite:~/x.db`, `sqlite:///abs/x.db`, `sqlite:/abs/x.db` or a bare path."""
    if db.startswith("sqlite://"):
        db = db.removeprefix("sqlite://")
    elif db.startswith("sqlite:"):
        db = db.removeprefix("sqlite:")
    return Path(os.path.expanduser(db))


def redacted(url: str) -> str:
    """A URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    # The hosts as given: a libpq URL may name several (host:port,host:port), which `parts.port` refuses.
    hosts = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{hosts}"))


def _blob_store(blobs: str | None) -> BlobStore | None:
    if not blobs:
        return None
    if not blobs.startswith("s3://"):
        raise StoreUnavailable(f"{blobs}: blobs go to an S3-compatible store, given as s3://bucket/prefix")
    from trainboard.store.s3.blobs import S3Blobs

    return S3Blobs(blobs)


def _sqlite_failure(path: Path, error: Exception) -> str:
    directory = path.parent
    if isinstance(error, StoreDamaged):
        return str(error)
    if isinstance(error, sqlite3.DatabaseError) and "not a database" in str(error):
        return f"{path} is not a trainboard store (not a SQLite database): give another --db, or move that file away"
    if not directory.exists() or not os.access(directory, os.W_OK):
        return f"cannot write the store {path}: its directory {directory} is not writable (give another --db)"
    if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
        return f"the store {path} is locked by another process: stop it, or give another --db"
    return f"cannot open the store {path}: {error}"
