"""`/data/trainboard/groups/scalars`: a scalar tag's runs in groups, each as its mean with a band, computed on every
point (`trainboard.plugins.groups`). GET takes its parameters in the query, POST (for long filters) in a form.
`/data/trainboard/groups/runs`: which group each run is in, for the runs table's group rows."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import declare, form_of, repeated, text
from trainboard.http.responses import JSONResponse
from trainboard.plugins import groups, scalars
from trainboard.store.run_filter import MAX_FILTER_LENGTH

_PARAMETERS = (
    text("tag", required=True),
    text("by", required=True),
    text("band", enum=groups.BANDS),
    text("align", enum=groups.ALIGNMENTS),
    text("filter", max_length=MAX_FILTER_LENGTH),
    repeated("runs"),
)


@declare(
    "A scalar tag's runs grouped, each group as its mean with a band (std, min-max or the 95% confidence interval"
    " of the mean) computed on every point",
    *_PARAMETERS,
    body=form_of(*_PARAMETERS),
)
async def group_scalars(request: Request) -> JSONResponse:
    query = await params.query_or_form(request)
    found = experiment(request)
    body = await run_in_threadpool(
        groups.groups,
        found.provider,
        found.id,
        tag=params.required(query, "tag"),
        by=groups.grouping(params.required(query, "by")),
        band=params.optional(query, "band", "std") or "std",
        run_filter=params.optional(query, "filter"),
        runs=params.repeated(query, "runs") if "runs" in query else None,
        samples=found.samples(scalars.PLUGIN_NAME, scalars.DEFAULT_SAMPLES),
        align=params.optional(query, "align", "exact") or "exact",
    )
    return JSONResponse(body)


@declare(
    "The runs the filter keeps (all without one) in groups by the rule of /data/trainboard/groups/scalars: each group"
    "'s name and runs (the runs table's group rows)",
    text("by", required=True),
    text("filter", max_length=MAX_FILTER_LENGTH),
)
async def group_runs(request: Request) -> JSONResponse:
    query = request.query_params
    found = experiment(request)
    body = await run_in_threadpool(
        groups.members,
        found.provider,
        found.id,
        by=groups.grouping(params.required(query, "by")),
        run_filter=params.optional(query, "filter"),
    )
    return JSONResponse(body)
