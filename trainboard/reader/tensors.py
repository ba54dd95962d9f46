"""Decoding stored TensorProto bytes into numpy arrays, as TensorFlow's make_ndarray does."""

from __future__ import annotations

import contextlib
import math

import numpy as np

from trainboard.reader.hollow import LARGE_RECORD, TENSOR, Pieces, hollow
from trainboard.reader.protos.tensor_pb2 import TensorProto

_NUMPY_TYPES: dict[int, np.dtype] = {
    1: np.dtype("<f4"),
    2: np.dtype("<f8"),
    3: np.dtype("<i4"),
    4: np.dtype("u1"),
    5: np.dtype("<i2"),
    6: np.dtype("i1"),
    9: np.dtype("<i8"),
    10: np.dtype("bool"),
    17: np.dtype("<u2"),
    19: np.dtype("<f2"),
    22: np.dtype("<u4"),
    23: np.dtype("<u8"),
}
_STRING = 7


def to_ndarray(serialized: bytes | memoryview) -> np.ndarray:
    """The tensor as an array; a large one's content is not copied (a read-only view of `serialized`)."""
    if len(serialized) >= LARGE_RECORD:
        pieces = Pieces()
        with contextlib.suppress(ValueError):  # not a TensorProto's wire format: protobuf says what is wrong
            hollowed = TensorProto.FromString(hollow(memoryview(serialized), TENSOR, pieces, exact_tensors=False))
            if hollowed.tensor_content in pieces.contents and hollowed.dtype in _NUMPY_TYPES:
                shape = tuple(dim.size for dim in hollowed.tensor_shape.dim)
                content = pieces.contents[hollowed.tensor_content]
                return np.frombuffer(content, dtype=_NUMPY_TYPES[hollowed.dtype]).reshape(shape)
    tensor = TensorProto.FromString(serialized)  # type: ignore[arg-type]  # upb takes any buffer
    shape = tuple(dim.size for dim in tensor.tensor_shape.dim)
    size = math.prod(shape)
    if tensor.dtype == _STRING:
        strings = np.empty(len(tensor.string_val), dtype=object)
        strings[:] = list(tensor.string_val)
        return _fill(strings, shape, size)
    dtype = _NUMPY_TYPES.get(tensor.dtype)
    if dtype is None:
        raise ValueError(f"unsupported tensor dtype {tensor.dtype}")
    if tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, dtype=dtype).reshape(shape).copy()
    if tensor.dtype == 19:
        values = np.array(tensor.half_val, dtype=np.uint16).view(np.float16)
    else:
        values = np.array(_typed_values(tensor), dtype=dtype)
    return _fill(values, shape, size)


def _typed_values(tensor: TensorProto) -> list[float] | list[int] | list[bool]:
    if tensor.dtype == 1:
        return list(tensor.float_val)
    if tensor.dtype == 2:
        return list(tensor.double_val)
    if tensor.dtype == 9:
        return list(tensor.int64_val)
    if tensor.dtype == 10:
        return list(tensor.bool_val)
    if tensor.dtype in (22,):
        return list(tensor.uint32_val)
    if tensor.dtype in (23,):
        return list(tensor.uint64_val)
    return list(tensor.int_val)


def _fill(values: np.ndarray, shape: tuple[int, ...], size: int) -> np.ndarray:
    """TensorFlow repeats the last given value to fill the shape (a single value fills all)."""
    if values.size == size:
        return values.reshape(shape)
    if values.size == 0:
        return np.zeros(shape, dtype=values.dtype)
    padded = np.concatenate([values, np.repeat(values[-1:], size - values.size)]) if values.size < size else values
    return padded[:size].reshape(shape)
