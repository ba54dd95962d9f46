"""TFRecord framing of a whole byte window at once, compiled in C (_framing.c): record boundaries and both checksums.

The format: uint64 length, masked CRC-32C of those 8 bytes, payload, masked CRC-32C of the payload. Walking it one
record per Python call costs more than parsing the events; here one call frames every complete record of a window.
"""

from __future__ import annotations

import numpy as np

from trainboard.reader import _framing

# What `frame` found where it stopped.
STOPPED_AT_END = _framing.STOPPED_AT_END  # the window ends, possibly inside a record (the writer may still write it)
STOPPED_AT_CORRUPT_HEADER = _framing.STOPPED_AT_CORRUPT_HEADER  # the header at `stop` fails: resynchronise


def frame(data: np.ndarray, position: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Every complete record from `position` on: payload starts, payload lengths, whether each payload's checksum
    holds, where framing stopped (after the last complete record) and why (STOPPED_AT_*)."""
    starts, lengths, intact, stop, reason = _framing.frame(data, position)
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
    found: int = _framing.find_header(data, position)
    return found
