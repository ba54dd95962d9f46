"""Decoding, compiled with numba, of the event that dominates every logdir: one step's `simple_value` scalars.

An event qualifies when it holds only wall_time (field 1), step (2) and a summary (5) whose values hold only a tag
(1) and a simple_value (2), which is what tensorboardX, torch.utils.tensorboard and TF1's scalar summaries write.
Every other event, and anything malformed, is left to the protobuf parser and the general normaliser.
"""

from __future__ import annotations

import numba
import numpy as np

WIRE_VARINT, WIRE_FIXED64, WIRE_LENGTH, WIRE_FIXED32 = 0, 1, 2, 5
FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)


@numba.njit(cache=True, nogil=True)
def _varint(data: np.ndarray, position: int, end: int) -> tuple[int, int]:
    """The varint at `position` and the position after it; position -1 when it is malformed or runs past `end`."""
    value = np.uint64(0)
    shift = np.uint64(0)
    while position < end and shift < 64:
        byte = data[position]
        position += 1
        value |= np.uint64(byte & 0x7F) << shift
        if byte < 0x80:
            return np.int64(value), position
        shift += np.uint64(7)
    return 0, -1


@numba.njit(cache=True, nogil=True)
def _fixed(data: np.ndarray, position: int, size: int) -> np.uint64:
    value = np.uint64(0)
    for index in range(size - 1, -1, -1):
        value = (value << np.uint64(8)) | np.uint64(data[position + index])
    return value


@numba.njit(cache=True, nogil=True)
def _value(data: np.ndarray, position: int, end: int, as_float32: np.ndarray) -> tuple[int, int, float, bool]:
    """A Summary.Value of exactly a tag and a simple_value: tag start, tag length, value, and whether it is one."""
    tag_start, tag_length, found_value = -1, 0, False
    value = 0.0
    while position < end:
        key, position = _varint(data, position, end)
        if position < 0:
            return 0, 0, 0.0, False
        field, wire = key >> 3, key & 7
        if field == 1 and wire == WIRE_LENGTH:
            tag_length, position = _varint(data, position, end)
            if position < 0 or tag_length < 0 or position + tag_length > end:
                return 0, 0, 0.0, False
            tag_start = position
            position += tag_length
        elif field == 2 and wire == WIRE_FIXED32 and position + 4 <= end:
            as_float32.view(np.uint32)[0] = np.uint32(_fixed(data, position, 4))
            value = float(as_float32[0])
            found_value = True
            position += 4
        else:
            return 0, 0, 0.0, False
    return tag_start, tag_length, value, found_value and tag_start >= 0 and position == end


@numba.njit(cache=True, nogil=True)
def decode(
    data: np.ndarray, starts: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each record (payload at starts[i], lengths[i]): whether it is a simple scalar event, its wall time and
    step; for each value of those events: its record, tag position and length, FNV-1a hash of the tag, value."""
    count = starts.shape[0]
    simple = np.zeros(count, dtype=np.bool_)
    wall_times = np.zeros(count, dtype=np.float64)
    steps = np.zeros(count, dtype=np.int64)
    capacity = max(count, 16)
    records = np.empty(capacity, dtype=np.int64)
    tag_starts = np.empty(capacity, dtype=np.int64)
    tag_lengths = np.empty(capacity, dtype=np.int64)
    values = np.empty(capacity, dtype=np.float64)
    as_float64 = np.zeros(1, dtype=np.float64)
    as_float32 = np.zeros(1, dtype=np.float32)
    used = 0
    for record in range(count):
        position, end = starts[record], starts[record] + lengths[record]
        first_value, ok, has_summary = used, True, False
        while ok and position < end:
            key, position = _varint(data, position, end)
            if position < 0:
                ok = False
                break
            field, wire = key >> 3, key & 7
            if field == 1 and wire == WIRE_FIXED64 and position + 8 <= end:
                as_float64.view(np.uint64)[0] = _fixed(data, position, 8)
                wall_times[record] = as_float64[0]
                position += 8
            elif field == 2 and wire == WIRE_VARINT:
                steps[record], position = _varint(data, position, end)
                ok = position >= 0
            elif field == 5 and wire == WIRE_LENGTH:
                length, position = _varint(data, position, end)
                if position < 0 or length < 0 or position + length > end:
                    ok = False
                    break
                summary_end = position + length
                has_summary = True
                while ok and position < summary_end:
                    key, position = _varint(data, position, summary_end)
                    if position < 0 or key != (1 << 3 | WIRE_LENGTH):
                        ok = False
                        break
                    length, position = _varint(data, position, summary_end)
                    if position < 0 or length < 0 or position + length > summary_end:
                        ok = False
                        break
                    tag_start, tag_length, value, ok = _value(data, position, position + length, as_float32)
                    position += length
                    if ok:
                        if used == capacity:
                            capacity *= 2
                            records = _grown(records, capacity)
                            tag_starts = _grown(tag_starts, capacity)
                            tag_lengths = _grown(tag_lengths, capacity)
                            values = _grown(values, capacity)
                        records[used] = record
                        tag_starts[used] = tag_start
                        tag_lengths[used] = tag_length
                        values[used] = value
                        used += 1
            else:
                ok = False
        if ok and has_summary and position == end:
            simple[record] = True
        else:
            used = first_value  # the event goes to the general path whole
    hashes = np.empty(used, dtype=np.uint64)
    for index in range(used):
        hashes[index] = _fnv1a(data, tag_starts[index], tag_lengths[index])
    return (
        simple,
        wall_times,
        steps,
        records[:used],
        tag_starts[:used],
        tag_lengths[:used],
        hashes,
        values[:used],
    )


@numba.njit(cache=True, nogil=True)
def _fnv1a(data: np.ndarray, start: int, length: int) -> np.uint64:
    digest = FNV_OFFSET
    for index in range(start, start + length):
        digest = (digest ^ np.uint64(data[index])) * FNV_PRIME
    return digest


@numba.njit(cache=True, nogil=True)
def same_tags(
    data: np.ndarray, tag_starts: np.ndarray, tag_lengths: np.ndarray, groups: np.ndarray, representatives: np.ndarray
) -> bool:
    """Whether every value's tag equals its group representative's byte for byte (no hash collision)."""
    for index in range(tag_starts.shape[0]):
        other = representatives[groups[index]]
        length = tag_lengths[index]
        if tag_lengths[other] != length:
            return False
        for offset in range(length):
            if data[tag_starts[index] + offset] != data[tag_starts[other] + offset]:
                return False
    return True


@numba.njit(cache=True, nogil=True)
def _grown(array: np.ndarray, capacity: int) -> np.ndarray:
    grown = np.empty(capacity, dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown
