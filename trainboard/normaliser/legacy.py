"""TensorBoard's data_compat: legacy summary values (simple_value, histo, image, audio) as tensor values."""

from __future__ import annotations

import numpy as np

from trainboard.normaliser.points import DataClass, SeriesMetadata
from trainboard.reader.protos.summary_pb2 import HistogramProto, Summary
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


def _bucket_arrays(histo: HistogramProto) -> tuple[np.ndarray, np.ndarray]:
    """bucket_limit and bucket as float64 arrays, read straight from their packed encoding when they have one."""
    raw = histo.SerializeToString()
    found: dict[int, np.ndarray] = {}
    position = 0
    while position < len(raw):
        key = raw[position]
        field, wire = key >> 3, key & 7
        position += 1
        if key & 0x80:
            break  # a field number this message does not have
        if wire == 1:
            position += 8
        elif wire == 2 and field in (6, 7):
            length, shift = 0, 0
            while raw[position] & 0x80:
                length |= (raw[position] & 0x7F) << shift
                shift += 7
                position += 1
            length |= raw[position] << shift
            position += 1
            found[field] = np.frombuffer(raw, dtype="<f8", count=length // 8, offset=position)
            position += length
        else:
            break
    else:
        empty = np.zeros(0, dtype=np.float64)
        return found.get(6, empty), found.get(7, empty)
    # Unknown fields or encodings: let protobuf decode it.
    return np.array(histo.bucket_limit, dtype=np.float64), np.array(histo.bucket, dtype=np.float64)


def _histogram(value: Summary.Value) -> Summary.Value:
    """Buckets as a float32 [k, 3] tensor of (left, right, count); empty edge buckets dropped, edges min and max."""
    histo = value.histo
    limits, counts = _bucket_arrays(histo)
    counts = counts[: len(limits) + 1]  # a malformed histogram with too few limits keeps the buckets it can place
    nonempty = np.flatnonzero(counts > 0)
    table = np.zeros((0, 3), dtype=np.float32)
    if len(nonempty):
        start, end = nonempty[0], nonempty[-1]
        table = np.empty((end - start + 1, 3), dtype=np.float64)
        table[0, 0], table[-1, 1] = histo.min, histo.max
        table[1:, 0] = table[:-1, 1] = limits[start:end]
        table[:, 2] = counts[start : end + 1]
        # Out-of-range values become infinities in float32, as TensorBoard's cast makes them.
        with np.errstate(over="ignore", invalid="ignore"):
            table = table.astype("<f4")
    migrated = _new_value(value, "histograms", b"")
    tensor = migrated.tensor
    tensor.dtype = DataType.DT_FLOAT
    tensor.tensor_shape.dim.add(size=len(table))
    tensor.tensor_shape.dim.add(size=3)
    tensor.tensor_content = table.tobytes()
    return migrated
