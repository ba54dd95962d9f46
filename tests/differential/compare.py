"""Comparing two HTTP answers (status, content type, body) and reporting the first difference by its JSON path.

JSON objects compare as mappings: TensorBoard's key order follows its directory walk, which no client relies on.
Arrays compare in order. Numbers compare exactly and by type (TensorBoard writes 0.0 for a float zero, 0 for an int).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True, slots=True)
class Answer:
    """What a client sees of a response; the body is JSON for application/json, text for text/*, else bytes."""

    status: int
    content_type: str
    body: Any

    @property
    def media_type(self) -> str:
        return self.content_type.split(";")[0].strip()


def answer(response: httpx.Response) -> Answer:
    content_type = str(response.headers.get("content-type", ""))
    media = content_type.split(";")[0].strip()
    body: Any = response.content
    if media == "application/json":
        try:
            body = strict_json(response.content)
        except ValueError as error:
            body = f"invalid JSON ({error}): {response.content[:200]!r}"
    elif media.startswith("text/"):
        body = response.text
    return Answer(response.status_code, content_type, body)


def strict_json(content: bytes) -> Any:
    """JSON as browsers parse it: bare NaN and Infinity are errors (TensorBoard sends them as strings)."""

    def reject(constant: str) -> Any:
        raise ValueError(f"bare {constant} is not JSON")

    return json.loads(content, parse_constant=reject)


def answer_difference(expected: Answer, actual: Answer) -> str | None:
    if expected.status != actual.status:
        return f"status {expected.status} != {actual.status}: {str(actual.body)[:300]}"
    if expected.content_type != actual.content_type:
        return f"content type {expected.content_type!r} != {actual.content_type!r}"
    return first_difference(expected.body, actual.body)


def first_difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    if isinstance(expected, dict) and isinstance(actual, dict):
        if expected.keys() != actual.keys():
            missing, extra = sorted(expected.keys() - actual.keys()), sorted(actual.keys() - expected.keys())
            return f"{path}: keys only in TensorBoard's {missing}, only in the candidate's {extra}"
        for key in expected:
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (left, right) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: length {len(expected)} != {len(actual)}"
        return None
    if isinstance(expected, str) and isinstance(actual, str) and "\n" in expected + actual:
        return _text_difference(expected, actual, path)
    if isinstance(expected, bytes) and isinstance(actual, bytes) and expected != actual:
        offset = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b), None)
        return f"{path}: {len(expected)} bytes != {len(actual)} bytes, first difference at byte {offset}"
    if type(expected) is not type(actual) or expected != actual:
        return f"{path}: {expected!r} != {actual!r}"
    return None


def _text_difference(expected: str, actual: str, path: str) -> str | None:
    left, right = expected.splitlines(keepends=True), actual.splitlines(keepends=True)
    for number, (a, b) in enumerate(zip(left, right, strict=False), start=1):
        if a != b:
            return f"{path} line {number}: {a!r} != {b!r}"
    if len(left) != len(right):
        return f"{path}: {len(left)} lines != {len(right)} lines"
    return None


def media_type(response: httpx.Response) -> str:
    return answer(response).media_type


def assert_same_answer(
    expected: httpx.Response, actual: httpx.Response, ignore_keys: frozenset[str] = frozenset()
) -> None:
    """Status, content type and body alike; `ignore_keys` leaves out top-level keys of a JSON object body."""
    left, right = answer(expected), answer(actual)
    if ignore_keys and isinstance(left.body, dict) and isinstance(right.body, dict):
        left = Answer(left.status, left.content_type, {k: v for k, v in left.body.items() if k not in ignore_keys})
        right = Answer(right.status, right.content_type, {k: v for k, v in right.body.items() if k not in ignore_keys})
    difference = answer_difference(left, right)
    assert difference is None, f"{expected.request.method} {expected.request.url.raw_path.decode()}: {difference}"
