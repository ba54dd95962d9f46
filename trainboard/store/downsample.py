"""Choosing which points of a series to return when a caller asks for at most k."""

from __future__ import annotations

import numpy as np


def sample_indices(length: int, k: int | None) -> np.ndarray:
    """Indices (int64) of at most `k` points out of `length`, evenly spaced, always keeping the first and the last.

    The choice depends only on (length, k), so tags of a run logged at the same steps keep the same steps.
    """
    if k is None or k >= length:
        return np.arange(length, dtype=np.int64)
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    if k == 1:
        return np.array([length - 1], dtype=np.int64)
    # The spacing (length - 1) / (k - 1) is at least 1, so these floors are strictly increasing.
    return np.arange(k, dtype=np.int64) * (length - 1) // (k - 1)
