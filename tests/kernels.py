"""Tests that run on the C kernels and on the pure-Python paths (trainboard.kernels), both in one process."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from trainboard import kernels

WAYS = ("compiled", "pure-python")


@contextmanager
def running(way: str, kernel: str) -> Iterator[None]:
    """The C kernels (the test skipped where `kernel` is not built) or the pure-Python paths, whatever
    TRAINBOARD_PURE_PYTHON says outside."""
    with pytest.MonkeyPatch.context() as patch:
        if way == "pure-python":
            patch.setenv(kernels.PURE_PYTHON, "1")
        else:
            patch.delenv(kernels.PURE_PYTHON, raising=False)
            if kernels.compiled(kernel) is None:
                pytest.skip(f"{kernel} is not built")
        yield
