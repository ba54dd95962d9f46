"""The OpenAPI document of an app, served at /openapi.json: built from the routes the app serves, each endpoint
declaring beside it (`declare`) what it takes: its query parameters with their types and bounds, and its body.

A route reached by several paths (at /, under /experiment/<id>/, below .../at/<pin>/) is in the document at each of
them. An endpoint without a declaration is an error when the document is built, so a new route cannot be left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.staticfiles import StaticFiles

from trainboard.http.lazy import LazyEndpoint
from trainboard.http.params import MAX_PARAM_LENGTH
from trainboard.http.responses import JSONResponse
from trainboard.version import __version__

Schema = Mapping[str, Any]
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])
ATTRIBUTE = "openapi_declaration"
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
TEXT = "text/plain"
BYTES = "application/octet-stream"
HTML = "text/html"
CSV = "text/csv"
JSON_OR_CSV = (JSON, CSV)
INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}


@dataclass(frozen=True, slots=True)
class Parameter:
    """A query parameter."""

    name: str
    schema: Schema
    required: bool = False
    # The value is a JSON document of the schema.
    json: bool = False

    def as_json(self) -> dict[str, Any]:
        found = {"name": self.name, "in": "query", "required": self.required}
        if self.json:
            return {**found, "content": {JSON: {"schema": dict(self.schema)}}}
        return {**found, "schema": dict(self.schema)}


def text(
    name: str, *, required: bool = False, enum: tuple[str, ...] = (), max_length: int = MAX_PARAM_LENGTH
) -> Parameter:
    schema: Schema = {"type": "string", "enum": list(enum)} if enum else {"type": "string", "maxLength": max_length}
    return Parameter(name, schema, required)


def integer(name: str, *, required: bool = False, minimum: int = -(2**63), maximum: int = 2**63 - 1) -> Parameter:
    return Parameter(name, {"type": "integer", "minimum": minimum, "maximum": maximum}, required)


def repeated(name: str, *, required: bool = False) -> Parameter:
    """A parameter given any number of times (`?run=a&run=b`)."""
    return Parameter(name, {"type": "array", "items": {"type": "string", "maxLength": MAX_PARAM_LENGTH}}, required)


def number(name: str, *, required: bool = False) -> Parameter:
    return Parameter(name, {"type": "number"}, required)


def boolean(name: str) -> Parameter:
    return Parameter(name, {"type": "string", "enum": ["true", "false"]})


def json_text(name: str, schema: Schema, *, required: bool = False) -> Parameter:
    """A parameter holding a JSON document (TensorBoard's `?request=`, `?requests=`)."""
    return Parameter(name, schema, required, json=True)


# The parameters most routes take.
RUN = text("run", required=True)
TAG = text("tag", required=True)
SAMPLE = integer("sample", minimum=0)
# A form field given any number of times.
FORM_ARRAY: Schema = {"type": "array", "items": {"type": "string"}}


@dataclass(frozen=True, slots=True)
class Body:
    """A request body of one media type."""

    media_type: str
    schema: Schema = field(default_factory=dict)


def form_of(*query: Parameter) -> Body:
    """A form body that carries the query's parameters: the same route by POST, for values too long for a URL."""
    return form_body(**{parameter.name: parameter.schema for parameter in query})


def json_body(schema: Schema) -> Body:
    return Body(JSON, schema)


def form_body(**fields: Schema) -> Body:
    return Body(FORM, {"type": "object", "properties": {name: dict(s) for name, s in fields.items()}})


@dataclass(frozen=True, slots=True)
class Declaration:
    summary: str
    query: tuple[Parameter, ...]
    body: Body | None
    # The media types of its answers.
    returns: tuple[str, ...]


def declare(
    summary: str, *query: Parameter, body: Body | None = None, returns: str | tuple[str, ...] = JSON
) -> Callable[[Endpoint], Endpoint]:
    """Mark an endpoint with what it takes and the media types it answers with (on success)."""
    media_types = (returns,) if isinstance(returns, str) else returns

    def mark(endpoint: Endpoint) -> Endpoint:
        setattr(endpoint, ATTRIBUTE, Declaration(summary, query, body, media_types))
        return endpoint

    return mark


def declaration_of(endpoint: object) -> Declaration | None:
    found = getattr(endpoint, ATTRIBUTE, None)
    return found if isinstance(found, Declaration) else None


# Building the document from the app's routes.


@dataclass(frozen=True, slots=True)
class Operation:
    path: str
    method: str
    declaration: Declaration


def operations(routes: list[BaseRoute], prefix: str = "") -> Iterator[Operation]:
    """Every operation the routes serve, by their full paths; `ValueError` for an endpoint without a declaration."""
    for route in routes:
        if isinstance(route, Route):
            # A handler imported on its first request is imported now.
            endpoint = route.endpoint.handler if isinstance(route.endpoint, LazyEndpoint) else route.endpoint
            found = declaration_of(endpoint)
            if found is None:
                raise ValueError(f"route {prefix + route.path} has no OpenAPI declaration (trainboard.http.openapi)")
            for method in sorted((route.methods or {"GET"}) - {"HEAD"}):
                yield Operation(prefix + route.path, method, found)
        elif isinstance(route, Mount):
            yield from _mounted(route, prefix + route.path)


def _mounted(mount: Mount, path: str) -> Iterator[Operation]:
    if isinstance(mount.app, Router):
        yield from operations(mount.routes, path)
        return
    app = mount.app
    # Below the guard and the pin check, the app the mount serves.
    while not isinstance(app, StaticFiles) and hasattr(app, "app"):
        app = app.app
    if not isinstance(app, StaticFiles):
        raise ValueError(f"mount {path} serves {type(app).__name__}, which the OpenAPI document does not know")
    files = Declaration("A file of the web UI's built files", (), None, (BYTES,))
    # {path}: a file's path below the folder, slashes and all.
    yield Operation(path + "/{path}", "GET", files)


def document(routes: list[BaseRoute]) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the routes."""
    paths: dict[str, dict[str, Any]] = {}
    for operation in operations(routes):
        paths.setdefault(operation.path, {})[operation.method.lower()] = _operation_json(operation)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "trainboard",
            "version": __version__,
            "description": "TensorBoard's HTTP API, TS-VIS's API and trainboard's own routes.",
        },
        "paths": paths,
    }


def _operation_json(operation: Operation) -> dict[str, Any]:
    declared = operation.declaration
    in_path = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
        for name in _path_parameters(operation.path)
    ]
    found: dict[str, Any] = {
        "summary": declared.summary,
        "parameters": [*in_path, *(p.as_json() for p in declared.query)],
        "responses": {
            "200": {"description": "The answer", "content": dict.fromkeys(declared.returns, {})},
            "default": {"description": "A refusal: 4xx with a message naming what is wrong"},
        },
    }
    if declared.body is not None:
        found["requestBody"] = {
            "required": True,
            "content": {declared.body.media_type: {"schema": dict(declared.body.schema)}},
        }
    return found


def _path_parameters(path: str) -> list[str]:
    return [part[1:-1].split(":")[0] for part in path.split("/") if part.startswith("{") and part.endswith("}")]


@declare("This OpenAPI document: every route this server serves")
async def openapi_json(request: Request) -> JSONResponse:
    found: dict[str, Any] | None = getattr(request.app.state, "openapi", None)
    if found is None:
        found = document(request.app.routes)
        request.app.state.openapi = found
    return JSONResponse(found)
