"""Files as a client sent them (`trainboard upload`): each path's size and modification time as the client saw
them, its first bytes, and the span of its bytes that came, from an offset. Read through `RunSource` like a logdir,
so that uploaded files are read by the same code and rules; outside the span, a file reads as ended."""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import BinaryIO, cast

from trainboard.reader.logdir import FileStat, resolve_posix
from trainboard.reader.tail import HEAD_SIZE


@dataclass(frozen=True, slots=True)
class ReceivedFile:
    stat: FileStat
    head: bytes
    offset: int
    data: bytes

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
