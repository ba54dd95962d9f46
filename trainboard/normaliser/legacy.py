"""TensorBoard's data_compat: legacy summary values (simple_value, histo, image, audio) as tensor values."""

from __future__ import annotations

import numpy as np

from trainboard.normaliser.points import DataClass, SeriesMetadata
from trainboard.reader.protos.summary_pb2 import Summary
from trainboard.reader.protos.tensor_pb2 import DataType, TensorProto
from trainboard.reader.tensors import to_ndarray

# Plugin contents TensorBoard writes for migrated values: ImagePluginData(converted_to_tensor=True) and
# AudioPluginData(encoding=WAV, converted_to_tensor=True); scalars and histograms have empty contents.
IMAGE_CONTENT = b"\x10\x01"
AUDIO_CONTENT = b"\x10\x0b\x18\x01"


def migrate(value: Summary.Value) -> Summary.Value:
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        migrated = _new_value(value, "scalars", b"")
        migrated.tensor.dtype = DataType.DT_FLOAT
        migrated.tensor.float_val.append(value.simple_value)
        return migrated
    if kind == "histo":
        return _histogram(value)
    if kind == "image":
        image = value.image
        return _strings(
            _new_value(value, "images", IMAGE_CONTENT),
            [str(image.width).encode(), str(image.height).encode(), image.encoded_image_string],
            (3,),
        )
    if kind == "audio":
        return _strings(_new_value(value, "audio", AUDIO_CONTENT), [value.audio.encoded_audio_string, b""], (1, 2))
    return value


def scalar_metadata(value: Summary.Value) -> SeriesMetadata:
    """The metadata TensorBoard gives a tag first seen as a simple_value."""
    return SeriesMetadata(
        plugin_name="scalars",
        data_class=DataClass.SCALAR,
        display_name=value.metadata.display_name or value.tag,
        description=value.metadata.summary_description,
    )


def scalar(tensor: TensorProto) -> float:
    """The value of a scalar summary's tensor, as TensorBoard's make_ndarray(...).item() gives it."""
    if tensor.float_val:
        return tensor.float_val[0]
    if tensor.double_val:
        return tensor.double_val[0]
    return float(to_ndarray(tensor.SerializeToString()).item())


def blobs(tensor: TensorProto, *, audio: bool) -> tuple[bytes, ...]:
    """A string tensor's elements; for audio only the first column (the clips, not their labels), as TensorBoard."""
    values = tuple(tensor.string_val)
    if audio and len(tensor.tensor_shape.dim) > 1:
        stride = 1
        for dim in tensor.tensor_shape.dim[1:]:
            stride *= dim.size
        values = values[::stride] if stride > 0 else ()
    return values


def _new_value(value: Summary.Value, plugin_name: str, content: bytes) -> Summary.Value:
    migrated = Summary.Value(tag=value.tag)
    metadata = migrated.metadata
    metadata.plugin_data.plugin_name = plugin_name
    if content:
        metadata.plugin_data.content = content
    metadata.display_name = value.metadata.display_name or value.tag
    metadata.summary_description = value.metadata.summary_description
    return migrated


def _strings(value: Summary.Value, strings: list[bytes], shape: tuple[int, ...]) -> Summary.Value:
    value.tensor.dtype = DataType.DT_STRING
    for size in shape:
        value.tensor.tensor_shape.dim.add(size=size)
    value.tensor.string_val.extend(strings)
    return value


def _histogram(value: Summary.Value) -> Summary.Value:
    """Buckets as a float32 [k, 3] tensor of (left, right, count); empty edge buckets dropped, edges min and max."""
    histo = value.histo
    counts = np.asarray(histo.bucket, dtype=np.float64)
    nonempty = np.flatnonzero(counts > 0)
    table = np.zeros((0, 3), dtype=np.float32)
    if len(nonempty):
        start, end = nonempty[0], nonempty[-1]
        inner = np.asarray(histo.bucket_limit[start:end], dtype=np.float64)
        lefts = np.r_[histo.min, inner]
        rights = np.r_[inner, histo.max]
        # Out-of-range values become infinities in float32, as TensorBoard's cast makes them.
        with np.errstate(over="ignore"):
            table = np.column_stack([lefts, rights, counts[start : end + 1]]).astype("<f4")
    migrated = _new_value(value, "histograms", b"")
    tensor = migrated.tensor
    tensor.dtype = DataType.DT_FLOAT
    tensor.tensor_shape.dim.add(size=len(table))
    tensor.tensor_shape.dim.add(size=3)
    tensor.tensor_content = table.tobytes()
    return migrated
