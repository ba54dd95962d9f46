from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TensorProto(_message.Message):
    __slots__ = ("dtype", "tensor_shape", "tensor_content", "float_val", "double_val", "int_val", "string_val", "int64_val", "bool_val")
    class Shape(_message.Message):
        __slots__ = ("dim",)
        class Dim(_message.Message):
            __slots__ = ("size", "name")
            SIZE_FIELD_NUMBER: _ClassVar[int]
            NAME_FIELD_NUMBER: _ClassVar[int]
            size: int
            name: str
            def __init__(self, size: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...
        DIM_FIELD_NUMBER: _ClassVar[int]
        dim: _containers.RepeatedCompositeFieldContainer[TensorProto.Shape.Dim]
        def __init__(self, dim: _Optional[_Iterable[_Union[TensorProto.Shape.Dim, _Mapping]]] = ...) -> None: ...
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_CONTENT_FIELD_NUMBER: _ClassVar[int]
    FLOAT_VAL_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_VAL_FIELD_NUMBER: _ClassVar[int]
    INT_VAL_FIELD_NUMBER: _ClassVar[int]
    STRING_VAL_FIELD_NUMBER: _ClassVar[int]
    INT64_VAL_FIELD_NUMBER: _ClassVar[int]
    BOOL_VAL_FIELD_NUMBER: _ClassVar[int]
    dtype: str
    tensor_shape: TensorProto.Shape
    tensor_content: bytes
    float_val: _containers.RepeatedScalarFieldContainer[float]
    double_val: _containers.RepeatedScalarFieldContainer[float]
    int_val: _containers.RepeatedScalarFieldContainer[int]
    string_val: _containers.RepeatedScalarFieldContainer[bytes]
    int64_val: _containers.RepeatedScalarFieldContainer[int]
    bool_val: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, dtype: _Optional[str] = ..., tensor_shape: _Optional[_Union[TensorProto.Shape, _Mapping]] = ..., tensor_content: _Optional[bytes] = ..., float_val: _Optional[_Iterable[float]] = ..., double_val: _Optional[_Iterable[float]] = ..., int_val: _Optional[_Iterable[int]] = ..., string_val: _Optional[_Iterable[bytes]] = ..., int64_val: _Optional[_Iterable[int]] = ..., bool_val: _Optional[_Iterable[bool]] = ...) -> None: ...

class Tensor(_message.Message):
    __slots__ = ("dtype", "tensor_shape", "tensor_content")
    class Shape(_message.Message):
        __slots__ = ("dim",)
        class Dim(_message.Message):
            __slots__ = ("size", "name")
            SIZE_FIELD_NUMBER: _ClassVar[int]
            NAME_FIELD_NUMBER: _ClassVar[int]
            size: int
            name: str
            def __init__(self, size: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...
        DIM_FIELD_NUMBER: _ClassVar[int]
        dim: _containers.RepeatedCompositeFieldContainer[Tensor.Shape.Dim]
        def __init__(self, dim: _Optional[_Iterable[_Union[Tensor.Shape.Dim, _Mapping]]] = ...) -> None: ...
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_CONTENT_FIELD_NUMBER: _ClassVar[int]
    dtype: str
    tensor_shape: Tensor.Shape
    tensor_content: bytes
    def __init__(self, dtype: _Optional[str] = ..., tensor_shape: _Optional[_Union[Tensor.Shape, _Mapping]] = ..., tensor_content: _Optional[bytes] = ...) -> None: ...

class Projector(_message.Message):
    __slots__ = ("embedding", "exception")
    class Embedding(_message.Message):
        __slots__ = ("sample", "value", "label")
        class Sample(_message.Message):
            __slots__ = ("type", "X")
            class SampleType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
                __slots__ = ()
                TYPE_UNSPECIFIED: _ClassVar[Projector.Embedding.Sample.SampleType]
                AUDIO: _ClassVar[Projector.Embedding.Sample.SampleType]
                TEXT: _ClassVar[Projector.Embedding.Sample.SampleType]
                IMAGE: _ClassVar[Projector.Embedding.Sample.SampleType]
            TYPE_UNSPECIFIED: Projector.Embedding.Sample.SampleType
            AUDIO: Projector.Embedding.Sample.SampleType
            TEXT: Projector.Embedding.Sample.SampleType
            IMAGE: Projector.Embedding.Sample.SampleType
            TYPE_FIELD_NUMBER: _ClassVar[int]
            X_FIELD_NUMBER: _ClassVar[int]
            type: Projector.Embedding.Sample.SampleType
            X: Tensor
            def __init__(self, type: _Optional[_Union[Projector.Embedding.Sample.SampleType, str]] = ..., X: _Optional[_Union[Tensor, _Mapping]] = ...) -> None: ...
        SAMPLE_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        LABEL_FIELD_NUMBER: _ClassVar[int]
        sample: Projector.Embedding.Sample
        value: Tensor
        label: Tensor
        def __init__(self, sample: _Optional[_Union[Projector.Embedding.Sample, _Mapping]] = ..., value: _Optional[_Union[Tensor, _Mapping]] = ..., label: _Optional[_Union[Tensor, _Mapping]] = ...) -> None: ...
    class Exception(_message.Message):
        __slots__ = ("value",)
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: Tensor
        def __init__(self, value: _Optional[_Union[Tensor, _Mapping]] = ...) -> None: ...
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    EXCEPTION_FIELD_NUMBER: _ClassVar[int]
    embedding: Projector.Embedding
    exception: Projector.Exception
    def __init__(self, embedding: _Optional[_Union[Projector.Embedding, _Mapping]] = ..., exception: _Optional[_Union[Projector.Exception, _Mapping]] = ...) -> None: ...

class SessionStartInfo(_message.Message):
    __slots__ = ("hparams", "metrics", "group_name", "start_time_secs")
    class Entry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _struct_pb2.Value
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...
    HPARAMS_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_SECS_FIELD_NUMBER: _ClassVar[int]
    hparams: _containers.RepeatedCompositeFieldContainer[SessionStartInfo.Entry]
    metrics: _containers.RepeatedCompositeFieldContainer[SessionStartInfo.Entry]
    group_name: str
    start_time_secs: float
    def __init__(self, hparams: _Optional[_Iterable[_Union[SessionStartInfo.Entry, _Mapping]]] = ..., metrics: _Optional[_Iterable[_Union[SessionStartInfo.Entry, _Mapping]]] = ..., group_name: _Optional[str] = ..., start_time_secs: _Optional[float] = ...) -> None: ...

class HParamsPluginData(_message.Message):
    __slots__ = ("version", "session_start_info")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SESSION_START_INFO_FIELD_NUMBER: _ClassVar[int]
    version: int
    session_start_info: SessionStartInfo
    def __init__(self, version: _Optional[int] = ..., session_start_info: _Optional[_Union[SessionStartInfo, _Mapping]] = ...) -> None: ...
