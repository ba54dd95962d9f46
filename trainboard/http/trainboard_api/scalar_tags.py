"""/data/trainboard/scalar_tags: the scalars' tags as /data/plugin/scalars/tags lists them, each tag once with the runs
that have it (`trainboard.plugins.scalars.tag_runs`): the web UI's listing, small where every run logs the same
tags. TensorBoard's route stays as it is, for TensorBoard's clients."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from trainboard.http.context import experiment
from trainboard.http.openapi import declare
from trainboard.http.responses import kept_json
from trainboard.plugins import scalars


@declare(
    "The scalars' tags, each once with the runs that have it: {runs: [RUN], tags: {TAG: [{displayName, description, "
    "runs}]}}, a tag's runs grouped by display name and description, as indices into runs (null: every run)"
)
def scalar_tags(request: Request) -> Response:
    found = experiment(request)
    return kept_json(
        request, found.provider, found.id, "scalar_tags", lambda: scalars.tag_runs(found.provider, found.id)
    )
