"""Responses as TensorBoard writes them: JSON with NaN and infinities as strings, and its security headers."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from trainboard.http import compression
from trainboard.provider.provider import DataProvider

# TensorBoard sends these on every response; HTML additionally gets its Content-Security-Policy.
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Expires": "0", "Cache-Control": "no-cache, must-revalidate"}


def cleanse(value: Any) -> Any:
    """Replace non-finite floats by TensorBoard's strings and bytes by text, recursively."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, list | tuple):
        return [cleanse(item) for item in value]
    if isinstance(value, dict):
        return {key: cleanse(item) for key, item in value.items()}
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def render_json(content: Any) -> bytes:
    """`content` as TensorBoard writes JSON. orjson writes non-finite floats as null and refuses bytes: only content
    with either is cleansed."""
    try:
        body = orjson.dumps(content)
    except TypeError:
        return orjson.dumps(cleanse(content))
    return orjson.dumps(cleanse(content)) if b"null" in body else body


class JSONResponse(Response):
    media_type = "application/json"

    def __init__(self, content: Any, status_code: int = 200, headers: dict[str, str] | None = None) -> None:
        super().__init__(content, status_code, {**SECURITY_HEADERS, **(headers or {})})

    def render(self, content: Any) -> bytes:
        return render_json(content)


class RenderedJSONResponse(Response):
    """JSON rendered already."""

    media_type = JSONResponse.media_type

    def __init__(self, body: bytes, headers: dict[str, str] | None = None) -> None:
        super().__init__(body, 200, {**SECURITY_HEADERS, **(headers or {})})


def kept_json(
    request: Request, provider: DataProvider, experiment_id: str, key: str, build: Callable[[], Any]
) -> Response:
    """`build()` as JSON, rendered and gzipped once per generation of the experiment's data (`DataProvider.derived`):
    the tags of 10,000 runs are megabytes, which the gzip middleware would compress again on every request."""
    body, zipped = provider.derived(experiment_id, key, lambda: _rendered(build()))
    if len(body) < compression.MINIMUM_SIZE or "gzip" not in request.headers.get("accept-encoding", ""):
        return RenderedJSONResponse(body, {"Vary": "Accept-Encoding"})
    return RenderedJSONResponse(zipped, {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})


def _rendered(content: Any) -> tuple[bytes, bytes]:
    body = render_json(content)
    return body, compression.compress(body) if len(body) >= compression.MINIMUM_SIZE else b""


class TextResponse(Response):
    media_type = "text/plain"
    charset = "utf-8"

    def __init__(self, content: str | bytes, status_code: int = 200, media_type: str | None = None) -> None:
        super().__init__(content, status_code, SECURITY_HEADERS, media_type)


class BytesResponse(Response):
    def __init__(self, content: bytes, media_type: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(content, 200, {**SECURITY_HEADERS, **(headers or {})}, media_type)
