"""The compiled kernels (C, no dependency but Python's headers); everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("trainboard.reader._framing", ["trainboard/reader/_framing.c"]),
        Extension("trainboard.http._rows", ["trainboard/http/_rows.c"]),
        Extension(
            "trainboard.normaliser._scalars",
            ["trainboard/normaliser/_scalars.c"],
            depends=["trainboard/normaliser/wire.h"],
        ),
        Extension(
            "trainboard.normaliser._histograms",
            ["trainboard/normaliser/_histograms.c"],
            depends=["trainboard/normaliser/wire.h"],
        ),
    ]
)
