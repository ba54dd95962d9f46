"""Compiling a user's regular expression with RE2, within bounds that keep one request from costing seconds of CPU.

RE2's matching time is linear in the text but its factor is the size of the compiled program, and compiling large
counted repetitions (`(?:a{1,500})` many times over) takes seconds: a 25 KB pattern cost a minute. So a pattern is at
most MAX_PATTERN_LENGTH characters, compiles within MAX_PROGRAM_MEMORY (past it RE2 fails at once), and captures
nothing (no caller needs groups, and submatch tracking made the same patterns hundreds of times slower).
"""

from __future__ import annotations

from typing import Any

import re2

from trainboard.errors import InvalidArgumentError

MAX_PATTERN_LENGTH = 1024
MAX_PROGRAM_MEMORY = 1 << 20

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.never_capture = True
_OPTIONS.max_mem = MAX_PROGRAM_MEMORY

# The same bounds, with capturing groups: for patterns matched against a few short texts (run names).
_CAPTURING = re2.Options()
_CAPTURING.log_errors = False
_CAPTURING.max_mem = MAX_PROGRAM_MEMORY

# What RE2 says when a program passes max_mem.
_TOO_LARGE = "pattern too large"

error = re2.error


def compile_regex(pattern: str, *, name: str, capture: bool = False) -> Any:
    """`pattern` compiled (with its groups if `capture`); InvalidArgumentError naming `name` when it passes a bound,
    re2.error when it is invalid."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise InvalidArgumentError(
            f"{name} is a regular expression of {len(pattern)} characters, over the bound of {MAX_PATTERN_LENGTH}"
        )
    try:
        return re2.compile(pattern, _CAPTURING if capture else _OPTIONS)
    except re2.error as failure:
        if _TOO_LARGE in error_text(failure):
            raise InvalidArgumentError(
                f"{name} compiles to a regular expression program over the bound of {MAX_PROGRAM_MEMORY} bytes"
            ) from None
        raise


def error_text(failure: re2.error) -> str:
    message = failure.args[0] if failure.args else failure
    return message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)
