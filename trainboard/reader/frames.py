"""TFRecord framing of a whole byte window at once, compiled with numba: record boundaries and both checksums.

The format: uint64 length, masked CRC-32C of those 8 bytes, payload, masked CRC-32C of the payload. Walking it one
record per Python call costs more than parsing the events; here one call frames every complete record of a window.
"""

from __future__ import annotations

import numba
import numpy as np

from trainboard.reader.records import FOOTER_SIZE, HEADER_SIZE, MAX_RECORD_SIZE

# What `frame` found where it stopped.
STOPPED_AT_END = 0  # the window ends, possibly inside a record (the writer may still be writing it)
STOPPED_AT_CORRUPT_HEADER = 1  # the header at `stop` fails its checksum: the caller must resynchronise


def _crc32c_table() -> np.ndarray:
    """Byte-wise lookup table of CRC-32C (Castagnoli, reflected polynomial 0x82F63B78)."""
    table = np.zeros(256, dtype=np.uint32)
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table[byte] = crc
    return table


CRC32C_TABLE = _crc32c_table()


@numba.njit(cache=True, nogil=True)
def masked_crc32c(data: np.ndarray, start: int, length: int, table: np.ndarray) -> int:
    crc = np.uint64(0xFFFFFFFF)
    for index in range(start, start + length):
        crc = np.uint64(table[(crc ^ np.uint64(data[index])) & np.uint64(0xFF)]) ^ (crc >> np.uint64(8))
    crc ^= np.uint64(0xFFFFFFFF)
    rotated = ((crc >> np.uint64(15)) | (crc << np.uint64(17))) & np.uint64(0xFFFFFFFF)
    return int((rotated + np.uint64(0xA282EAD8)) & np.uint64(0xFFFFFFFF))


@numba.njit(cache=True, nogil=True)
def _uint(data: np.ndarray, start: int, size: int) -> int:
    """A little-endian unsigned integer of `size` bytes."""
    value = np.uint64(0)
    for index in range(size - 1, -1, -1):
        value = (value << np.uint64(8)) | np.uint64(data[start + index])
    return int(value)


@numba.njit(cache=True, nogil=True)
def frame(data: np.ndarray, position: int, table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Every complete record from `position` on: payload starts, payload lengths, whether each payload's checksum
    holds, where framing stopped (after the last complete record) and why (STOPPED_AT_*)."""
    capacity = 1024
    starts = np.empty(capacity, dtype=np.int64)
    lengths = np.empty(capacity, dtype=np.int64)
    intact = np.empty(capacity, dtype=np.bool_)
    count = 0
    size = data.shape[0]
    while position + HEADER_SIZE <= size:
        length = _uint(data, position, 8)
        if length > MAX_RECORD_SIZE or _uint(data, position + 8, 4) != masked_crc32c(data, position, 8, table):
            return starts[:count], lengths[:count], intact[:count], position, STOPPED_AT_CORRUPT_HEADER
        body = position + HEADER_SIZE
        end = body + length + FOOTER_SIZE
        if end > size:
            break
        if count == capacity:
            capacity *= 2
            starts = _grown(starts, capacity)
            lengths = _grown(lengths, capacity)
            intact = _grown(intact, capacity)
        starts[count] = body
        lengths[count] = length
        intact[count] = _uint(data, body + length, 4) == masked_crc32c(data, body, length, table)
        count += 1
        position = end
    return starts[:count], lengths[:count], intact[:count], position, STOPPED_AT_END


@numba.njit(cache=True, nogil=True)
def find_header(data: np.ndarray, position: int, table: np.ndarray) -> int:
    """The first position at or after `position` where a valid header (a sane length and its checksum) begins, or -1
    when none does in `data`."""
    size = data.shape[0]
    while position + HEADER_SIZE <= size:
        if _uint(data, position, 8) <= MAX_RECORD_SIZE and _uint(data, position + 8, 4) == masked_crc32c(
            data, position, 8, table
        ):
            return position
        position += 1
    return -1


@numba.njit(cache=True, nogil=True)
def _grown(array: np.ndarray, capacity: int) -> np.ndarray:
    grown = np.empty(capacity, dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown
