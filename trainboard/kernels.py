"""The four C kernels are optional: each module that calls one asks `compiled` for it at each call and takes its
pure-Python path, with the same answers, when it is None. It is None where the kernel was not built (an install
without a C compiler) and everywhere while TRAINBOARD_PURE_PYTHON=1, which lets tests run both ways in one venv."""

from __future__ import annotations

import importlib
import os
from functools import cache
from types import ModuleType

PURE_PYTHON = "TRAINBOARD_PURE_PYTHON"
KERNELS = (
    "trainboard.reader._framing",
    "trainboard.normaliser._scalars",
    "trainboard.normaliser._histograms",
    "trainboard.http._rows",
)


def compiled(name: str) -> ModuleType | None:
    """The C kernel `name` (one of KERNELS), or None: not built, or TRAINBOARD_PURE_PYTHON=1."""
    if os.environ.get(PURE_PYTHON) == "1":
        return None
    return _imported(name)


@cache
def _imported(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:  # not built, or built for another Python
        return None


def pure_python_note() -> str | None:
    """What a server says once at start when some path runs in pure Python; None when every kernel is compiled."""
    if os.environ.get(PURE_PYTHON) == "1":
        return f"{PURE_PYTHON}=1: running on the pure-Python paths (slower)"
    missing = [name.rpartition(".")[2] for name in KERNELS if _imported(name) is None]
    if missing:
        return f"C kernels not built ({', '.join(missing)}): running on the pure-Python paths (slower)"
    return None
