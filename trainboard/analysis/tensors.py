"""The tensors the exception analysis accepts, and how TS-VIS lays one out as a 2-D heat map.

A tensor of 0 to 4 dimensions and a real number dtype (booleans count as 0 and 1). 1-D and 2-D tensors are shown as
they are (a 0-D one as a 1-D of one value). A 3-D tensor `[B, W, H]` becomes an `n × m` grid of its `B` slices of
`W × H`; a 4-D tensor is taken as `[B, W, H, C]` (channels last) and becomes an `n × m` grid of its `B · C` slices.
`n` is the largest divisor of the slice count that is at most `sqrt(count / 2)`, so grids are about twice as wide as
tall.
"""

from __future__ import annotations

import math

import numpy as np

from trainboard.errors import InvalidArgumentError

MAX_DIMENSIONS = 4


def checked(tensor: np.ndarray) -> np.ndarray:
    """The tensor with at most 4 dimensions and a real number dtype (booleans as uint8), or a clear error."""
    array = np.asarray(tensor)
    if array.ndim > MAX_DIMENSIONS:
        raise InvalidArgumentError(
            f"exception analysis takes tensors of at most {MAX_DIMENSIONS} dimensions, not shape {list(array.shape)}"
        )
    if array.dtype == np.bool_:
        return array.astype(np.uint8)
    if array.dtype.kind not in "iuf":
        raise InvalidArgumentError(f"exception analysis takes real numbers, not dtype {array.dtype.name}")
    return array


def grid_shape(count: int) -> tuple[int, int]:
    """Rows and columns of the grid of `count` slices, as TS-VIS picks them."""
    rows = math.isqrt(count // 2)
    if rows == 0:
        return 1, count
    while count % rows:
        rows -= 1
    return rows, count // rows


def tiled(tensor: np.ndarray) -> np.ndarray:
    """The tensor laid out as TS-VIS's heat map: 1-D (for 0-D and 1-D tensors) or 2-D."""
    if tensor.ndim <= 2:
        return tensor.reshape(-1) if tensor.ndim == 0 else tensor
    if tensor.ndim == 4:
        batch, width, height, channels = tensor.shape
        tensor = tensor.transpose(0, 3, 1, 2).reshape(batch * channels, width, height)
    count, width, height = tensor.shape
    rows, columns = grid_shape(count)
    grid = tensor.reshape(rows, columns, width, height).transpose(0, 2, 1, 3)
    return grid.reshape(rows * width, columns * height)
