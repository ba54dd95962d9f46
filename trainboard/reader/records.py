"""TFRecord framing: uint64 length, masked CRC-32C of the length, payload, masked CRC-32C of the payload.

A record that is cut short at the end of a file is "not yet", never corruption: the writer may still be writing it,
so reading stops there and resumes later from the last complete record's end.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import google_crc32c

logger = logging.getLogger("trainboard.reader")

HEADER_SIZE = 12
FOOTER_SIZE = 4
# Read this much at a time; a record larger than this is read whole.
BUFFER_SIZE = 8 * 1024 * 1024
# No real record is this large; a header claiming more is corrupt even when its CRC happens to match.
MAX_RECORD_SIZE = 2 * 1024 * 1024 * 1024

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class Record:
    offset: int
    end: int
    payload: bytes


def masked_crc(data: bytes) -> int:
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def write_record(stream: BinaryIO, payload: bytes) -> None:
    header = _LENGTH.pack(len(payload))
    stream.write(header + _CRC.pack(masked_crc(header)) + payload + _CRC.pack(masked_crc(payload)))


def read_records(stream: BinaryIO, offset: int, *, path: str, limit: int | None = None) -> Iterator[Record]:
    """Yield the complete records from `offset` on; stop quietly at a partial record or after `limit` bytes.

    A corrupt record is logged once (path and offset) and skipped: by its length when only the payload is damaged,
    else by scanning forward for the next valid header.
    """
    buffer = _Buffer(stream, offset)
    position = offset
    while limit is None or position - offset < limit:
        header = buffer.read(position, HEADER_SIZE)
        if len(header) < HEADER_SIZE:
            return
        (length,) = _LENGTH.unpack_from(header)
        if _CRC.unpack_from(header, 8)[0] != masked_crc(header[:8]) or length > MAX_RECORD_SIZE:
            resumed = _resynchronise(buffer, position + 1)
            if resumed is None:
                return  # nothing after can be decided yet: maybe the tail is still being written
            logger.warning(
                "%s: corrupt record header at offset %d; skipped %d bytes", path, position, resumed - position
            )
            position = resumed
            continue
        body = buffer.read(position + HEADER_SIZE, length + FOOTER_SIZE)
        if len(body) < length + FOOTER_SIZE:
            return
        payload = body[:length]
        end = position + HEADER_SIZE + length + FOOTER_SIZE
        if _CRC.unpack_from(body, length)[0] != masked_crc(payload):
            logger.warning("%s: corrupt record payload at offset %d (checksum mismatch); skipped", path, position)
        else:
            yield Record(offset=position, end=end, payload=payload)
        position = end


def _resynchronise(buffer: _Buffer, start: int) -> int | None:
    """The first offset at or after `start` where a record with a valid header and payload begins."""
    position = start
    while True:
        header = buffer.read(position, HEADER_SIZE)
        if len(header) < HEADER_SIZE:
            return None
        (length,) = _LENGTH.unpack_from(header)
        if length <= MAX_RECORD_SIZE and _CRC.unpack_from(header, 8)[0] == masked_crc(header[:8]):
            body = buffer.read(position + HEADER_SIZE, length + FOOTER_SIZE)
            if len(body) < length + FOOTER_SIZE:
                return None
            if _CRC.unpack_from(body, length)[0] == masked_crc(body[:length]):
                return position
        position += 1


class _Buffer:
    """A window over a seekable stream, refilled in large reads."""

    def __init__(self, stream: BinaryIO, offset: int) -> None:
        self._stream = stream
        self._start = offset
        self._data = b""

    def read(self, position: int, size: int) -> bytes:
        end = position + size
        if position < self._start or end > self._start + len(self._data):
            self._fill(position, size)
        relative = position - self._start
        return self._data[relative : relative + size]

    def _fill(self, position: int, size: int) -> None:
        self._stream.seek(position)
        self._data = self._stream.read(max(size, BUFFER_SIZE))
        self._start = position
