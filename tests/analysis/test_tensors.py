"""Which tensors the exception analysis takes, and the heat-map layout, checked element by element."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from trainboard.analysis.tensors import checked, grid_shape, tiled
from trainboard.errors import InvalidArgumentError

EXAMPLES = settings(max_examples=300, deadline=None, derandomize=True, database=None)


def heat_map_position(index: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """Where TS-VIS draws element `index`: slices (of a 3-D `[B, W, H]`, or a 4-D `[B, W, H, C]` in the order b, c)
    fill an n × m grid row by row."""
    if len(shape) <= 2:
        return index or (0,)
    if len(shape) == 3:
        (slice_index, w, h), (count, width, height) = index, shape
    else:
        b, w, h, c = index
        count, width, height = shape[0] * shape[3], shape[1], shape[2]
        slice_index = b * shape[3] + c
    _, columns = grid_shape(count)
    return (slice_index // columns) * width + w, (slice_index % columns) * height + h


@given(st.integers(0, 5000))
@EXAMPLES
def test_grid_is_the_largest_divisor_at_most_the_root_of_half(count: int) -> None:
    rows, columns = grid_shape(count)
    assert rows * columns == count or (rows, columns) == (1, 0)
    limit = max(1, int((count / 2) ** 0.5))
    assert rows == max(d for d in range(1, limit + 1) if count % d == 0) if count else rows == 1


@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7), unique=False))
@EXAMPLES
def test_every_element_lands_where_tsvis_draws_it(tensor: np.ndarray) -> None:
    tensor = np.arange(tensor.size, dtype=np.int64).reshape(tensor.shape)  # each value names its element
    grid = tiled(tensor)
    assert grid.ndim == (1 if tensor.ndim <= 1 else 2)
    assert grid.size == tensor.size
    for index in np.ndindex(*tensor.shape):
        assert grid[heat_map_position(index, tensor.shape)] == tensor[index]


def test_a_wide_grid_of_channels() -> None:
    # 2 images of 3 × 4 with 5 channels: 10 slices in a 2 × 5 grid of 3 × 4 tiles.
    assert tiled(np.zeros((2, 3, 4, 5))).shape == (6, 20)
    assert tiled(np.zeros((7, 2, 2))).shape == (2, 14)  # a prime count: one row


@pytest.mark.parametrize(
    ("tensor", "message"),
    [
        (np.zeros((1, 1, 1, 1, 1)), "at most 4 dimensions, not shape [1, 1, 1, 1, 1]"),
        (np.array(["a", "b"]), "real numbers, not dtype str32"),
        (np.array([1 + 2j]), "real numbers, not dtype complex128"),
        (np.array([None, 1.0], dtype=object), "real numbers, not dtype object"),
    ],
)
def test_refused_tensors(tensor: np.ndarray, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        checked(tensor)


def test_booleans_are_numbers() -> None:
    assert checked(np.array([True, False])).tolist() == [1, 0]
