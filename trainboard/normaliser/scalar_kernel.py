"""Decoding, compiled in C (_scalars.c), of the event that dominates every logdir: one step's `simple_value` scalars.

An event qualifies when it holds only wall_time (field 1), step (2) and a summary (5) whose values hold only a tag
(1) and a simple_value (2), which is what tensorboardX, torch.utils.tensorboard and TF1's scalar summaries write.
Every other event, and anything malformed, is left to the protobuf parser and the general normaliser.
"""

from __future__ import annotations

import numpy as np

from trainboard.normaliser import _scalars

_DTYPES = (np.bool_, np.float64, np.int64, np.int64, np.int64, np.int64, np.uint64, np.float64)


def decode(
    data: np.ndarray, starts: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each record (payload at starts[i], lengths[i]): whether it is a simple scalar event, its wall time and
    step; for each value of those events: its record, tag position and length, FNV-1a hash of the tag, value."""
    found = _scalars.decode(data, _int64(starts), _int64(lengths))
    columns: list[np.ndarray] = [
        np.frombuffer(column, dtype=dtype) for column, dtype in zip(found, _DTYPES, strict=True)
    ]
    simple, wall_times, steps, records, tag_starts, tag_lengths, hashes, values = columns
    return simple, wall_times, steps, records, tag_starts, tag_lengths, hashes, values


def same_tags(
    data: np.ndarray, tag_starts: np.ndarray, tag_lengths: np.ndarray, groups: np.ndarray, representatives: np.ndarray
) -> bool:
    """Whether every value's tag equals its group representative's byte for byte (no hash collision)."""
    same: bool = _scalars.same_tags(
        data, _int64(tag_starts), _int64(tag_lengths), _int64(groups), _int64(representatives)
    )
    return same


def _int64(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.int64)
