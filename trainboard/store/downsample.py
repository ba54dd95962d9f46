"""Choosing which points of a series to return when a caller asks for at most k."""

from __future__ import annotations


def sample_indices(length: int, k: int | None) -> range | list[int]:
    """Indices of at most `k` points out of `length`, evenly spaced, always keeping the first and the last.

    The choice depends only on (length, k), so tags of a run logged at the same steps keep the same steps.
    """
    if k is None or k >= length:
        return range(length)
    if k <= 0:
        return []
    if k == 1:
        return [length - 1]
    # The spacing (length - 1) / (k - 1) is at least 1, so these floors are strictly increasing.
    return [i * (length - 1) // (k - 1) for i in range(k)]
