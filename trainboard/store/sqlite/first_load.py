"""A rebuildable store's first load without waiting for the disk, and thrown away if it did not end cleanly.

A new SQLite store that copies a logdir (`trainboard --logdir`) is filled with `PRAGMA synchronous = OFF`: its
checkpoints do not wait for the disk to take the pages (in a cold load of the engine logdir that waiting is a fifth of
the time: 290 MB written for a 137 MB store, twice through fsync). SQLite's promise without those waits holds for a
process that dies, not for a system that crashes: its file may then be damaged in ways no check finds. So a sentinel
file beside the store, written to disk and locked before the load starts, says "first load under way". When the
first load ends (`Store.settle` after the first pass, or the store closed) the store is synced the usual way, then the
sentinel is removed. A store found with an unlocked sentinel (its loading process died, or the system crashed) is
moved aside and built again from the logdir, which it only ever copied.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

SUFFIX = ".loading"


class FirstLoad:
    """The locked sentinel of a store's first load, claimed by this process."""

    def __init__(self, sentinel: Path, descriptor: int, *, interrupted: bool) -> None:
        self.sentinel = sentinel
        # A store is there from a first load that did not end (its process died, or the system crashed): the caller
        # moves it aside before this load starts.
        self.interrupted = interrupted
        self._descriptor = descriptor

    @classmethod
    def claim(cls, store: Path) -> FirstLoad | None:
        """The first load of the store at `store` for this process to make, its sentinel on disk and locked: when no
        store is there, or one whose first load did not end. None for a store loaded before, or one that another
        process is loading now."""
        sentinel = sentinel_of(store)
        exists = store.exists()
        try:
            descriptor = os.open(sentinel, os.O_RDWR if exists else os.O_RDWR | os.O_CREAT, 0o600)
        except FileNotFoundError:
            return None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # The sentinel held is still the one on disk (a load that ended between the open and the lock removed it).
            if os.fstat(descriptor).st_ino != os.stat(sentinel).st_ino:
                raise FileNotFoundError(sentinel)
            os.fsync(descriptor)
            sync(sentinel.parent)
        except (BlockingIOError, FileNotFoundError):
            os.close(descriptor)
            return None
        return cls(sentinel, descriptor, interrupted=exists)

    def end(self) -> None:
        """The store is synced: the sentinel goes (from the disk too), then its lock."""
        with contextlib.suppress(FileNotFoundError):
            self.sentinel.unlink()
        sync(self.sentinel.parent)
        os.close(self._descriptor)


def sentinel_of(store: Path) -> Path:
    return store.with_name(store.name + SUFFIX)


def sync(path: Path | str) -> None:
    """What the system holds of a file or a directory, on disk; nothing for a file that is not there."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
