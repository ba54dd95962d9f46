"""`trainboard upload`'s routes under /experiment/<id>/upload/ (`trainboard serve` only; docs/upload.md):

- `GET files`: each file's committed cursor;
- `POST file?run=&path=&offset=&size=&mtime=&head=&crc32c=[&position=&place=&parts=]`: a file's bytes from
  `offset` (the body), committed with the file's new offset in one transaction, or 409 with where the file stands;
- `POST forget`: `{"paths": [...]}`, files gone from the client's logdir.
"""

from __future__ import annotations

import base64
import binascii

import google_crc32c
import orjson
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request

from trainboard.errors import InvalidArgumentError
from trainboard.http import params
from trainboard.http.context import experiment
from trainboard.http.openapi import BYTES, Body, declare, integer, json_body, json_text, number, text
from trainboard.http.responses import JSONResponse
from trainboard.ingest.upload import Chunk, OffsetMismatch, Uploads
from trainboard.normaliser.projector import AT_ROOT, IN_ASSETS, IN_RUN
from trainboard.reader.dialect import file_dialect, is_projector_config, is_structure_graph_file
from trainboard.reader.logdir import FileStat
from trainboard.reader.tail import HEAD_SIZE, FileCursor

MAX_PATH_LENGTH = 4096
MAX_FORGET_PATHS = 100_000


def cursor_json(cursor: FileCursor | None) -> dict[str, object] | None:
    if cursor is None:
        return None
    return {
        "offset": cursor.offset,
        "size": cursor.size,
        "mtime": cursor.mtime,
        "head": base64.urlsafe_b64encode(cursor.head).decode(),
    }


def _uploads(request: Request) -> tuple[Uploads, str]:
    uploads: Uploads = request.app.state.uploads
    return uploads, experiment(request).id


@declare("The committed cursor of each uploaded file")
async def files(request: Request) -> JSONResponse:
    uploads, experiment_id = _uploads(request)
    cursors = await run_in_threadpool(uploads.cursors, experiment_id)
    return JSONResponse({"files": {path: cursor_json(cursor) for path, cursor in cursors.items()}})


@declare(
    "A file's bytes from offset, committed with its new offset; 409 with where it stands",
    text("run", required=True, max_length=MAX_PATH_LENGTH),
    text("path", required=True, max_length=MAX_PATH_LENGTH),
    integer("offset", required=True, minimum=0),
    integer("size", required=True, minimum=0),
    number("mtime", required=True),
    text("head", required=True),
    integer("crc32c", required=True, minimum=0),
    integer("position", minimum=0),
    integer("place", minimum=IN_RUN, maximum=AT_ROOT),
    json_text(
        "parts",
        {
            "type": "array",
            "items": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer", "minimum": 0}]},
        },
    ),
    body=Body(BYTES, {"type": "string", "format": "binary"}),
)
async def file(request: Request) -> JSONResponse:
    uploads, experiment_id = _uploads(request)
    query = request.query_params
    path = _relative_path(params.required(query, "path"), "path")
    if not (file_dialect(path) or is_structure_graph_file(path) or is_projector_config(path)):
        raise InvalidArgumentError(f"{path!r} is no event file, structure graph or projector config")
    run = params.required(query, "run")
    if run != ".":
        run = _relative_path(run, "run")
    head = _head(params.required(query, "head"))
    stat = FileStat(size=_integer(query, "size"), mtime=_mtime(params.required(query, "mtime")))
    body = await request.body()
    if google_crc32c.value(body) != _integer(query, "crc32c"):
        raise InvalidArgumentError("the body's CRC-32C is not the crc32c parameter: it was damaged on the way")
    data, named = _parts(body, params.optional(query, "parts"))
    place = _integer(query, "place", default=IN_RUN)
    if place not in (IN_RUN, IN_ASSETS, AT_ROOT):
        raise InvalidArgumentError(f"query parameter 'place' must be {IN_RUN}, {IN_ASSETS} or {AT_ROOT}")
    chunk = Chunk(
        run=run,
        path=path,
        offset=_integer(query, "offset"),
        stat=stat,
        head=head,
        data=data,
        position=_integer(query, "position", default=0),
        place=place,
        named=named,
    )
    try:
        receipt = await run_in_threadpool(uploads.receive, experiment_id, chunk)
    except OffsetMismatch as mismatch:
        return JSONResponse(
            {"error": str(mismatch), "expected": mismatch.expected, "cursor": cursor_json(mismatch.cursor)},
            status_code=409,
        )
    return JSONResponse({"cursor": cursor_json(receipt.cursor), "points": receipt.points})


@declare(
    "Forget files gone from the client's logdir",
    body=json_body(
        {
            "type": "object",
            "properties": {"paths": {"type": "array", "maxItems": MAX_FORGET_PATHS, "items": {"type": "string"}}},
            "required": ["paths"],
        }
    ),
)
async def forget(request: Request) -> JSONResponse:
    uploads, experiment_id = _uploads(request)
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        raise InvalidArgumentError('expected {"paths": [PATH, ...]}') from None
    paths = body.get("paths") if isinstance(body, dict) else None
    if not isinstance(paths, list) or len(paths) > MAX_FORGET_PATHS or not all(isinstance(p, str) for p in paths):
        raise InvalidArgumentError(f'expected {{"paths": [PATH, ...]}}, at most {MAX_FORGET_PATHS} paths')
    await run_in_threadpool(uploads.forget, experiment_id, paths)
    return JSONResponse({"forgotten": len(paths)})


def _relative_path(value: str, name: str) -> str:
    """A '/'-separated path inside the client's logdir, as it is: no '..', '.', empty or absolute parts."""
    parts = value.split("/")
    if len(value) > MAX_PATH_LENGTH or any(part in ("", ".", "..") for part in parts) or "\\" in value:
        raise InvalidArgumentError(f"{name} {value[:200]!r} must be a '/'-separated path inside the logdir")
    return value


def _integer(query: QueryParams, name: str, default: int | None = None) -> int:
    value = params.integer(query, name, default, minimum=0)
    if value is None:
        raise InvalidArgumentError(f"missing required query parameter {name!r}")
    if value >= 1 << 63:
        raise InvalidArgumentError(f"query parameter {name!r} is too large")
    return value


def _mtime(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise InvalidArgumentError(f"query parameter 'mtime' must be a number, not {raw[:100]!r}") from None
    if not 0 <= value < 1e12:
        raise InvalidArgumentError("query parameter 'mtime' must be seconds since the epoch")
    return value


def _head(raw: str) -> bytes:
    try:
        head = base64.b64decode(raw + "=" * (-len(raw) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidArgumentError("query parameter 'head' must be base64url") from None
    if len(head) > HEAD_SIZE:
        raise InvalidArgumentError(f"query parameter 'head' holds more than {HEAD_SIZE} bytes")
    return head


def _parts(body: bytes, raw: str | None) -> tuple[bytes, dict[str, bytes]]:
    """The file's own bytes and, for a projector config, the files it names: `parts` is a JSON list of [path,
    length] of those files, which follow the config in the body."""
    if raw is None:
        return body, {}
    try:
        listed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        listed = None
    if not isinstance(listed, list) or not all(
        isinstance(item, list)
        and len(item) == 2
        and isinstance(item[0], str)
        and isinstance(item[1], int)
        and 0 <= item[1] <= len(body)
        for item in listed
    ):
        raise InvalidArgumentError("query parameter 'parts' must be a JSON list of [path, length]")
    start = len(body) - sum(length for _, length in listed)
    if start < 0:
        raise InvalidArgumentError("query parameter 'parts' names more bytes than the body holds")
    named: dict[str, bytes] = {}
    position = start
    for path, length in listed:
        named[_relative_path(path, "part")] = body[position : position + length]
        position += length
    return body[:start], named
