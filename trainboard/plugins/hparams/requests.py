"""Reading a request: JSON in a POST body or in `?request=`, parsed by protobuf's JSON rules as TensorBoard does."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from trainboard.errors import BadRequestError
from trainboard.plugins.json_depth import check_depth

# A request longer than this is hostile or a mistake.
MAX_REQUEST_BYTES = 1 << 20


def parse_request(text: str | bytes | None, message_class: Any) -> Any:
    """The request message; a missing, oversized or malformed request is a BadRequestError."""
    name = message_class.DESCRIPTOR.name
    if text is None:
        raise BadRequestError(f"Expected a JSON-formatted request of type {name}, but got none")
    if len(text) > MAX_REQUEST_BYTES:
        raise BadRequestError(f"The {name} request is longer than {MAX_REQUEST_BYTES} bytes")
    check_depth(text, name=f"The {name} request")
    # protobuf's parser reads `[]` as an empty message.
    if text.lstrip()[:1] not in ("{", b"{"):
        raise BadRequestError(f"Expected a JSON object as the request of type {name}, but got {_shown(text)!r}")
    try:
        return json_format.Parse(text, message_class())
    except (json_format.ParseError, ValueError, TypeError, AttributeError, RecursionError) as error:
        raise BadRequestError(
            f"Expected a JSON-formatted request of type {name}, but got {_shown(text)!r}: {error}"
        ) from None


def _shown(text: str | bytes) -> str:
    return text[:200].decode("utf-8", "replace") if isinstance(text, bytes) else text[:200]
