"""Decoding, compiled in C (_scalars.c), of the event that dominates every logdir: one step's `simple_value` scalars.

An event qualifies when it holds only wall_time (field 1), step (2) and a summary (5) whose values hold only a tag
(1) and a simple_value (2), which is what tensorboardX, torch.utils.tensorboard and TF1's scalar summaries write.
Every other event, and anything malformed, is left to the protobuf parser and the general normaliser; without the
kernel (trainboard.kernels), every event is.
"""

from __future__ import annotations

import numpy as np

from trainboard import kernels

_DTYPES = (np.bool_, np.float64, np.int64, np.int64, np.int64, np.int64, np.int64, np.float64, np.int64)
# The first columns are per record; the others per value of the simple records, or per tag.
_PER_RECORD = 3


def decode(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    """For each record (payload at starts[i], lengths[i]): whether it is a simple scalar event, its wall time and
    step; for each value of those events: its record, tag position and length, tag number (by first appearance, one
    number per distinct tag, byte for byte), value; for each tag number, its first value."""
    kernel = kernels.compiled("trainboard.normaliser._scalars")
    if kernel is None:  # no record is simple
        return [np.zeros(len(starts) if column < _PER_RECORD else 0, dtype) for column, dtype in enumerate(_DTYPES)]
    found = kernel.decode(data, _int64(starts), _int64(lengths))
    return [np.frombuffer(column, dtype=dtype) for column, dtype in zip(found, _DTYPES, strict=True)]


def _int64(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.int64)
