"""Reading what is new in one event file since the last read, across growth, truncation and replacement."""

from __future__ import annotations

from dataclasses import dataclass

from trainboard.reader.logdir import FileStat, RunSource
from trainboard.reader.records import READ_LIMIT, Frames, read_frames

# The first bytes of a file identify it: a file whose head changed was replaced.
HEAD_SIZE = 64


@dataclass(frozen=True, slots=True)
class FileCursor:
    """How far a file has been read: `offset` is the end of the last complete record."""

    path: str
    offset: int
    size: int
    mtime: float
    head: bytes


@dataclass(frozen=True, slots=True)
class Tail:
    cursor: FileCursor
    frames: Frames | None = None
    # The file was truncated or replaced: what was read from it before is void and records start at 0.
    restarted: bool = False
    # The read limit was reached before the end of the file.
    more: bool = False


def read_new(logdir: RunSource, cursor: FileCursor | None, path: str, *, limit: int = READ_LIMIT) -> Tail:
    """The records added to `path` since `cursor`, at most about `limit` bytes of them; all of them again when the file
    was truncated or replaced."""
    try:
        stat = logdir.stat(path)
        size = stat.size
        with logdir.open(path) as stream:
            head = stream.read(HEAD_SIZE)
            restarted = is_restarted(cursor, stat, head)
            offset = 0 if cursor is None or restarted else cursor.offset
            if cursor is not None and not restarted and size == cursor.size and cursor.offset == size:
                return Tail(cursor=cursor)
            found = read_frames(stream, offset, path=path, limit=limit)
    except FileNotFoundError:
        # A file that vanished keeps what was read from it.
        return Tail(cursor=cursor or FileCursor(path=path, offset=0, size=0, mtime=0.0, head=b""))
    end = found.end
    return Tail(
        cursor=FileCursor(path=path, offset=end, size=size, mtime=stat.mtime, head=head),
        frames=found,
        restarted=restarted,
        more=end > offset and size - offset > limit,
    )


def is_restarted(cursor: FileCursor | None, found: FileStat, head: bytes) -> bool:
    """Whether a file read up to `cursor` was truncated or replaced since, by its size, modification time and first
    bytes now: then what was read from it is void and it is read again from 0."""
    return cursor is not None and (
        found.size < cursor.offset or not _same_head(cursor.head, head) or _replaced_in_place(cursor, found)
    )


def _replaced_in_place(cursor: FileCursor, found: FileStat) -> bool:
    """Written again without growing: a file of the same size but another modification time (appends grow a file)."""
    return found.size == cursor.size and found.mtime != cursor.mtime


def _same_head(seen: bytes, now: bytes) -> bool:
    """A growing file keeps its first bytes; a shorter head seen earlier must be a prefix of the current one."""
    return now.startswith(seen) if len(seen) <= len(now) else False
