"""Reading a request: JSON in a POST body or in `?request=`, parsed by protobuf's JSON rules as TensorBoard does."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from trainboard.errors import BadRequestError

# A request longer than this is hostile or a mistake.
MAX_REQUEST_BYTES = 1 << 20


def parse_request(text: str | bytes | None, message_class: Any) -> Any:
    """The request message; a missing, oversized or malformed request is a BadRequestError."""
    name = message_class.DESCRIPTOR.name
    if text is None:
        raise BadRequestError(f"Expected a JSON-formatted request of type {name}, but got none")
    if len(text) > MAX_REQUEST_BYTES:
        raise BadRequestError(f"The {name} request is longer than {MAX_REQUEST_BYTES} bytes")
    try:
        return json_format.Parse(text, message_class())
    except (json_format.ParseError, ValueError, TypeError, AttributeError, RecursionError) as error:
        shown = text[:200].decode("utf-8", "replace") if isinstance(text, bytes) else text[:200]
        raise BadRequestError(f"Expected a JSON-formatted request of type {name}, but got {shown!r}: {error}") from None
