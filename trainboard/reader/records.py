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
    crc: int = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def write_record(stream: BinaryIO, payload: bytes) -> None:
    header = _LENGTH.pack(len(payload))
    stream.write(header + _CRC.pack(masked_crc(header)) + payload + _CRC.pack(masked_crc(payload)))


def read_records(stream: BinaryIO, offset: int, *, path: str, limit: int | None = None) -> Iterator[Record]:
    """Yield the complete records from `offset` on; stop quietly at a partial record or after `limit` bytes.

    A corrupt record is logged once (path and offset) and skipped: by its length when only the payload is damaged,
    else by scanning forward for the next valid header.
    """
    window_start = offset
    while limit is None or window_start - offset < limit:
        stream.seek(window_start)
        window = stream.read(BUFFER_SIZE)
        at_end = len(window) < BUFFER_SIZE
        records, consumed, wanted = _records_in(window, window_start, path)
        yield from records
        if consumed == 0 and wanted > len(window) and not at_end:
            # One record larger than a window: read it whole.
            stream.seek(window_start)
            records, consumed, _ = _records_in(stream.read(wanted), window_start, path)
            yield from records
        if consumed == 0 or at_end:
            return
        window_start += consumed


def _records_in(data: bytes, start: int, path: str) -> tuple[list[Record], int, int]:
    """The complete records at the front of `data` (which begins at file offset `start`), the bytes they and any
    skipped corruption take, and how many bytes the first incomplete record needs."""
    records: list[Record] = []
    position = 0
    size = len(data)
    unpack_length, unpack_crc = _LENGTH.unpack_from, _CRC.unpack_from
    while position + HEADER_SIZE <= size:
        (length,) = unpack_length(data, position)
        if length > MAX_RECORD_SIZE or unpack_crc(data, position + 8)[0] != masked_crc(data[position : position + 8]):
            resumed = _resynchronise(data, position + 1)
            if resumed is None:
                return records, position, size + 1
            logger.warning(
                "%s: corrupt record header at offset %d; skipped %d bytes", path, start + position, resumed - position
            )
            position = resumed
            continue
        body = position + HEADER_SIZE
        end = body + length + FOOTER_SIZE
        if end > size:
            return records, position, end - position
        payload = data[body : body + length]
        if unpack_crc(data, body + length)[0] == masked_crc(payload):
            records.append(Record(offset=start + position, end=start + end, payload=payload))
        else:
            logger.warning(
                "%s: corrupt record payload at offset %d (checksum mismatch); skipped", path, start + position
            )
        position = end
    return records, position, HEADER_SIZE


def _resynchronise(data: bytes, position: int) -> int | None:
    """The first position at or after `position` where a record with a valid header and payload begins, or None
    when that cannot be decided with the bytes at hand."""
    size = len(data)
    while position + HEADER_SIZE <= size:
        (length,) = _LENGTH.unpack_from(data, position)
        if length <= MAX_RECORD_SIZE and _CRC.unpack_from(data, position + 8)[0] == masked_crc(
            data[position : position + 8]
        ):
            end = position + HEADER_SIZE + length + FOOTER_SIZE
            if end > size:
                return None
            payload = data[position + HEADER_SIZE : end - FOOTER_SIZE]
            if _CRC.unpack_from(data, end - FOOTER_SIZE)[0] == masked_crc(payload):
                return position
        position += 1
    return None
