"""/data/trainboard/frames/{kind}: the tables `trainboard.open(...)` builds from a store (trainboard.api), built here
through this server's provider and sent as an Arrow IPC stream (trainboard/api/transport.py), so that
`trainboard.open("http://...")` gives the same data frames as the store itself. Needs pyarrow on the server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import StreamingResponse

from trainboard.api.experiment import Experiment
from trainboard.api.frames import Table
from trainboard.api.transport import MEDIA_TYPE, to_arrow
from trainboard.errors import NotFoundError
from trainboard.http import params
from trainboard.http.openapi import declare, text
from trainboard.http.responses import SECURITY_HEADERS
from trainboard.http.trainboard_api.capabilities import has_pyarrow
from trainboard.http.trainboard_api.downloads import NotAcceptableError
from trainboard.http.trainboard_api.selection import PARAMETERS, Selection, api_experiment, selection
from trainboard.http.trainboard_api.sinks import Chunks
from trainboard.plugins.runs_table import MAX_TERMS_LENGTH
from trainboard.plugins.x_axis import MAX_X_LENGTH
from trainboard.store.run_filter import MAX_FILTER_LENGTH

# Rows sent per record batch.
BATCH = 1 << 20


def _kinds(api: Experiment, chosen: Selection, query: QueryParams) -> dict[str, Callable[[], Table]]:
    runs, tags, steps = chosen.runs, chosen.tags, chosen.steps
    plugin = params.optional(query, "plugin")
    filter, sort, columns = (params.optional(query, name) for name in ("filter", "sort", "columns"))
    return {
        "runs": lambda: api.runs_table(filter, sort, columns),
        "hparams": api.hparams_table,
        "scalars": lambda: api.scalars_table(runs, tags, steps, x=params.optional(query, "x")),
        "histograms": lambda: api.histograms_table(runs, tags, steps),
        "tensors": lambda: api.tensors_table(runs, tags, steps, plugin=plugin),
        "images": lambda: api.images_table(runs, tags, steps),
        "text": lambda: api.text_table(runs, tags, steps),
    }


KINDS = ("runs", "hparams", "scalars", "histograms", "tensors", "images", "text")


@declare(
    "An experiment's table of one kind (runs, hparams, scalars, histograms, tensors, images, text), every point, as "
    "an Arrow IPC stream: what trainboard.open(server URL) reads",
    *PARAMETERS,
    text("plugin", max_length=1024),
    text("filter", max_length=MAX_FILTER_LENGTH),
    text("sort", max_length=MAX_TERMS_LENGTH),
    text("columns", max_length=MAX_TERMS_LENGTH),
    text("x", max_length=MAX_X_LENGTH),
    returns=MEDIA_TYPE,
)
def frames(request: Request) -> StreamingResponse:
    kind = request.path_params["kind"]
    if kind not in KINDS:
        raise NotFoundError(f"no frames of kind {kind[:100]!r}: one of {', '.join(KINDS)}")
    if not has_pyarrow():
        raise NotAcceptableError(
            "this server cannot send frames: install pyarrow on it (pip install trainboard[python])"
        )
    api = api_experiment(request)
    chosen = selection(request, api)
    read = _kinds(api, chosen, request.query_params)[kind]
    # Built before the answer starts, so that a read the provider refuses is a 400.
    return StreamingResponse(_stream(to_arrow(read())), media_type=MEDIA_TYPE, headers=SECURITY_HEADERS)


def _stream(table: Any) -> Iterator[bytes]:
    import pyarrow as pa

    sink = Chunks()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        for batch in table.to_batches(BATCH):
            writer.write_batch(batch)
            yield sink.take()
    yield sink.take()
