"""What differs between the protobuf versions trainboard runs on (pyproject.toml's floor to the newest)."""

from __future__ import annotations

import inspect
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

# protobuf 5.26 renamed MessageToDict's including_default_value_fields to always_print_fields_with_no_presence.
_DEFAULTS_KEYWORD = (
    "always_print_fields_with_no_presence"
    if "always_print_fields_with_no_presence" in inspect.signature(json_format.MessageToDict).parameters
    else "including_default_value_fields"
)


def to_dict_with_defaults(message: Message) -> dict[str, Any]:
    """The message's JSON form with its fields that have no presence printed even when they hold their default."""
    found: dict[str, Any] = json_format.MessageToDict(message, **{_DEFAULTS_KEYWORD: True})
    return found


def is_repeated(field: FieldDescriptor) -> bool:
    # protobuf 6.31 added is_repeated; 7 removed label, which the versions before 6.31 have alone.
    if hasattr(field, "is_repeated"):
        return bool(field.is_repeated)
    return bool(field.label == FieldDescriptor.LABEL_REPEATED)
