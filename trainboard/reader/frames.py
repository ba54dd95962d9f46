"""TFRecord framing of a whole byte window at once: record boundaries and both checksums.

The format: uint64 length, masked CRC-32C of those 8 bytes, payload, masked CRC-32C of the payload. Walking it one
record per Python call costs more than parsing the events; a C kernel (_framing.c) frames every complete record of a
window in one call. Without it (trainboard.kernels) the same walk runs in Python.
"""

from __future__ import annotations

import google_crc32c
import numpy as np

from trainboard import kernels

HEADER_SIZE = 12
FOOTER_SIZE = 4
# No real record is this large; a header claiming more is corrupt even when its CRC happens to match.
MAX_RECORD_SIZE = 2 * 1024 * 1024 * 1024

# What `frame` found where it stopped (as _framing.c numbers them).
STOPPED_AT_END = 0  # the window ends, possibly inside a record (the writer may still write it)
STOPPED_AT_CORRUPT_HEADER = 1  # the header at `stop` fails: resynchronise

_KERNEL = "trainboard.reader._framing"


def masked_crc(data: bytes) -> int:
    return mask(google_crc32c.value(data))


def mask(crc: int) -> int:
    """The CRC-32C `crc` as TFRecord files store it."""
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def valid_header(data: bytes | bytearray | memoryview, position: int = 0) -> bool:
    """Whether a sane length and its checksum begin at `position` (which holds HEADER_SIZE bytes)."""
    header = bytes(data[position : position + HEADER_SIZE])
    length, checksum = int.from_bytes(header[:8], "little"), int.from_bytes(header[8:], "little")
    return length <= MAX_RECORD_SIZE and checksum == masked_crc(header[:8])


def frame(data: np.ndarray, position: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Every complete record from `position` on: payload starts, payload lengths, whether each payload's checksum
    holds, where framing stopped (after the last complete record) and why (STOPPED_AT_*)."""
    kernel = kernels.compiled(_KERNEL)
    if kernel is None:
        return _frame_in_python(data.data, max(position, 0))
    starts, lengths, intact, stop, reason = kernel.frame(data, position)
    return (
        np.frombuffer(starts, dtype=np.int64),
        np.frombuffer(lengths, dtype=np.int64),
        np.frombuffer(intact, dtype=np.bool_),
        stop,
        reason,
    )


def find_header(data: np.ndarray, position: int) -> int:
    """The first position at or after `position` where a valid header (a sane length and its checksum) begins, or -1
    when none does in `data`."""
    kernel = kernels.compiled(_KERNEL)
    if kernel is None:
        view = data.data
        return next((at for at in range(max(position, 0), len(view) - HEADER_SIZE + 1) if valid_header(view, at)), -1)
    found: int = kernel.find_header(data, position)
    return found


def _frame_in_python(data: memoryview, position: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    starts: list[int] = []
    lengths: list[int] = []
    intact: list[bool] = []
    reason = STOPPED_AT_END
    while position + HEADER_SIZE <= len(data):
        if not valid_header(data, position):
            reason = STOPPED_AT_CORRUPT_HEADER
            break
        length = int.from_bytes(data[position : position + 8], "little")
        body = position + HEADER_SIZE
        if len(data) - body < length + FOOTER_SIZE:
            break
        starts.append(body)
        lengths.append(length)
        checksum = int.from_bytes(data[body + length : body + length + FOOTER_SIZE], "little")
        intact.append(checksum == masked_crc(bytes(data[body : body + length])))
        position = body + length + FOOTER_SIZE
    return (
        np.array(starts, dtype=np.int64),
        np.array(lengths, dtype=np.int64),
        np.array(intact, dtype=np.bool_),
        position,
        reason,
    )
