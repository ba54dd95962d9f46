"""`trainboard upload`'s routes under /experiment/<id>/upload/ (`trainboard serve` only; docs/upload.md):

- `GET files`: each file's committed cursor;
- `POST file?run=&path=&offset=&size=&mtime=&head=&crc32c=[&position=&place=&parts=]`: a file's bytes from
  `offset` (the body), committed with the file's new offset in one transaction, or 409 with where the file stands
  (or naming both runs, for a file of another run);
- `POST forget`: `{"paths": [...]}`, files gone from the client's logdir.

What they read and answer is `trainboard.ingest.upload_protocol`'s, the client's too: a chunk's query parameters are
documented here and parsed by the same declarations.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.access.audit import Event
from trainboard.http.audit import record
from trainboard.http.context import experiment
from trainboard.http.openapi import BYTES, Body, Parameter, declare, json_body
from trainboard.http.responses import JSONResponse
from trainboard.ingest.upload import Uploads
from trainboard.ingest.upload_protocol import (
    CHUNK_PARAMETERS,
    FORGET_SCHEMA,
    OffsetMismatch,
    OtherRunsFile,
    QueryParameter,
    files_json,
    read_chunk,
    read_forget,
)
from trainboard.reader.received import Spool


def _documented(parameter: QueryParameter[Any]) -> Parameter:
    return Parameter(parameter.name, parameter.schema, parameter.required, parameter.json)


def _uploads(request: Request) -> tuple[Uploads, str]:
    uploads: Uploads = request.app.state.uploads
    return uploads, experiment(request).id


@declare("The committed cursor of each uploaded file")
async def files(request: Request) -> JSONResponse:
    uploads, experiment_id = _uploads(request)
    return JSONResponse(files_json(await run_in_threadpool(uploads.cursors, experiment_id)))


@declare(
    "A file's bytes from offset, committed with its new offset; 409 with where it stands",
    *map(_documented, CHUNK_PARAMETERS),
    body=Body(BYTES, {"type": "string", "format": "binary"}),
)
async def file(request: Request) -> JSONResponse:
    uploads, experiment_id = _uploads(request)
    # The body goes to a spool as it arrives and is read from there a window at a time: a server holds a bounded part
    # of each upload, however large.
    with Spool() as body:
        async for piece in request.stream():
            await run_in_threadpool(body.write, piece)
        chunk = await run_in_threadpool(read_chunk, request.query_params, body)
        try:
            receipt = await run_in_threadpool(uploads.receive, experiment_id, chunk)
        except (OffsetMismatch, OtherRunsFile) as refused:
            return JSONResponse(refused.as_json(), status_code=409)
        if chunk.offset == 0:
            await record(request, Event.UPLOAD_START, experiment_id=experiment_id, run=chunk.run, path=chunk.path)
    return JSONResponse(receipt.as_json())


@declare("Forget files gone from the client's logdir", body=json_body(FORGET_SCHEMA))
async def forget(request: Request) -> JSONResponse:
    uploads, experiment_id = _uploads(request)
    paths = read_forget(await request.body())
    await run_in_threadpool(uploads.forget, experiment_id, paths)
    return JSONResponse({"forgotten": len(paths)})
