"""Handlers of TensorBoard's scalars plugin."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from trainboard.errors import InvalidArgumentError
from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import FORM_ARRAY, JSON_OR_CSV, RUN, TAG, declare, form_body, text
from trainboard.http.responses import RenderedJSONResponse, TextResponse, kept_json
from trainboard.http.rows import rows_json, runs_rows_json
from trainboard.plugins import scalars


@declare("The runs and tags of scalars")
def tags(request: Request) -> Response:
    found = experiment(request)
    return kept_json(request, found.provider, found.id, "scalars/tags", lambda: scalars.tags(found.provider, found.id))


@declare("A scalar series as JSON or CSV", RUN, TAG, text("format", enum=("csv", "json")), returns=JSON_OR_CSV)
def series(request: Request) -> RenderedJSONResponse | TextResponse:
    run, tag = params.optional(request.query_params, "run"), params.optional(request.query_params, "tag")
    if run is None or tag is None:
        raise InvalidArgumentError(f"Both run and tag must be specified: tag={tag!r}, run={run!r}")
    found = experiment(request)
    columns = scalars.scalars(
        found.provider, found.id, run=run, tag=tag, samples=found.samples(scalars.PLUGIN_NAME, scalars.DEFAULT_SAMPLES)
    )
    if params.optional(request.query_params, "format") == "csv":
        return TextResponse(scalars.as_csv(columns), media_type="text/csv")
    return RenderedJSONResponse(rows_json(columns))


# Runs one scalars_multirun form may name: TensorBoard's Rust server takes any number (a 10,000-run logdir's
# dashboard asks for all of them at once), Starlette's default is 1,000 fields. Still bounded, as the body is.
MAX_MULTIRUN_RUNS = 100_000


@declare("A tag's scalar series in several runs", body=form_body(tag={"type": "string"}, runs=FORM_ARRAY))
async def series_multirun(request: Request) -> RenderedJSONResponse:
    form = await request.form(max_files=0, max_fields=MAX_MULTIRUN_RUNS + 1)
    tag_values = form.getlist("tag")
    if len(tag_values) != 1:
        raise InvalidArgumentError("tag must be specified exactly once")
    runs = [str(run) for run in form.getlist("runs")]
    found = experiment(request)
    samples = found.samples(scalars.PLUGIN_NAME, scalars.DEFAULT_SAMPLES)
    tag = str(tag_values[0])

    def answer() -> bytes:
        return runs_rows_json(scalars.scalars_multirun(found.provider, found.id, runs=runs, tag=tag, samples=samples))

    return RenderedJSONResponse(await run_in_threadpool(answer))
