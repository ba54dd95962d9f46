"""Columns to data frames: pandas, polars or a pyarrow table, built column by column (no Python object per point).

A table is a dict of named columns, each a numpy array, a `Labels` (run or tag names by code, one code per row) or a
list (one Python object per row, for values that are objects anyway: bytes, strings, arrays).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

FrameLibrary = Literal["pandas", "polars", "arrow"]
BACKENDS = ("pandas", "polars", "arrow")


@dataclass(frozen=True, slots=True)
class Labels:
    """A string column stored as codes into `names` (a dictionary or categorical column)."""

    codes: np.ndarray
    names: Sequence[str]

    def __len__(self) -> int:
        return len(self.codes)


Column = np.ndarray | Labels | list[Any]
Table = dict[str, Column]


def check_backend(backend: str) -> FrameLibrary:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    return backend  # type: ignore[return-value]


def frame(table: Table, backend: FrameLibrary) -> Any:
    if backend == "pandas":
        return pandas_frame(table)
    if backend == "arrow":
        return arrow_table(table)
    import polars as pl

    return pl.from_arrow(arrow_table(table))


def pandas_frame(table: Table) -> Any:
    import pandas as pd

    columns: dict[str, Any] = {}
    for name, column in table.items():
        if isinstance(column, Labels):
            columns[name] = pd.Categorical.from_codes(column.codes, categories=list(column.names))
        elif isinstance(column, list):
            columns[name] = pd.Series(column, dtype=object) if column else pd.Series([], dtype=object)
        else:
            columns[name] = column
    return pd.DataFrame(columns, copy=False)


def arrow_table(table: Table) -> Any:
    import pyarrow as pa

    arrays: dict[str, Any] = {}
    for name, column in table.items():
        if isinstance(column, Labels):
            arrays[name] = pa.DictionaryArray.from_arrays(
                pa.array(column.codes, type=pa.int32()), pa.array(list(column.names), type=pa.string())
            )
        elif isinstance(column, list):
            arrays[name] = pa.array([_arrow_value(value) for value in column])
        else:
            arrays[name] = pa.array(column)
    return pa.table(arrays)


def _arrow_value(value: Any) -> Any:
    """Arrays become flat lists (their shape is a column of its own), tuples lists."""
    if isinstance(value, np.ndarray):
        return value.ravel().tolist()
    if isinstance(value, tuple):
        return list(value)
    return value


def labels(names: Sequence[str], counts: Sequence[int] | np.ndarray) -> Labels:
    """`names[i]` repeated `counts[i]` times, as codes into the distinct names."""
    distinct = sorted(set(names))
    position = {name: code for code, name in enumerate(distinct)}
    codes = np.repeat(np.array([position[name] for name in names], dtype=np.int32), np.asarray(counts, dtype=np.int64))
    return Labels(codes, distinct)
