"""`/data/trainboard/groups/scalars`: a scalar tag's runs in groups, each as its mean with a band, computed on every
point (`trainboard.plugins.groups`). GET takes its parameters in the query, POST (for long filters) in a form."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request

from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import FORM_ARRAY, declare, form_body, repeated, text
from trainboard.http.responses import JSONResponse
from trainboard.plugins import groups, scalars
from trainboard.store.run_filter import MAX_FILTER_LENGTH

_STRING = {"type": "string"}


@declare(
    "A scalar tag's runs grouped, each group as its mean with a band (std, min-max or the 95% confidence interval"
    " of the mean) computed on every point",
    text("tag", required=True),
    text("by", required=True),
    text("band", enum=groups.BANDS),
    text("align", enum=groups.ALIGNMENTS),
    text("filter", max_length=MAX_FILTER_LENGTH),
    repeated("runs"),
    body=form_body(tag=_STRING, by=_STRING, band=_STRING, align=_STRING, filter=_STRING, runs=FORM_ARRAY),
)
async def group_scalars(request: Request) -> JSONResponse:
    query = request.query_params
    if request.method == "POST":
        form = await request.form()
        query = QueryParams([(key, value) for key, value in form.multi_items() if isinstance(value, str)])
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
