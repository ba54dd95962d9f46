from trainboard.reader.protos import graph_pb2 as _graph_pb2
from trainboard.reader.protos import tensor_pb2 as _tensor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunMetadata(_message.Message):
    __slots__ = ("step_stats", "partition_graphs", "function_graphs", "session_metadata")
    class FunctionGraphs(_message.Message):
        __slots__ = ("partition_graphs", "pre_optimization_graph", "post_optimization_graph")
        PARTITION_GRAPHS_FIELD_NUMBER: _ClassVar[int]
        PRE_OPTIMIZATION_GRAPH_FIELD_NUMBER: _ClassVar[int]
        POST_OPTIMIZATION_GRAPH_FIELD_NUMBER: _ClassVar[int]
        partition_graphs: _containers.RepeatedCompositeFieldContainer[_graph_pb2.GraphDef]
        pre_optimization_graph: _graph_pb2.GraphDef
        post_optimization_graph: _graph_pb2.GraphDef
        def __init__(self, partition_graphs: _Optional[_Iterable[_Union[_graph_pb2.GraphDef, _Mapping]]] = ..., pre_optimization_graph: _Optional[_Union[_graph_pb2.GraphDef, _Mapping]] = ..., post_optimization_graph: _Optional[_Union[_graph_pb2.GraphDef, _Mapping]] = ...) -> None: ...
    STEP_STATS_FIELD_NUMBER: _ClassVar[int]
    PARTITION_GRAPHS_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_GRAPHS_FIELD_NUMBER: _ClassVar[int]
    SESSION_METADATA_FIELD_NUMBER: _ClassVar[int]
    step_stats: StepStats
    partition_graphs: _containers.RepeatedCompositeFieldContainer[_graph_pb2.GraphDef]
    function_graphs: _containers.RepeatedCompositeFieldContainer[RunMetadata.FunctionGraphs]
    session_metadata: SessionMetadata
    def __init__(self, step_stats: _Optional[_Union[StepStats, _Mapping]] = ..., partition_graphs: _Optional[_Iterable[_Union[_graph_pb2.GraphDef, _Mapping]]] = ..., function_graphs: _Optional[_Iterable[_Union[RunMetadata.FunctionGraphs, _Mapping]]] = ..., session_metadata: _Optional[_Union[SessionMetadata, _Mapping]] = ...) -> None: ...

class SessionMetadata(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class StepStats(_message.Message):
    __slots__ = ("dev_stats",)
    DEV_STATS_FIELD_NUMBER: _ClassVar[int]
    dev_stats: _containers.RepeatedCompositeFieldContainer[DeviceStepStats]
    def __init__(self, dev_stats: _Optional[_Iterable[_Union[DeviceStepStats, _Mapping]]] = ...) -> None: ...

class DeviceStepStats(_message.Message):
    __slots__ = ("device", "node_stats", "thread_names")
    class ThreadNamesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    NODE_STATS_FIELD_NUMBER: _ClassVar[int]
    THREAD_NAMES_FIELD_NUMBER: _ClassVar[int]
    device: str
    node_stats: _containers.RepeatedCompositeFieldContainer[NodeExecStats]
    thread_names: _containers.ScalarMap[int, str]
    def __init__(self, device: _Optional[str] = ..., node_stats: _Optional[_Iterable[_Union[NodeExecStats, _Mapping]]] = ..., thread_names: _Optional[_Mapping[int, str]] = ...) -> None: ...

class NodeExecStats(_message.Message):
    __slots__ = ("node_name", "all_start_micros", "op_start_rel_micros", "op_end_rel_micros", "all_end_rel_micros", "memory", "output", "timeline_label", "scheduled_micros", "thread_id", "referenced_tensor", "memory_stats", "all_start_nanos", "op_start_rel_nanos", "op_end_rel_nanos", "all_end_rel_nanos", "scheduled_nanos")
    NODE_NAME_FIELD_NUMBER: _ClassVar[int]
    ALL_START_MICROS_FIELD_NUMBER: _ClassVar[int]
    OP_START_REL_MICROS_FIELD_NUMBER: _ClassVar[int]
    OP_END_REL_MICROS_FIELD_NUMBER: _ClassVar[int]
    ALL_END_REL_MICROS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    TIMELINE_LABEL_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_MICROS_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    REFERENCED_TENSOR_FIELD_NUMBER: _ClassVar[int]
    MEMORY_STATS_FIELD_NUMBER: _ClassVar[int]
    ALL_START_NANOS_FIELD_NUMBER: _ClassVar[int]
    OP_START_REL_NANOS_FIELD_NUMBER: _ClassVar[int]
    OP_END_REL_NANOS_FIELD_NUMBER: _ClassVar[int]
    ALL_END_REL_NANOS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_NANOS_FIELD_NUMBER: _ClassVar[int]
    node_name: str
    all_start_micros: int
    op_start_rel_micros: int
    op_end_rel_micros: int
    all_end_rel_micros: int
    memory: _containers.RepeatedCompositeFieldContainer[AllocatorMemoryUsed]
    output: _containers.RepeatedCompositeFieldContainer[NodeOutput]
    timeline_label: str
    scheduled_micros: int
    thread_id: int
    referenced_tensor: _containers.RepeatedCompositeFieldContainer[AllocationDescription]
    memory_stats: MemoryStats
    all_start_nanos: int
    op_start_rel_nanos: int
    op_end_rel_nanos: int
    all_end_rel_nanos: int
    scheduled_nanos: int
    def __init__(self, node_name: _Optional[str] = ..., all_start_micros: _Optional[int] = ..., op_start_rel_micros: _Optional[int] = ..., op_end_rel_micros: _Optional[int] = ..., all_end_rel_micros: _Optional[int] = ..., memory: _Optional[_Iterable[_Union[AllocatorMemoryUsed, _Mapping]]] = ..., output: _Optional[_Iterable[_Union[NodeOutput, _Mapping]]] = ..., timeline_label: _Optional[str] = ..., scheduled_micros: _Optional[int] = ..., thread_id: _Optional[int] = ..., referenced_tensor: _Optional[_Iterable[_Union[AllocationDescription, _Mapping]]] = ..., memory_stats: _Optional[_Union[MemoryStats, _Mapping]] = ..., all_start_nanos: _Optional[int] = ..., op_start_rel_nanos: _Optional[int] = ..., op_end_rel_nanos: _Optional[int] = ..., all_end_rel_nanos: _Optional[int] = ..., scheduled_nanos: _Optional[int] = ...) -> None: ...

class AllocatorMemoryUsed(_message.Message):
    __slots__ = ("allocator_name", "total_bytes", "peak_bytes", "live_bytes", "allocation_records", "allocator_bytes_in_use")
    ALLOCATOR_NAME_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    PEAK_BYTES_FIELD_NUMBER: _ClassVar[int]
    LIVE_BYTES_FIELD_NUMBER: _ClassVar[int]
    ALLOCATION_RECORDS_FIELD_NUMBER: _ClassVar[int]
    ALLOCATOR_BYTES_IN_USE_FIELD_NUMBER: _ClassVar[int]
    allocator_name: str
    total_bytes: int
    peak_bytes: int
    live_bytes: int
    allocation_records: _containers.RepeatedCompositeFieldContainer[AllocationRecord]
    allocator_bytes_in_use: int
    def __init__(self, allocator_name: _Optional[str] = ..., total_bytes: _Optional[int] = ..., peak_bytes: _Optional[int] = ..., live_bytes: _Optional[int] = ..., allocation_records: _Optional[_Iterable[_Union[AllocationRecord, _Mapping]]] = ..., allocator_bytes_in_use: _Optional[int] = ...) -> None: ...

class AllocationRecord(_message.Message):
    __slots__ = ("alloc_micros", "alloc_bytes")
    ALLOC_MICROS_FIELD_NUMBER: _ClassVar[int]
    ALLOC_BYTES_FIELD_NUMBER: _ClassVar[int]
    alloc_micros: int
    alloc_bytes: int
    def __init__(self, alloc_micros: _Optional[int] = ..., alloc_bytes: _Optional[int] = ...) -> None: ...

class NodeOutput(_message.Message):
    __slots__ = ("slot", "tensor_description")
    SLOT_FIELD_NUMBER: _ClassVar[int]
    TENSOR_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    slot: int
    tensor_description: TensorDescription
    def __init__(self, slot: _Optional[int] = ..., tensor_description: _Optional[_Union[TensorDescription, _Mapping]] = ...) -> None: ...

class TensorDescription(_message.Message):
    __slots__ = ("dtype", "shape", "allocation_description")
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    ALLOCATION_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    dtype: _tensor_pb2.DataType
    shape: _tensor_pb2.TensorShapeProto
    allocation_description: AllocationDescription
    def __init__(self, dtype: _Optional[_Union[_tensor_pb2.DataType, str]] = ..., shape: _Optional[_Union[_tensor_pb2.TensorShapeProto, _Mapping]] = ..., allocation_description: _Optional[_Union[AllocationDescription, _Mapping]] = ...) -> None: ...

class AllocationDescription(_message.Message):
    __slots__ = ("requested_bytes", "allocated_bytes", "allocator_name", "allocation_id", "has_single_reference", "ptr")
    REQUESTED_BYTES_FIELD_NUMBER: _ClassVar[int]
    ALLOCATED_BYTES_FIELD_NUMBER: _ClassVar[int]
    ALLOCATOR_NAME_FIELD_NUMBER: _ClassVar[int]
    ALLOCATION_ID_FIELD_NUMBER: _ClassVar[int]
    HAS_SINGLE_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    PTR_FIELD_NUMBER: _ClassVar[int]
    requested_bytes: int
    allocated_bytes: int
    allocator_name: str
    allocation_id: int
    has_single_reference: bool
    ptr: int
    def __init__(self, requested_bytes: _Optional[int] = ..., allocated_bytes: _Optional[int] = ..., allocator_name: _Optional[str] = ..., allocation_id: _Optional[int] = ..., has_single_reference: _Optional[bool] = ..., ptr: _Optional[int] = ...) -> None: ...

class MemoryStats(_message.Message):
    __slots__ = ("temp_memory_size", "persistent_memory_size", "persistent_tensor_alloc_ids", "device_temp_memory_size", "device_persistent_memory_size", "device_persistent_tensor_alloc_ids")
    TEMP_MEMORY_SIZE_FIELD_NUMBER: _ClassVar[int]
    PERSISTENT_MEMORY_SIZE_FIELD_NUMBER: _ClassVar[int]
    PERSISTENT_TENSOR_ALLOC_IDS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TEMP_MEMORY_SIZE_FIELD_NUMBER: _ClassVar[int]
    DEVICE_PERSISTENT_MEMORY_SIZE_FIELD_NUMBER: _ClassVar[int]
    DEVICE_PERSISTENT_TENSOR_ALLOC_IDS_FIELD_NUMBER: _ClassVar[int]
    temp_memory_size: int
    persistent_memory_size: int
    persistent_tensor_alloc_ids: _containers.RepeatedScalarFieldContainer[int]
    device_temp_memory_size: int
    device_persistent_memory_size: int
    device_persistent_tensor_alloc_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, temp_memory_size: _Optional[int] = ..., persistent_memory_size: _Optional[int] = ..., persistent_tensor_alloc_ids: _Optional[_Iterable[int]] = ..., device_temp_memory_size: _Optional[int] = ..., device_persistent_memory_size: _Optional[int] = ..., device_persistent_tensor_alloc_ids: _Optional[_Iterable[int]] = ...) -> None: ...
