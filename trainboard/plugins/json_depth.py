"""A bound on how deeply a request's JSON may nest, checked before parsing.

Python's json parser recurses once per level and orjson refuses to write past 255 levels, so JSON nested about a
thousand levels deep raised RecursionError on the way in or failed on the way out (an echoed field). No request of
TensorBoard's, the HParams API's or TS-VIS's nests more than a few levels.
"""

from __future__ import annotations

import re
from itertools import accumulate

from trainboard.errors import InvalidArgumentError

MAX_JSON_DEPTH = 64

# A JSON string, whose brackets are text, not nesting; one left open runs to the end. The possessive loop and the
# open ending keep this linear: no start is tried twice over the same characters.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)', re.DOTALL)
# Anything that is no bracket.
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DELTA = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str | bytes) -> int:
    """How many arrays and objects the deepest value of `text` sits in (brackets inside strings do not count)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_DELTA.__getitem__, brackets)), default=0)


def check_depth(text: str | bytes, *, name: str) -> None:
    """InvalidArgumentError naming `name` when `text` nests deeper than MAX_JSON_DEPTH."""
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise InvalidArgumentError(f"{name} is JSON nested deeper than the bound of {MAX_JSON_DEPTH} levels")
