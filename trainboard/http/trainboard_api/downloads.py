"""/data/trainboard/scalars: every point of the scalars of the runs and tags asked for (every tag when none is
named), as CSV, JSON or Parquet (with pyarrow on the server), streamed one series at a time and written column by
column (no Python object per point).

- CSV: `run,tag,step,wall_time,value`, a line per point, NaN as `NaN` and infinities as `inf` and `-inf`;
- JSON: a list of series, each `{"run", "tag", "step": [...], "wall_time": [...], "value": [...]}`, non-finite values
  as TensorBoard writes them ("NaN", "Infinity", "-Infinity");
- with `x=<tag>` (a scalar tag or derived metric as the x axis), an `x` column (CSV, Parquet) or list (JSON) after
  `value`: that tag's last value at or before each point's step in its run (`trainboard.plugins.x_axis.x_at`), NaN
  before its first point or in a run without it;
- Parquet: the columns of `trainboard.open(...).scalars()`, run and tag dictionary-encoded, a row group per series;
  steps delta-encoded and floats byte-stream-split, compressed with zstd (level 1): 8.5 MB for 1,000,000 points in
  0.1 s, where the default dictionary-encodes every column and snappy-compresses it (21 MB in 0.3 s). Already
  compressed, it is not gzipped again (app.py).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import orjson
from starlette.requests import Request
from starlette.responses import StreamingResponse

from trainboard.api.frames import Labels, Table, arrow_table, labels
from trainboard.errors import InvalidArgumentError, PublicError
from trainboard.http import params
from trainboard.http.compression import PARQUET
from trainboard.http.openapi import CSV, JSON, declare, text
from trainboard.http.responses import SECURITY_HEADERS
from trainboard.http.trainboard_api.ahead import ahead
from trainboard.http.trainboard_api.capabilities import has_pyarrow
from trainboard.http.trainboard_api.selection import PARAMETERS, api_experiment, selection
from trainboard.http.trainboard_api.sinks import Chunks
from trainboard.plugins.x_axis import MAX_X_LENGTH

FORMATS = {"csv": CSV, "json": JSON, "parquet": PARQUET}
# Points formatted at a time.
CHUNK = 1 << 16
# The least bytes sent at a time (many short series make many small parts, each costly to gzip and send alone).
SEND_BYTES = 1 << 18
# Rows of the series written together as one Parquet row group (a group per short series is slow to write and read).
ROW_GROUP = 1 << 20
# Steps past this are not exact as float64: their lines are written one by one.
EXACT = 2**53


class NotAcceptableError(PublicError):
    """A format this server cannot write (Parquet without pyarrow)."""

    http_code = 406
    kind = "Not acceptable"


@declare(
    "Every point of scalars as CSV, JSON or Parquet, never downsampled",
    *PARAMETERS,
    text("format", enum=tuple(FORMATS)),
    text("x", max_length=MAX_X_LENGTH),
    returns=tuple(FORMATS.values()),
)
def scalars(request: Request) -> StreamingResponse:
    form = params.optional(request.query_params, "format", "csv")
    if form not in FORMATS:
        raise InvalidArgumentError(f"format must be one of {', '.join(FORMATS)}, not {form!r}"[:300])
    if form == "parquet" and not has_pyarrow():
        raise NotAcceptableError(
            "this server cannot write Parquet: install pyarrow on it (pip install trainboard[python])"
        )
    api = api_experiment(request)
    chosen = selection(request, api)
    tags = chosen.tags if isinstance(chosen.tags, list) and len(chosen.tags) == 1 else None
    name = _filename(tags[0] if tags else "scalars")
    headers = {**SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="{name}.{form}"'}
    x = params.optional(request.query_params, "x")
    # Read before the answer starts, so that an x no run has is a 400.
    tables = _started(api.scalar_tables(chosen.runs, chosen.tags, chosen.steps, x=x))
    with_x = x is not None
    body = {
        "csv": lambda: _csv(tables, with_x),
        "json": lambda: _json(tables),
        "parquet": lambda: _parquet(tables, with_x),
    }[form]()
    return StreamingResponse(ahead(_coalesced(body)), media_type=FORMATS[form], headers=headers)


def _started(tables: Iterator[Table]) -> Iterator[Table]:
    """`tables` with its first series read now (its errors raised before the answer starts)."""
    first = next(tables, None)
    if first is None:
        return iter(())
    return itertools.chain((first,), tables)


def _coalesced(parts: Iterator[bytes]) -> Iterator[bytes]:
    """The parts joined into chunks of at least SEND_BYTES (but the last)."""
    pending: list[bytes] = []
    size = 0
    for part in parts:
        pending.append(part)
        size += len(part)
        if size >= SEND_BYTES:
            yield b"".join(pending)
            pending, size = [], 0
    if pending:
        yield b"".join(pending)


def _filename(tag: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in tag)[:100] or "scalars"


# A series' run, tag, steps, wall times and values, and its other float columns (x).
_Series = tuple[str, str, np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]


def _series(table: Table) -> _Series:
    run, tag = table["run"], table["tag"]
    assert isinstance(run, Labels) and isinstance(tag, Labels)
    steps, wall_times, values = (np.asarray(table[name]) for name in ("step", "wall_time", "value"))
    more = [np.asarray(table["x"])] if "x" in table else []
    return run.names[0] if run.names else "", tag.names[0] if tag.names else "", steps, wall_times, values, more


def _csv(tables: Iterator[Table], with_x: bool = False) -> Iterator[bytes]:
    yield b"run,tag,step,wall_time,value,x\n" if with_x else b"run,tag,step,wall_time,value\n"
    for table in tables:
        run, tag, steps, wall_times, values, more = _series(table)
        prefix = f"{_csv_field(run)},{_csv_field(tag)},".encode()
        for start in range(0, len(steps), CHUNK):
            part = slice(start, start + CHUNK)
            yield _csv_lines(prefix, steps[part], wall_times[part], values[part], *(m[part] for m in more))


def _csv_lines(prefix: bytes, steps: np.ndarray, wall_times: np.ndarray, *floats: np.ndarray) -> bytes:
    """orjson writes the rows `[[step, wall_time, value, ...], ...]` (floats in their shortest exact form): its
    brackets become line ends, integral floats lose their `.0` and null (NaN) becomes NaN."""
    columns = [wall_times, *floats]
    if any(np.isinf(column).any() for column in columns) or (len(steps) and np.abs(steps).max() >= EXACT):
        rows = zip(steps.tolist(), *(column.tolist() for column in columns), strict=True)
        return b"".join(
            prefix + (f"{row[0]}," + ",".join(_text(number) for number in row[1:]) + "\n").encode() for row in rows
        )
    grid = np.column_stack((steps.astype(np.float64), *columns))
    body = orjson.dumps(grid, option=orjson.OPT_SERIALIZE_NUMPY)[2:-2]
    body = body.replace(b".0,", b",")
    if any(np.isnan(column).any() for column in columns):
        body = body.replace(b"null", b"NaN")
    body = body.replace(b"],[", b"\n" + prefix)
    return prefix + body + b"\n"


def _text(number: float) -> str:
    return "NaN" if math.isnan(number) else repr(number)


def _csv_field(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n\r') else text


def _json(tables: Iterator[Table]) -> Iterator[bytes]:
    """Each series' columns CHUNK numbers at a time, so that a long series is never one string in memory."""
    yield b"["
    first = True
    for table in tables:
        run, tag, steps, wall_times, values, more = _series(table)
        head = orjson.dumps({"run": run, "tag": tag})[:-1]
        yield (b"" if first else b",") + head
        named = [("step", steps), ("wall_time", wall_times), ("value", values), *(("x", m) for m in more)]
        for name, column in named:
            yield b',"' + name.encode() + b'":['
            for start in range(0, len(column), CHUNK):
                part = column[start : start + CHUNK]
                floats = name in ("value", "x")
                numbers = orjson.dumps(_finite(part) if floats else part, option=orjson.OPT_SERIALIZE_NUMPY)
                yield (b"," if start else b"") + numbers[1:-1]
            yield b"]"
        yield b"}"
        first = False
    yield b"]"


def _finite(values: np.ndarray) -> Any:
    """orjson writes NaN and infinities as null: a series with any is written as TensorBoard's strings."""
    if np.isfinite(values).all():
        return values
    return [
        v if math.isfinite(v) else ("NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity"))
        for v in values.tolist()
    ]


def _parquet(tables: Iterator[Table], with_x: bool = False) -> Iterator[bytes]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = Chunks()
    schema = pa.schema(
        [
            ("run", pa.dictionary(pa.int32(), pa.string())),
            ("tag", pa.dictionary(pa.int32(), pa.string())),
            ("step", pa.int64()),
            ("wall_time", pa.float64()),
            ("value", pa.float64()),
            *([("x", pa.float64())] if with_x else []),
        ]
    )
    encodings = {"step": "DELTA_BINARY_PACKED", "wall_time": "BYTE_STREAM_SPLIT", "value": "BYTE_STREAM_SPLIT"}
    if with_x:
        encodings["x"] = "BYTE_STREAM_SPLIT"
    options = {"use_dictionary": ["run", "tag"], "column_encoding": encodings, "compression": "zstd"}
    with pq.ParquetWriter(sink, schema, compression_level=1, **options) as writer:
        for table in _merged(tables):
            writer.write_table(arrow_table(table).cast(schema), row_group_size=ROW_GROUP)
            yield sink.take()
    yield sink.take()


def _merged(tables: Iterator[Table]) -> Iterator[Table]:
    """Consecutive series joined into tables of at least ROW_GROUP rows (but the last)."""
    pending: list[_Series] = []
    rows = 0
    for table in tables:
        pending.append(_series(table))
        rows += len(pending[-1][2])
        if rows >= ROW_GROUP:
            yield _joined(pending)
            pending, rows = [], 0
    if pending:
        yield _joined(pending)


def _joined(series: list[_Series]) -> Table:
    counts = [len(steps) for _, _, steps, *_ in series]
    table: Table = {
        "run": labels([run for run, *_ in series], counts),
        "tag": labels([tag for _, tag, *_ in series], counts),
        "step": np.concatenate([one[2] for one in series]),
        "wall_time": np.concatenate([one[3] for one in series]),
        "value": np.concatenate([one[4] for one in series]),
    }
    if series[0][5]:
        table["x"] = np.concatenate([one[5][0] for one in series])
    return table
