"""Scalar series as TensorBoard answers them, rows of [wall_time, step, value], written as JSON straight from their
numpy columns: orjson writes each column (the digits it writes for Python floats) and a C kernel (_rows.c) puts them
together, so that a 200-run answer of 200,000 rows makes no Python object per point. Without the kernel
(trainboard.kernels) the rows are written as Python objects, the same bytes."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import orjson

from trainboard import kernels
from trainboard.http.responses import render_json
from trainboard.plugins import scalars
from trainboard.provider.values import ScalarColumns


def rows_json(columns: ScalarColumns) -> bytes:
    """[[wall_time, step, value], ...] as JSON."""
    kernel = kernels.compiled("trainboard.http._rows")
    # orjson writes null where TensorBoard writes "NaN" and "Infinity": such series take the general way.
    if kernel is None or not (np.isfinite(columns.wall_times).all() and np.isfinite(columns.values).all()):
        return render_json(scalars.rows(columns))
    rows: bytes = kernel.interleave(
        _json(columns.wall_times.astype(np.float64, copy=False)),
        _json(columns.steps.astype(np.int64, copy=False)),
        _json(columns.values.astype(np.float64, copy=False)),
    )
    return rows


def runs_rows_json(by_run: Mapping[str, ScalarColumns]) -> bytes:
    """{run: rows} as scalars_multirun answers."""
    return b"{" + b",".join(orjson.dumps(run) + b":" + rows_json(columns) for run, columns in by_run.items()) + b"}"


def _json(column: np.ndarray) -> bytes:
    """A column as a flat JSON array of numbers."""
    return orjson.dumps(np.ascontiguousarray(column), option=orjson.OPT_SERIALIZE_NUMPY)
