"""Files as a client sent them (`trainboard upload`): each path's size and modification time as the client saw
them, its first bytes, and the span of its bytes that came, from an offset. Read through `RunSource` like a logdir,
so that uploaded files are read by the same code and rules; outside the span, a file reads as ended.

A request body arrives into a `Spool`, a piece at a time, and is read from there a window at a time: a server holds
a bounded part of each body, whatever its length."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import BinaryIO, Protocol, cast

import google_crc32c

from trainboard.reader.logdir import FileStat, resolve_posix
from trainboard.reader.tail import HEAD_SIZE

# A body up to this size stays in memory (a chunk as `trainboard upload` sends them, 4 MiB); a larger one goes to a
# temporary file (in TMPDIR).
SPOOL_IN_MEMORY = 8 * 1024 * 1024


class Bytes(Protocol):
    """What a received file's bytes are read through: `bytes`, or a `Span` of a spooled body."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: slice, /) -> bytes: ...


class Spool:
    """A body received a piece at a time, with its length and CRC-32C; `Span`s read parts of it back. Close it (or use
    it as a context manager) to free its temporary file."""

    def __init__(self) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
        self.length = 0
        self.crc32c = 0

    @classmethod
    def of(cls, data: bytes) -> Spool:
        spool = cls()
        spool.write(data)
        return spool

    def write(self, piece: bytes) -> None:
        self._file.seek(self.length)
        self._file.write(piece)
        self.length += len(piece)
        self.crc32c = google_crc32c.extend(self.crc32c, piece)

    def read(self, start: int, size: int) -> bytes:
        self._file.seek(start)
        return self._file.read(max(0, min(size, self.length - start)))

    def span(self, start: int, stop: int) -> Span:
        return Span(self, start, max(0, min(stop, self.length) - start))

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Spool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class Span:
    """`length` bytes of a spool from `start`, read when sliced."""

    spool: Spool
    start: int
    length: int

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: slice, /) -> bytes:
        start, stop, step = index.indices(self.length)
        if step != 1:
            raise ValueError("a span is read in one direction")
        return self.spool.read(self.start + start, stop - start)


@dataclass(frozen=True, slots=True)
class ReceivedFile:
    stat: FileStat
    head: bytes
    offset: int
    data: Bytes

    @classmethod
    def whole(cls, data: bytes, mtime: float) -> ReceivedFile:
        return cls(FileStat(size=len(data), mtime=mtime), data[:HEAD_SIZE], 0, data)


class ReceivedFiles:
    """A run source over received files, by their '/'-separated paths relative to the client's logdir."""

    url = "upload"

    def __init__(self, files: Mapping[str, ReceivedFile]) -> None:
        self._files = files

    def runs(self) -> dict[str, list[str]]:
        return {}

    def open(self, path: str) -> BinaryIO:
        found = self._files.get(path)
        if found is None:
            raise FileNotFoundError(path)
        return cast(BinaryIO, io.BufferedReader(_Span(found)))

    def stat(self, path: str) -> FileStat:
        found = self._files.get(path)
        if found is None:
            raise FileNotFoundError(path)
        return found.stat

    def resolve(self, name: str, config_path: str) -> str | None:
        return resolve_posix(name, config_path)


class _Span(io.RawIOBase):
    """A file's head at 0 and its received bytes at their offset; it ends where the received bytes end."""

    def __init__(self, file: ReceivedFile) -> None:
        self._file = file
        self._end = max(file.offset + len(file.data), len(file.head))
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._end}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        file, position = self._file, self._position
        if file.offset <= position < file.offset + len(file.data):
            chunk = file.data[position - file.offset : position - file.offset + len(buffer)]
        elif position < len(file.head):
            chunk = file.head[position : min(len(file.head), position + len(buffer))]
            if position < file.offset:
                chunk = chunk[: file.offset - position]
        else:
            chunk = b""
        buffer[: len(chunk)] = chunk
        self._position += len(chunk)
        return len(chunk)
