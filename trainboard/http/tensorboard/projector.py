"""Handlers of TensorBoard's embedding projector plugin."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from trainboard.analysis.projections import METHODS
from trainboard.errors import BadRequestError
from trainboard.http import params
from trainboard.http.context import ServedExperiment, experiment
from trainboard.http.openapi import BYTES, RUN, TAG, TEXT, declare, integer, text
from trainboard.http.responses import BytesResponse, JSONResponse, TextResponse
from trainboard.plugins import projector
from trainboard.plugins.images import MEDIA_TYPES as images_media_types
from trainboard.plugins.images import media_type as images_media_type
from trainboard.plugins.tsvis import projector as tsvis_projector

NAME = text("name", required=True)
NUM_ROWS = integer("num_rows", minimum=1)


def run_configs(found: ServedExperiment) -> dict[str, projector.RunConfig]:
    return projector.configs(found.provider, found.id)


def is_active(found: ServedExperiment) -> bool:
    """Whether any run has a projector config with embeddings (asked by every plugins listing)."""
    return bool(run_configs(found))


def _config(request: Request) -> tuple[projector.RunConfig, ServedExperiment]:
    """The config of the run the request names, and the experiment that holds its files."""
    run = params.optional(request.query_params, "run")
    if run is None:
        raise BadRequestError('query parameter "run" is required')
    where = experiment(request)
    found = run_configs(where).get(run)
    if found is None:
        raise BadRequestError(f'Unknown run: "{run}"')
    return found, where


def _name(request: Request) -> str:
    name = params.optional(request.query_params, "name")
    if name is None:
        raise BadRequestError('query parameter "name" is required')
    return name


def _num_rows(request: Request) -> int | None:
    raw = request.query_params.get("num_rows")
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        raise BadRequestError("query parameter num_rows must be integer > 0")
    return value


@declare("The runs with a projector config")
async def runs(request: Request) -> JSONResponse:
    found = experiment(request)
    return JSONResponse(list(await run_in_threadpool(run_configs, found)))


@declare("The projector config of a run", RUN)
def info(request: Request) -> Response:
    found, _ = _config(request)
    return Response(projector.info(found), media_type="application/json")


@declare("An embedding tensor as float32 bytes", RUN, NAME, NUM_ROWS, returns=BYTES)
def tensor(request: Request) -> BytesResponse:
    found, where = _config(request)
    name = _name(request)
    num_rows = _num_rows(request)
    embedding = projector.embedding(found, name)
    if embedding is None or not embedding.tensor_path:
        raise BadRequestError(f'Tensor "{name}" not found in checkpoint dir "{found.config.model_checkpoint_path}"')
    rows = projector.read_tensor(where.provider, where.id, found, embedding)
    if num_rows:
        rows = rows[:num_rows]
    return BytesResponse(rows.astype("<f4", copy=False).tobytes(), "application/octet-stream")


@declare("The metadata of an embedding, as TSV", RUN, NAME, NUM_ROWS, returns=TEXT)
def metadata(request: Request) -> TextResponse:
    found, where = _config(request)
    name = _name(request)
    num_rows = _num_rows(request)
    embedding = projector.embedding(found, name)
    if embedding is None or not embedding.metadata_path:
        raise BadRequestError(f'No metadata file found for tensor "{name}" in the config file "{found.path}"')
    data = projector.read_file(where.provider, where.id, found, embedding.metadata_path)
    return TextResponse(projector.metadata_text(data, num_rows))


@declare("The bookmarks of an embedding", RUN, NAME)
def bookmarks(request: Request) -> BytesResponse:
    found, where = _config(request)
    name = _name(request)
    embedding = projector.embedding(found, name)
    if embedding is None or not embedding.bookmarks_path:
        raise BadRequestError(f'No bookmarks file found for tensor "{name}" in the config file "{found.path}"')
    return BytesResponse(
        projector.read_file(where.provider, where.id, found, embedding.bookmarks_path), "application/json"
    )


@declare("The sprite image of an embedding", RUN, NAME, returns=images_media_types)
def sprite_image(request: Request) -> BytesResponse:
    found, where = _config(request)
    name = _name(request)
    embedding = projector.embedding(found, name)
    if embedding is None or not embedding.sprite.image_path:
        raise BadRequestError(f'No sprite image file found for tensor "{name}" in the config file "{found.path}"')
    data = projector.read_file(where.provider, where.id, found, embedding.sprite.image_path)
    return BytesResponse(data, images_media_type(data))


@declare(
    "An embedding projected by the server",
    RUN,
    TAG,
    integer("step", minimum=0),
    text("method", required=True, enum=METHODS),
    integer("dims", minimum=2, maximum=3),
)
async def projection(request: Request) -> JSONResponse:
    """trainboard's own: an embedding (of TS-VIS records or projector files, named as TS-VIS names it) projected on the
    server, `{"points": [[x, y(, z)]...], "labels": [...]}`, as /api/projector_data answers."""
    query, found = request.query_params, experiment(request)
    where = (params.required(query, "run"), params.required(query, "tag"), params.integer(query, "step", 0) or 0)
    method, dims = params.required(query, "method"), params.integer(query, "dims", 2) or 2
    configs = run_configs(found)
    points, labels = await run_in_threadpool(
        tsvis_projector.projection,
        found.provider,
        found.id,
        configs,
        where,
        method,
        dims,
        found.projections,
        found.max_projection_points,
    )
    return JSONResponse({"points": points, "labels": labels})
