"""TFRecord framing: uint64 length, masked CRC-32C of the length, payload, masked CRC-32C of the payload.

A record that is cut short at the end of a file is "not yet", never corruption: the writer may still be writing it,
so reading stops there and resumes later from the last complete record's end.
"""

from __future__ import annotations

import io
import logging
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import google_crc32c
import numpy as np

from trainboard.names import loggable
from trainboard.reader import frames
from trainboard.reader.frames import FOOTER_SIZE, HEADER_SIZE, masked_crc

logger = logging.getLogger("trainboard.reader")

# Read at most this much at a time; a record larger than this is read whole.
READ_LIMIT = 64 * 1024 * 1024
# A record larger than READ_LIMIT is read into one buffer this much at a time.
READ_PIECE = 8 * 1024 * 1024

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class Record:
    offset: int
    end: int
    payload: bytes


def write_record(stream: BinaryIO, payload: bytes) -> None:
    header = _LENGTH.pack(len(payload))
    stream.write(header + _CRC.pack(masked_crc(header)) + payload + _CRC.pack(masked_crc(payload)))


@dataclass(frozen=True, slots=True)
class Frames:
    """The complete, intact records of one read: payload `starts` and `lengths` index `data`, which begins at file
    offset `offset`; `end` is the file offset after the last record read (and any corruption skipped)."""

    data: np.ndarray
    offset: int
    starts: np.ndarray
    lengths: np.ndarray
    end: int

    def __len__(self) -> int:
        return len(self.starts)

    def payload(self, index: int) -> bytes:
        start = int(self.starts[index])
        return self.data[start : start + int(self.lengths[index])].tobytes()

    def view(self, index: int) -> memoryview:
        """The payload without a copy (it keeps the whole window in memory while it lives)."""
        start = int(self.starts[index])
        return memoryview(self.data.data)[start : start + int(self.lengths[index])]

    def record_offset(self, index: int) -> int:
        return self.offset + int(self.starts[index]) - HEADER_SIZE

    def records(self) -> Iterator[Record]:
        for index in range(len(self)):
            offset = self.record_offset(index)
            yield Record(offset, offset + HEADER_SIZE + int(self.lengths[index]) + FOOTER_SIZE, self.payload(index))


def read_frames(stream: BinaryIO, offset: int, *, path: str, limit: int) -> Frames:
    """The complete records among the `limit` bytes from `offset` (a larger first record is read whole); a partial
    record at the end is left for a later read.

    A corrupt record is logged once (path and offset) and skipped: by its length when only the payload is damaged,
    else by scanning forward for the next valid header. Where the bytes at hand hold none, all but their last
    HEADER_SIZE - 1 bytes are skipped: a header may begin there once more bytes are read.
    """
    stream.seek(offset)
    raw: bytes | bytearray = stream.read(limit)
    if len(raw) == limit >= HEADER_SIZE and frames.valid_header(raw):
        (length,) = _LENGTH.unpack_from(raw, 0)
        wanted = HEADER_SIZE + length + FOOTER_SIZE
        # Only when the file holds the whole record: a read of up to 2 GB asked of a short file still allocates it.
        if wanted > limit and offset + wanted <= stream.seek(0, io.SEEK_END):
            raw = b""
            # And, past a piece, only when its checksum holds (read a piece at a time): a length that is a lie
            # (garbage, or a sparse file's hole) costs no buffer of the size it claims.
            if length > READ_PIECE and not _payload_intact(stream, offset + HEADER_SIZE, length):
                _log_corrupt_payload(path, offset)
                nothing = np.empty(0, dtype=np.int64)
                return Frames(np.empty(0, dtype=np.uint8), offset, nothing, nothing, offset + wanted)
            raw = _read_whole(stream, offset, wanted)
    data = np.frombuffer(raw, dtype=np.uint8)
    starts, lengths, position = [], [], 0
    while True:
        found_starts, found_lengths, intact, stop, reason = frames.frame(data, position)
        for index in np.flatnonzero(~intact):
            _log_corrupt_payload(path, offset + int(found_starts[index]) - HEADER_SIZE)
        starts.append(found_starts[intact])
        lengths.append(found_lengths[intact])
        position = stop
        if reason == frames.STOPPED_AT_END:
            break
        header = frames.find_header(data, position + 1)
        resumed = header if header >= 0 else len(raw) - HEADER_SIZE + 1
        _log_skip(path, offset + position, offset + resumed, done=header >= 0)
        position = resumed
    if position + HEADER_SIZE <= len(raw):
        _note_waiting(stream, path, offset + position, raw[position : position + HEADER_SIZE])
    return Frames(data, offset, np.concatenate(starts), np.concatenate(lengths), offset + position)


def read_records(stream: BinaryIO, offset: int, *, path: str, limit: int = READ_LIMIT) -> Iterator[Record]:
    """Every complete record from `offset` on, read `limit` bytes at a time."""
    while True:
        found = read_frames(stream, offset, path=path, limit=limit)
        yield from found.records()
        if found.end == offset:
            return
        offset = found.end


def _payload_intact(stream: BinaryIO, start: int, length: int) -> bool:
    """Whether the `length` bytes at `start` match the checksum after them, read a piece at a time."""
    stream.seek(start)
    crc, remaining = 0, length
    while remaining:
        piece = stream.read(min(READ_PIECE, remaining))
        if not piece:
            return False
        crc = google_crc32c.extend(crc, piece)
        remaining -= len(piece)
    footer = stream.read(FOOTER_SIZE)
    return len(footer) == FOOTER_SIZE and _CRC.unpack(footer)[0] == frames.mask(crc)


def _log_corrupt_payload(path: str, offset: int) -> None:
    logger.warning("%s: corrupt record payload at offset %d (checksum mismatch); skipped", loggable(path), offset)


def _read_whole(stream: BinaryIO, offset: int, size: int) -> bytearray:
    """`size` bytes from `offset` (fewer if the file shrank meanwhile) into one buffer, a piece at a time: a large
    record is held once, not once more for each concatenation."""
    buffer = bytearray(size)
    filled = 0
    stream.seek(offset)
    with memoryview(buffer) as view:
        while filled < size:
            piece = stream.read(min(READ_PIECE, size - filled))
            if not piece:
                break
            view[filled : filled + len(piece)] = piece
            filled += len(piece)
    del buffer[filled:]
    return buffer


# Per file, the offset of the record last said to reach past the end of the file.
_waiting_at: dict[str, int] = {}


def _note_waiting(stream: BinaryIO, path: str, offset: int, header: bytes | bytearray) -> None:
    """Framing stopped at a valid header whose record the bytes at hand do not hold. When it reaches past the end of
    the file, say so once: a writer may be writing it (TensorBoard's "try again later", and the file is read on from
    there as it grows), or the header is corrupt with a checksum that happens to hold, and nothing after it is read
    until the file is as long as it claims. A claim over READ_LIMIT is a warning, an ordinary record being written is
    only information."""
    (length,) = _LENGTH.unpack_from(header, 0)
    available = stream.seek(0, io.SEEK_END) - offset
    if HEADER_SIZE + length + FOOTER_SIZE <= available or _waiting_at.get(path) == offset:
        return
    _waiting_at[path] = offset
    logger.log(
        logging.WARNING if length > READ_LIMIT else logging.INFO,
        "%s: the record at offset %d claims %d bytes but the file holds %d after its header; reading on from there "
        "when the file grows",
        path,
        offset,
        length,
        available - HEADER_SIZE,
    )


# Per file, where the last skip over corrupt bytes ended: a skip that starts there goes on over the same damage
# (its first bytes could not be checked before more of the file was read) and is not logged again.
_skipped_to: dict[str, int] = {}


def _log_skip(path: str, start: int, end: int, *, done: bool) -> None:
    if _skipped_to.get(path) != start:
        logger.warning(
            "%s: corrupt record header at offset %d; skipped %d bytes%s",
            loggable(path),
            start,
            end - start,
            "" if done else " so far",
        )
    _skipped_to[path] = end
