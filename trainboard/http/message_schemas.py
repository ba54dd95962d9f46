"""JSON schemas of protobuf messages in their JSON form, for the OpenAPI declarations of routes whose bodies are such
messages (HParams' requests)."""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from trainboard.http.openapi import INT64
from trainboard.reader.protos.versions import is_repeated


def message_schema(descriptor: Any, depth: int = 0) -> dict[str, Any]:
    """The JSON schema of a protobuf message in its JSON form (fields by their JSON names)."""
    properties: dict[str, Any] = {}
    for one in descriptor.fields:
        schema = _field_schema(one, depth)
        properties[one.json_name] = {"type": "array", "items": schema} if is_repeated(one) else schema
    return {"type": "object", "properties": properties}


def _field_schema(one: FieldDescriptor, depth: int) -> dict[str, Any]:
    if one.message_type is not None:
        if one.message_type.full_name == "google.protobuf.ListValue":
            return {"type": "array", "items": {"type": ["string", "number", "boolean"]}}
        return message_schema(one.message_type, depth + 1) if depth < 4 else {"type": "object"}
    if one.enum_type is not None:
        return {"type": "string", "enum": [value.name for value in one.enum_type.values]}
    if one.type == FieldDescriptor.TYPE_BOOL:
        return {"type": "boolean"}
    if one.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return {"type": "number"}
    if one.type in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32):
        return {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
    if one.type in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64):
        return dict(INT64)
    return {"type": "string"}
