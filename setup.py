"""The compiled kernels (C, no dependency but Python's headers); everything else is in pyproject.toml.

Each kernel is optional: where it does not compile (no C compiler), pip installs trainboard without it, with a warning,
and trainboard runs on its pure-Python paths (trainboard/kernels.py). They use only Python's stable ABI from 3.11 (the
floor of requires-python), so that one wheel of a platform serves every CPython from 3.11 on."""

from setuptools import Extension, setup

STABLE_ABI = ("Py_LIMITED_API", "0x030B0000")


def kernel(name: str, source: str, *depends: str) -> Extension:
    return Extension(
        name, [source], depends=list(depends), optional=True, py_limited_api=True, define_macros=[STABLE_ABI]
    )


setup(
    ext_modules=[
        kernel("trainboard.reader._framing", "trainboard/reader/_framing.c"),
        kernel("trainboard.http._rows", "trainboard/http/_rows.c"),
        kernel("trainboard.normaliser._scalars", "trainboard/normaliser/_scalars.c", "trainboard/normaliser/wire.h"),
        kernel(
            "trainboard.normaliser._histograms", "trainboard/normaliser/_histograms.c", "trainboard/normaliser/wire.h"
        ),
    ],
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
