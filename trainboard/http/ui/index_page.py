"""trainboard's own web UI at / (the default --ui): the single-page app built from frontend/ into app/, which talks
to the TensorBoard API by relative URLs, so it works under --path_prefix too. Its files are read once and served with
TensorBoard's headers (the Content-Security-Policy on the page)."""

from __future__ import annotations

import functools
import mimetypes
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from trainboard.http.responses import SECURITY_HEADERS
from trainboard.http.ui.csp import CONTENT_SECURITY_POLICY

APP = Path(__file__).parent / "app"
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}


@functools.cache
def _file(path: Path) -> bytes:
    return path.read_bytes()


def _media_type(path: Path) -> str:
    return MEDIA_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def index(request: Request) -> Response:
    headers = {**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY}
    return Response(_file(APP / "index.html"), media_type="text/html; charset=utf-8", headers=headers)


def _asset(path: Path) -> Route:
    def serve(request: Request) -> Response:
        return Response(_file(path), media_type=_media_type(path), headers=SECURITY_HEADERS)

    return Route("/" + path.relative_to(APP).as_posix(), serve)


def routes() -> list[BaseRoute]:
    """The page at / and /index.html, and each built asset at its own path."""
    assets = sorted(path for path in APP.rglob("*") if path.is_file() and path.name != "index.html")
    return [Route("/", index), Route("/index.html", index), *(_asset(path) for path in assets)]
