"""`/data/trainboard/runs_table`: the runs table (`trainboard.store.runs_table`), one row per run the filter keeps,
with the columns asked for, sorted on the server and cut to a page, as JSON; or every row (or the page asked for) as
CSV or Parquet, the table `trainboard.open(...).runs()` gives."""

from __future__ import annotations

import csv
import io
import json
import math

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from trainboard.api.experiment import runs_columns
from trainboard.api.frames import arrow_table
from trainboard.errors import InvalidArgumentError
from trainboard.http import params
from trainboard.http.compression import PARQUET
from trainboard.http.context import experiment
from trainboard.http.openapi import CSV, JSON, declare, integer, text
from trainboard.http.responses import SECURITY_HEADERS, JSONResponse
from trainboard.http.trainboard_api.capabilities import has_pyarrow
from trainboard.http.trainboard_api.downloads import NotAcceptableError
from trainboard.plugins.runs_table import MAX_TERMS_LENGTH, as_json, table_query
from trainboard.provider.values import RunsTable
from trainboard.store.run_filter import MAX_FILTER_LENGTH

FORMATS = {"json": JSON, "csv": CSV, "parquet": PARQUET}
# Rows of a JSON page unless `limit` says otherwise, and the most it may say.
PAGE = 100
MAX_PAGE = 10_000


@declare(
    "The runs table: one row per run the filter keeps (all without one), with the columns asked for (terms of the "
    "run filter language: last(val/acc), max(val/acc), step_of_max(val/acc) of a scalar tag or derived metric, an "
    "hparam, status, start_time, last_step, duration, labels (a list), starred, notes, display_name, color; without "
    "any, the run's own and its metadata, each hparam and the last value of each scalar tag and derived metric), "
    "sorted on any of them (sort=-max(val/acc),name: - for descending, missing values last) and paged (offset, limit; "
    "total says how many runs the filter keeps); as JSON, or as CSV or Parquet (every row unless limit is given)",
    text("filter", max_length=MAX_FILTER_LENGTH),
    text("columns", max_length=MAX_TERMS_LENGTH),
    text("sort", max_length=MAX_TERMS_LENGTH),
    integer("offset", minimum=0),
    integer("limit", minimum=1, maximum=MAX_PAGE),
    text("format", enum=tuple(FORMATS)),
    returns=tuple(FORMATS.values()),
)
async def runs_table(request: Request) -> Response:
    """A filter, a column or a sort key that is not of the language, or a column that names no hparam or scalar tag,
    is a 400 saying which parameter, where and what was expected."""
    found = experiment(request)
    query = request.query_params
    form = params.optional(query, "format", "json")
    if form not in FORMATS:
        raise InvalidArgumentError(f"format must be one of {', '.join(FORMATS)}, not {form!r}"[:300])
    if form == "parquet" and not has_pyarrow():
        raise NotAcceptableError(
            "this server cannot write Parquet: install pyarrow on it (pip install trainboard[python])"
        )
    limit = params.integer(query, "limit", PAGE if form == "json" else None, minimum=1)
    if limit is not None and limit > MAX_PAGE:
        raise InvalidArgumentError(f"query parameter 'limit' must be at most {MAX_PAGE}, not {limit}")
    asked = table_query(
        params.optional(query, "filter"),
        params.optional(query, "sort"),
        params.optional(query, "columns"),
        offset=params.integer(query, "offset", 0, minimum=0) or 0,
        limit=limit,
    )
    table = await run_in_threadpool(found.provider.runs_table, experiment_id=found.id, query=asked)
    if form == "json":
        return JSONResponse(as_json(table, asked))
    headers = {**SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="runs.{form}"'}
    body = await run_in_threadpool(_csv if form == "csv" else _parquet, table)
    return Response(body, media_type=FORMATS[form], headers=headers)


def _csv(table: RunsTable) -> bytes:
    """A value the run lacks is empty; infinities are `inf` and `-inf`; a list (`labels`) is its JSON array."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows([_csv_value(value) for value in row] for row in table.rows)
    return text.getvalue().encode()


def _csv_value(value: object) -> object:
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else value


def _parquet(table: RunsTable) -> bytes:
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(arrow_table(runs_columns(table)), sink, compression="zstd")
    return sink.getvalue()
