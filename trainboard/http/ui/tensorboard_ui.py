"""TensorBoard's own web UI, unmodified, from the installed `tensorboard` package's webfiles.zip, against trainboard's
API. Served as TensorBoard serves it: index.html behind a preamble that tells the UI where the API is, with
TensorBoard's Content-Security-Policy; every other file of the zip at its own path, gzipped, and cached for a day when
it is JavaScript asked for by its `_file_hash`."""

from __future__ import annotations

import functools
import gzip
import importlib.util
import mimetypes
import time
import zipfile
from email.utils import formatdate
from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from trainboard.http.responses import SECURITY_HEADERS
from trainboard.http.ui.csp import CONTENT_SECURITY_POLICY

ARCHIVE = "webfiles.zip"
MISSING = (
    "--ui tensorboard serves the web UI of the tensorboard package, which is not installed: pip install tensorboard"
)
# The UI finds the API relative to this root: the page's own directory, which is the path prefix.
PREAMBLE = b'<!doctype html><meta name="tb-relative-root" content="./">'
JS_MEDIA_TYPES = ("text/javascript", "application/javascript")
JS_CACHE_SECONDS = 86400
# Dashboard paths of old TensorBoard versions, which TensorBoard sends to its UI.
OLD_PAGES = ("audio", "events", "graphs", "histograms", "images")


class TensorBoardMissingError(RuntimeError):
    """--ui tensorboard without the tensorboard package."""


def webfiles_zip() -> Path | None:
    """The installed tensorboard package's webfiles.zip, found without importing the package."""
    spec = importlib.util.find_spec("tensorboard")
    for place in (spec.submodule_search_locations or []) if spec else []:
        if (Path(place) / ARCHIVE).is_file():
            return Path(place) / ARCHIVE
    return None


def routes(path_prefix: str) -> list[BaseRoute]:
    """index.html at / and every file of the zip; each is read and gzipped on its first request, then kept."""
    archive = webfiles_zip()
    if archive is None:
        raise TensorBoardMissingError(MISSING)
    with zipfile.ZipFile(archive) as files:
        names = [name for name in files.namelist() if not name.endswith("/")]
    prefix = path_prefix.strip("/")
    root = f"/{prefix}/" if prefix else "/"

    @functools.cache
    def gzipped(name: str) -> bytes:
        with zipfile.ZipFile(archive) as files:
            content = files.read(name)
        return gzip.compress(PREAMBLE + content if name == "index.html" else content, compresslevel=3, mtime=0)

    def respond(request: Request, name: str, media_type: str, headers: dict[str, str]) -> Response:
        body = gzipped(name)
        if "gzip" not in request.headers.get("accept-encoding", ""):
            return Response(gzip.decompress(body), media_type=media_type, headers=headers)
        return Response(body, media_type=media_type, headers={**headers, "Content-Encoding": "gzip"})

    def index(request: Request) -> Response:
        headers = {**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY, "Vary": "Accept-Encoding"}
        return respond(request, "index.html", "text/html", headers)

    def asset(name: str) -> Route:
        media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"

        def serve(request: Request) -> Response:
            headers = {**SECURITY_HEADERS, "Vary": "Accept-Encoding"}
            if media_type in JS_MEDIA_TYPES and request.query_params.get("_file_hash"):
                expires = formatdate(time.time() + JS_CACHE_SECONDS, usegmt=True)
                headers |= {"Expires": expires, "Cache-Control": f"private, max-age={JS_CACHE_SECONDS}"}
            return respond(request, name, media_type, headers)

        return Route("/" + name, serve)

    def to_index(request: Request) -> RedirectResponse:
        return RedirectResponse(root, status_code=302, headers=SECURITY_HEADERS)

    return [
        Route("/", index),
        Route("/index.html", index),
        *(Route(f"/{page}", to_index) for page in OLD_PAGES),
        *(asset(name) for name in names if name != "index.html"),
    ]
