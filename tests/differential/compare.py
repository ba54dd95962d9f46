"""Comparing two HTTP answers: status, content type and body, reporting the first difference by its JSON path."""

from __future__ import annotations

import json
from typing import Any

import httpx


def first_difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    if isinstance(expected, dict) and isinstance(actual, dict):
        if list(expected) != list(actual):
            return f"{path}: keys {list(expected)} != {list(actual)}"
        for key in expected:
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path}: length {len(expected)} != {len(actual)}"
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        return None
    if type(expected) is not type(actual) or expected != actual:
        # TensorBoard writes integral floats such as 0.0 as 0.0 and ints as ints; both sides must agree exactly.
        return f"{path}: {expected!r} != {actual!r}"
    return None


def media_type(response: httpx.Response) -> str:
    return response.headers.get("content-type", "").split(";")[0].strip()


def assert_same_answer(
    expected: httpx.Response, actual: httpx.Response, ignore_keys: frozenset[str] = frozenset()
) -> None:
    route = str(expected.request.url.raw_path.decode())
    assert actual.status_code == expected.status_code, f"{route}: status {expected.status_code} != {actual.status_code}"
    assert media_type(actual) == media_type(expected), f"{route}: {media_type(expected)} != {media_type(actual)}"
    if media_type(expected) == "application/json":
        left, right = json.loads(expected.content), json.loads(actual.content)
        if isinstance(left, dict):
            left = {k: v for k, v in left.items() if k not in ignore_keys}
            right = {k: v for k, v in right.items() if k not in ignore_keys}
        difference = first_difference(left, right)
        assert difference is None, f"{route}: {difference}"
    else:
        assert actual.content == expected.content, f"{route}: bodies differ"
