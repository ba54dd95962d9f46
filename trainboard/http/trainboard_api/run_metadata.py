"""/data/trainboard/run_metadata: every run's display name, notes, labels, star and colour (GET, the read role), and
changes to them (POST, the write role; recorded in the audit log). The store keeps them by run name
(`trainboard.store.run_metadata`).

Notes are markdown, answered as their source (a JSON string: text, never markup) and, when asked (`html=true`), as
`notes_html`, rendered and sanitised as the text dashboard's markdown is (`trainboard.plugins.markdown`): a `<script>`
in notes is shown as text."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.access.audit import Event
from trainboard.errors import InvalidArgumentError
from trainboard.http import params
from trainboard.http.audit import record
from trainboard.http.context import Experiments, experiment
from trainboard.http.openapi import boolean, declare, json_body, repeated
from trainboard.http.responses import JSONResponse
from trainboard.http.trainboard_api.bodies import answers_json_errors, json_object
from trainboard.plugins.markdown import markdowns_to_safe_html
from trainboard.reader.logdir import walk_order
from trainboard.store.run_metadata import (
    BOUNDS,
    MAX_DISPLAY_NAME,
    MAX_LABEL,
    MAX_LABELS_PER_RUN,
    MAX_NOTES,
    MAX_RUNS_PER_CHANGE,
    RunMetadata,
    checked_change,
    checked_runs,
)

LABELS = {"type": "array", "items": {"type": "string", "maxLength": MAX_LABEL}, "maxItems": MAX_LABELS_PER_RUN}
CHANGE_PROPERTIES: dict[str, object] = {
    "runs": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_RUNS_PER_CHANGE},
    "display_name": {"type": "string", "maxLength": MAX_DISPLAY_NAME},
    "notes": {"type": "string", "maxLength": MAX_NOTES},
    "starred": {"type": "boolean"},
    "color": {"type": "string", "pattern": "^(#[0-9a-fA-F]{6})?$"},
    "add_labels": LABELS,
    "remove_labels": LABELS,
}
CHANGE = {"type": "object", "properties": CHANGE_PROPERTIES, "required": ["runs"], "additionalProperties": False}


def answer(found: list[RunMetadata], *, html: bool) -> dict[str, Any]:
    """`{"runs": {RUN: {display_name, notes, labels, starred, color}}, "bounds": {...}}`, runs in the logdir's walk
    order; with `html`, each with `notes_html` too."""
    rows = sorted(found, key=lambda row: walk_order(row.run))
    return {
        "runs": {
            row.run: {**row.as_json(), **({"notes_html": _notes_html(row.notes)} if html else {})} for row in rows
        },
        "bounds": BOUNDS,
    }


def _notes_html(notes: str) -> str:
    # Not through the text dashboard's cache: notes may be long, and are written by users.
    return markdowns_to_safe_html([notes], lambda htmls: htmls[0]) if notes else ""


@declare(
    "Runs' metadata (of those with any): display name, notes (markdown, and sanitised HTML), labels, star, colour",
    repeated("run"),
    boolean("html"),
)
async def listing(request: Request) -> JSONResponse:
    """`{"runs": {RUN: {"display_name", "notes", "labels", "starred", "color"}}, "bounds": {...}}`: the experiment's
    runs that have metadata (as it is now, also below a pin), those named by `run` when it is given, and the bounds a
    change must keep. With `html=true`, each with `notes_html`: rendering costs about a millisecond per run with notes,
    so a table of many runs asks without it, and a run's page with it."""
    found = experiment(request)
    named = set(params.repeated(request.query_params, "run"))
    html = params.boolean(request.query_params, "html")
    experiments: Experiments = request.app.state.experiments
    rows = await run_in_threadpool(experiments.keeper.run_metadata, found.id)
    rows = [row for row in rows if not named or row.run in named]
    return JSONResponse(await run_in_threadpool(answer, rows, html=html))


@declare("Change runs' metadata: display name, notes, star, colour, labels added or removed", body=json_body(CHANGE))
@answers_json_errors
async def change(request: Request) -> JSONResponse:
    """`{"runs": [RUN, ...], ...}` with any of `display_name`, `notes`, `starred`, `color` ("#rrggbb", or "" for
    none), `add_labels`, `remove_labels`: the same change to each run, all or none. The answer is the listing's, of
    those runs. 400 for a value past its bound, 404 for a run the experiment does not have, 409 for a run that would
    have too many labels."""
    body = await json_object(request, frozenset(CHANGE_PROPERTIES))
    runs = checked_runs(body.get("runs"))
    wanted = checked_change(
        display_name=body.get("display_name"),
        notes=body.get("notes"),
        starred=body.get("starred"),
        color=body.get("color"),
        add_labels=_list(body, "add_labels"),
        remove_labels=_list(body, "remove_labels"),
    )
    found = experiment(request)
    keeper = request.app.state.experiments.keeper
    await run_in_threadpool(keeper.change_run_metadata, found.id, runs, wanted)
    await record(
        request, Event.RUN_METADATA, runs=len(runs), run=runs[0] if len(runs) == 1 else None, changed=wanted.fields
    )
    changed = set(runs)
    rows = [row for row in await run_in_threadpool(keeper.run_metadata, found.id) if row.run in changed]
    return JSONResponse({"ok": True, **answer(rows, html=False)})


def _list(body: dict[str, Any], key: str) -> list[object]:
    value = body.get(key, [])
    if not isinstance(value, list):
        raise InvalidArgumentError(f"{key} must be a list of labels")
    return value
