"""TS-VIS records in TensorBoard's terms, so that the rest of the data path knows one schema.

What differs (trainboard/reader/protos/tsvis.proto): tensors name their dtype by numpy name; Summary.Value field 7
holds a Projector (an exception tensor, an embedding or an embedding's samples) where TensorBoard has node_name;
hparams summaries carry TS-VIS's SessionStartInfo, several sessions per file.
"""

from __future__ import annotations

import numpy as np

from trainboard.reader.hparams_names import HPARAMS_PLUGIN, SESSION_START_INFO_TAG
from trainboard.reader.protos import tsvis_pb2
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import DATA_CLASS_TENSOR, Summary
from trainboard.reader.protos.tensor_pb2 import DataType, TensorProto

# TS-VIS sessions are kept whole under a tag of their own: TensorBoard's session start info tag holds one session
# per run, and TS-VIS's message has a field (metrics) that TensorBoard's lacks.
TSVIS_SESSION_TAG = "_hparams_/tsvis_session_start_info"
# Exceptions become tensors of this plugin; embeddings (values, labels and samples) stay TS-VIS Projector messages.
EXCEPTIONS_PLUGIN = "exceptions"
EMBEDDINGS_PLUGIN = "tsvis_embeddings"

_DATA_TYPES: dict[str, DataType] = {
    "float32": DataType.DT_FLOAT,
    "float64": DataType.DT_DOUBLE,
    "float16": DataType.DT_HALF,
    "int8": DataType.DT_INT8,
    "int16": DataType.DT_INT16,
    "int32": DataType.DT_INT32,
    "int64": DataType.DT_INT64,
    "uint8": DataType.DT_UINT8,
    "uint16": DataType.DT_UINT16,
    "uint32": DataType.DT_UINT32,
    "uint64": DataType.DT_UINT64,
    "bool": DataType.DT_BOOL,
}


def translate(event: Event) -> Event:
    """The event with each summary value of TS-VIS's schema rewritten as TensorBoard's (in place)."""
    if event.WhichOneof("what") != "summary":
        return event
    for value in event.summary.value:
        _translate_value(value)
    return event


def _translate_value(value: Summary.Value) -> None:
    if value.node_name:
        projector = tsvis_pb2.Projector.FromString(value.node_name)
        value.ClearField("node_name")
        if projector.WhichOneof("kind") == "exception":
            _as_tensor_value(value, EXCEPTIONS_PLUGIN, tensor_from_projector(projector.exception.value))
        else:
            tag = f"sample_{value.tag}" if projector.embedding.HasField("sample") else value.tag
            value.tag = tag
            _as_tensor_value(value, EMBEDDINGS_PLUGIN, _strings(projector.SerializeToString()))
    elif value.metadata.plugin_data.plugin_name == HPARAMS_PLUGIN and value.tag == SESSION_START_INFO_TAG:
        value.tag = TSVIS_SESSION_TAG
        _as_tensor_value(value, HPARAMS_PLUGIN, _strings(value.metadata.plugin_data.content))
    elif value.HasField("tensor"):
        value.tensor.CopyFrom(_tensor(tsvis_pb2.TensorProto.FromString(value.tensor.SerializeToString())))


def _as_tensor_value(value: Summary.Value, plugin_name: str, tensor: TensorProto) -> None:
    value.metadata.Clear()
    value.metadata.plugin_data.plugin_name = plugin_name
    value.metadata.data_class = DATA_CLASS_TENSOR
    value.tensor.CopyFrom(tensor)


def _strings(*items: bytes) -> TensorProto:
    tensor = TensorProto(dtype=DataType.DT_STRING, string_val=items)
    tensor.tensor_shape.dim.add(size=len(items))
    return tensor


def _tensor(source: tsvis_pb2.TensorProto) -> TensorProto:
    """A TS-VIS TensorProto as TensorBoard's; no dtype (how TS-VIS writes text) is a string tensor."""
    tensor = TensorProto(
        dtype=_data_type(source.dtype) if source.dtype else DataType.DT_STRING,
        tensor_content=source.tensor_content,
        float_val=source.float_val,
        double_val=source.double_val,
        int_val=source.int_val,
        string_val=source.string_val,
        int64_val=source.int64_val,
        bool_val=source.bool_val,
    )
    for dim in source.tensor_shape.dim:
        tensor.tensor_shape.dim.add(size=dim.size, name=dim.name)
    return tensor


def tensor_from_projector(source: tsvis_pb2.Tensor) -> TensorProto:
    """A Projector's tensor (numpy bytes in C order, dtype by name) as TensorBoard's TensorProto."""
    tensor = TensorProto(dtype=_data_type(source.dtype), tensor_content=source.tensor_content)
    for dim in source.tensor_shape.dim:
        tensor.tensor_shape.dim.add(size=dim.size, name=dim.name)
    return tensor


def projector_array(source: tsvis_pb2.Tensor) -> np.ndarray:
    """A Projector's tensor as a numpy array (strings as numpy strings)."""
    shape = tuple(dim.size for dim in source.tensor_shape.dim)
    try:
        dtype = np.dtype(source.dtype)
    except TypeError:
        raise ValueError(f"unknown tensor dtype {source.dtype!r}") from None
    if dtype.hasobject:
        raise ValueError("a tensor of Python objects cannot be read")
    return np.frombuffer(source.tensor_content, dtype=dtype).reshape(shape)


def _data_type(name: str) -> DataType:
    """The DataType of a numpy dtype name ("float32", "<f4", ...); DT_INVALID for what TensorBoard cannot hold."""
    try:
        dtype = np.dtype(name)
    except TypeError:
        return DataType.DT_INVALID
    return _DATA_TYPES.get(dtype.name, DataType.DT_INVALID) if dtype.byteorder in "=<|" else DataType.DT_INVALID
