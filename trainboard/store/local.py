"""Local stores: the SQLite file in the user's cache directory that `trainboard --logdir` (and `trainboard.open`)
reads each logdir into when no --db is given, named by a hash of the logdir.

Beside each store, `<store>.json` records its logdir (`{"logdir": ..., "paths": [...]}`, the local paths absolute),
written at every opening: `trainboard stores` lists the stores by it, and its modification time says when the
store was last opened. Every file of a store starts with the store's file name: the database, SQLite's `-wal` and
`-shm`, the first load's `.loading` sentinel, the writers' `.<experiment>.writer` locks, copies moved aside as
`.damaged-<time>` and the record.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from trainboard.reader.logdir_spec import URL, parse_logdir_spec

SUFFIX = ".sqlite"
RECORD = ".json"


def cache_directory() -> Path:
    """trainboard's directory in the user's cache (`$XDG_CACHE_HOME/trainboard` on Linux)."""
    return Path(platformdirs.user_cache_dir("trainboard"))


def store_url(db: str, logdir: str, *, spec: bool = False) -> str:
    """The store a logdir (or a --logdir_spec, with `spec`) is read into: `db` when given, else its local store,
    recorded as opened now."""
    if db:
        return db
    store = cache_directory() / f"{_key(logdir)}{SUFFIX}"
    _record(store, logdir, spec=spec)
    return str(store)


def _key(logdir: str) -> str:
    normalised = logdir if "://" in logdir else os.path.abspath(os.path.expanduser(logdir))
    return hashlib.sha256(normalised.encode()).hexdigest()[:16]


def _record(store: Path, logdir: str, *, spec: bool) -> None:
    """`<store>.json`, written anew; a cache directory that cannot be written is left for the store's opening to
    report."""
    paths = list(parse_logdir_spec(logdir)) if spec else [_absolute(logdir)]
    record = {"logdir": logdir if spec else paths[0], "paths": paths}
    with contextlib.suppress(OSError):
        store.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        written = store.with_name(f".{store.name}{RECORD}.{os.getpid()}")
        with open(os.open(written, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
            file.write(json.dumps(record))
        os.replace(written, _record_of(store))


def _absolute(logdir: str) -> str:
    return logdir if URL.match(logdir) else os.path.abspath(os.path.expanduser(logdir))


def _record_of(store: Path) -> Path:
    return store.with_name(store.name + RECORD)


@dataclass(frozen=True, slots=True)
class LocalStore:
    path: Path
    # The logdir (or --logdir_spec) as recorded; "" for a store made before stores recorded their logdir.
    logdir: str
    # Whether the logdir is there: False when none of its local paths is, None when that cannot be told (a URL, or
    # no record).
    exists: bool | None
    files: tuple[Path, ...]
    size: int
    last_used: float


def local_stores(directory: Path | None = None) -> list[LocalStore]:
    """The local stores in `directory` (the cache directory by default), the most recently used first."""
    directory = directory or cache_directory()
    if not directory.is_dir():
        return []
    names = sorted(os.listdir(directory))
    stores = [_local_store(directory / name, names) for name in names if name.endswith(SUFFIX)]
    return sorted(stores, key=lambda store: store.last_used, reverse=True)


def _local_store(path: Path, names: list[str]) -> LocalStore:
    files = tuple(path.with_name(name) for name in names if name.startswith(path.name))
    stats = [found.stat() for found in files if found.is_file()]
    try:
        record = json.loads(_record_of(path).read_text())
        logdir, paths = str(record["logdir"]), [str(found) for found in record["paths"]]
    except (OSError, ValueError, KeyError, TypeError):
        logdir, paths = "", []
    return LocalStore(
        path=path,
        logdir=logdir,
        exists=_exists(paths),
        files=files,
        size=sum(stat.st_size for stat in stats),
        last_used=max((stat.st_mtime for stat in stats), default=0.0),
    )


def _exists(paths: list[str]) -> bool | None:
    local = [found for found in paths if not URL.match(found)]
    if any(os.path.isdir(found) for found in local):
        return True
    return False if local and len(local) == len(paths) else None


def in_use(store: Path) -> bool:
    """Whether a process has the store open: every SQLite connection in WAL mode holds a shared lock on the database
    file for as long as it is open, so an exclusive lock is refused. A file SQLite cannot lock (not a database, or
    unreadable) counts as in use too: only what is known to be free is removed."""
    try:
        connection = sqlite3.connect(f"{store.resolve().as_uri()}?mode=rw", uri=True, timeout=0)
    except sqlite3.Error:
        return True
    try:
        connection.execute("PRAGMA locking_mode = EXCLUSIVE")
        connection.execute("BEGIN EXCLUSIVE")
        connection.execute("ROLLBACK")
    except sqlite3.Error:
        return True
    finally:
        connection.close()
    return False


def remove(store: LocalStore) -> None:
    """Every file of the store; one that is already gone is no error."""
    for found in store.files:
        with contextlib.suppress(FileNotFoundError):
            found.unlink()
