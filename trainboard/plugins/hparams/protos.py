"""The HParams plugin's protobuf messages, declared here with TensorBoard's field numbers and names.

They are built at import into the default descriptor pool under the package `trainboard.hparams` (so they never
clash with TensorBoard's own classes when both are loaded). Two uses: decoding `HParamsPluginData` from summary
metadata, and parsing requests with protobuf's JSON rules (lowerCamelCase or snake_case names, enum names or numbers,
unknown fields rejected), exactly as TensorBoard parses them.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, struct_pb2

PACKAGE = "trainboard.hparams"
Field = descriptor_pb2.FieldDescriptorProto

# (name, number, type) where type is a scalar type, "enum:Name", "msg:Name" (ours) or a full ".google..." name;
# "repeated " in front repeats it, "optional " gives it presence, "map " makes a map<string, type>, "oneof=x" groups.
ENUMS: dict[str, list[str]] = {
    "DataType": ["DATA_TYPE_UNSET", "DATA_TYPE_STRING", "DATA_TYPE_BOOL", "DATA_TYPE_FLOAT64"],
    "DatasetType": ["DATASET_UNKNOWN", "DATASET_TRAINING", "DATASET_VALIDATION"],
    "Status": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
    "SortOrder": ["ORDER_UNSPECIFIED", "ORDER_ASC", "ORDER_DESC"],
    "AggregationType": [
        "AGGREGATION_UNSET",
        "AGGREGATION_AVG",
        "AGGREGATION_MEDIAN",
        "AGGREGATION_MIN",
        "AGGREGATION_MAX",
    ],
}

MESSAGES: dict[str, list[tuple[str, int, str]]] = {
    "Interval": [("min_value", 1, "double"), ("max_value", 2, "double")],
    "MetricName": [("group", 1, "string"), ("tag", 2, "string")],
    "HParamInfo": [
        ("name", 1, "string"),
        ("display_name", 2, "string"),
        ("description", 3, "string"),
        ("type", 4, "enum:DataType"),
        ("domain_discrete", 5, "oneof=domain .google.protobuf.ListValue"),
        ("domain_interval", 6, "oneof=domain msg:Interval"),
        ("differs", 7, "bool"),
    ],
    "MetricInfo": [
        ("name", 1, "msg:MetricName"),
        ("display_name", 3, "string"),
        ("description", 4, "string"),
        ("dataset_type", 5, "enum:DatasetType"),
    ],
    "Experiment": [
        ("name", 6, "string"),
        ("description", 1, "string"),
        ("user", 2, "string"),
        ("time_created_secs", 3, "double"),
        ("hparam_infos", 4, "repeated msg:HParamInfo"),
        ("metric_infos", 5, "repeated msg:MetricInfo"),
    ],
    "SessionStartInfo": [
        ("hparams", 1, "map .google.protobuf.Value"),
        ("model_uri", 2, "string"),
        ("monitor_url", 3, "string"),
        ("group_name", 4, "string"),
        ("start_time_secs", 5, "double"),
    ],
    "SessionEndInfo": [("status", 1, "enum:Status"), ("end_time_secs", 2, "double")],
    "HParamsPluginData": [
        ("version", 1, "int32"),
        ("experiment", 2, "oneof=data msg:Experiment"),
        ("session_start_info", 3, "oneof=data msg:SessionStartInfo"),
        ("session_end_info", 4, "oneof=data msg:SessionEndInfo"),
    ],
    "GetExperimentRequest": [
        ("experiment_name", 1, "string"),
        ("include_metrics", 2, "optional bool"),
        ("hparams_limit", 3, "optional int32"),
    ],
    "ColParams": [
        ("metric", 1, "oneof=name msg:MetricName"),
        ("hparam", 2, "oneof=name string"),
        ("order", 3, "enum:SortOrder"),
        ("missing_values_first", 4, "bool"),
        ("filter_regexp", 5, "oneof=filter string"),
        ("filter_interval", 6, "oneof=filter msg:Interval"),
        ("filter_discrete", 7, "oneof=filter .google.protobuf.ListValue"),
        ("exclude_missing_values", 8, "bool"),
        ("include_in_result", 9, "optional bool"),
    ],
    "ListSessionGroupsRequest": [
        ("experiment_name", 6, "string"),
        ("allowed_statuses", 7, "repeated enum:Status"),
        ("col_params", 1, "repeated msg:ColParams"),
        ("aggregation_type", 2, "enum:AggregationType"),
        ("aggregation_metric", 3, "msg:MetricName"),
        ("start_index", 4, "int32"),
        ("slice_size", 5, "int32"),
        ("include_metrics", 8, "optional bool"),
    ],
    "ListMetricEvalsRequest": [
        ("experiment_name", 3, "string"),
        ("session_name", 1, "string"),
        ("metric_name", 2, "msg:MetricName"),
    ],
}

SCALAR_TYPES = {
    "double": Field.TYPE_DOUBLE,
    "string": Field.TYPE_STRING,
    "bool": Field.TYPE_BOOL,
    "int32": Field.TYPE_INT32,
}


def _file() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(
        name="trainboard/plugins/hparams/hparams.proto",
        package=PACKAGE,
        syntax="proto3",
        dependency=["google/protobuf/struct.proto"],
    )
    for enum_name, values in ENUMS.items():
        file.enum_type.add(name=enum_name).value.extend(
            descriptor_pb2.EnumValueDescriptorProto(name=value, number=number) for number, value in enumerate(values)
        )
    for message_name, fields in MESSAGES.items():
        message = file.message_type.add(name=message_name)
        for name, number, spec in fields:
            _add_field(message, name, number, spec)
    return file


def _add_field(message: descriptor_pb2.DescriptorProto, name: str, number: int, spec: str) -> None:
    words = spec.split()
    kind = words[-1]
    field = message.field.add(name=name, number=number, label=Field.LABEL_OPTIONAL)
    if "repeated" in words:
        field.label = Field.LABEL_REPEATED
    if "map" in words:
        entry_name = "".join(part.capitalize() for part in name.split("_")) + "Entry"
        entry = message.nested_type.add(name=entry_name)
        entry.options.map_entry = True
        _add_field(entry, "key", 1, "string")
        _add_field(entry, "value", 2, kind)
        field.label = Field.LABEL_REPEATED
        field.type = Field.TYPE_MESSAGE
        field.type_name = f".{PACKAGE}.{message.name}.{entry_name}"
        return
    _set_type(field, kind)
    oneof = next((word.removeprefix("oneof=") for word in words if word.startswith("oneof=")), None)
    if "optional" in words:
        # proto3 `optional`: a synthetic oneof of its own gives the field presence.
        field.proto3_optional = True
        oneof = f"_{name}"
    if oneof is not None:
        names = [declared.name for declared in message.oneof_decl]
        if oneof not in names:
            message.oneof_decl.add(name=oneof)
            names.append(oneof)
        field.oneof_index = names.index(oneof)


def _set_type(field: descriptor_pb2.FieldDescriptorProto, kind: str) -> None:
    if kind in SCALAR_TYPES:
        field.type = SCALAR_TYPES[kind]
    elif kind.startswith("enum:"):
        field.type = Field.TYPE_ENUM
        field.type_name = f".{PACKAGE}.{kind.removeprefix('enum:')}"
    else:
        field.type = Field.TYPE_MESSAGE
        field.type_name = f".{PACKAGE}.{kind.removeprefix('msg:')}" if kind.startswith("msg:") else kind


def _build() -> dict[str, Any]:
    pool = descriptor_pool.Default()
    pool.FindFileByName(struct_pb2.DESCRIPTOR.name)
    file = pool.AddSerializedFile(_file().SerializeToString())
    return {name: message_factory.GetMessageClass(file.message_types_by_name[name]) for name in MESSAGES}


_CLASSES = _build()
# The classes are made at run time, so they are typed Any.
HParamsPluginData: Any = _CLASSES["HParamsPluginData"]
Experiment: Any = _CLASSES["Experiment"]
HParamInfo: Any = _CLASSES["HParamInfo"]
MetricInfo: Any = _CLASSES["MetricInfo"]
GetExperimentRequest: Any = _CLASSES["GetExperimentRequest"]
ListSessionGroupsRequest: Any = _CLASSES["ListSessionGroupsRequest"]
ListMetricEvalsRequest: Any = _CLASSES["ListMetricEvalsRequest"]
