"""TensorBoard's own web UI, unmodified, from the installed `tensorboard` package's webfiles.zip, against trainboard's
API. Served as TensorBoard serves it: index.html behind a preamble that tells the UI where the API is, with
TensorBoard's Content-Security-Policy; every other file of the zip at its own path, gzipped, and cached for a day when
it is JavaScript asked for by its `_file_hash`. The projector, the one dashboard TensorBoard loads in an iframe, gets
TensorBoard's entry page (/data/plugin_entry.html?name=projector) and its files from the package's projector plugin."""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.util
import json
import mimetypes
import time
import zipfile
from email.utils import formatdate
from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

from trainboard.http.openapi import HTML, declare, text
from trainboard.http.policies import Policy, PolicyRoute
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
# The plugins whose dashboard TensorBoard loads as an ES module in an iframe, with the module's path below the plugin's
# routes, and where the package keeps the files served there.
MODULE_PLUGINS = {"projector": "/index.js"}
PROJECTOR_FILES = Path("plugins", "projector", "tf_projector_plugin")
PROJECTOR_ROUTE = "/data/plugin/projector/"
# Dashboard paths of old TensorBoard versions, which TensorBoard sends to its UI.
OLD_PAGES = ("audio", "events", "graphs", "histograms", "images")
# TensorBoard's page and files cannot sign anyone in: they need the role, as the API does.
READ = Policy.READ


class TensorBoardMissingError(RuntimeError):
    """--ui tensorboard without the tensorboard package."""


def package_file(relative: Path | str) -> Path | None:
    """A file of the installed tensorboard package, found without importing the package."""
    spec = importlib.util.find_spec("tensorboard")
    for place in (spec.submodule_search_locations or []) if spec else []:
        if (Path(place) / relative).is_file():
            return Path(place) / relative
    return None


def webfiles_zip() -> Path | None:
    return package_file(ARCHIVE)


@declare(
    "The page of a dashboard TensorBoard loads in an iframe",
    text("name", required=True, enum=tuple(MODULE_PLUGINS)),
    returns=HTML,
)
def plugin_entry(request: Request) -> Response:
    """The page TensorBoard's UI puts in an iframe for a module-loaded dashboard: it imports the module and renders
    it; the Content-Security-Policy allows that one inline script by its hash, as TensorBoard's does."""
    name = request.query_params.get("name")
    if name not in MODULE_PLUGINS:
        return Response("Not found" + (f": {name}" if name else ""), 404, SECURITY_HEADERS, "text/plain")
    script = f"import({json.dumps('.' + MODULE_PLUGINS[name])}).then((m) => void m.render());"
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    html = (
        f'\n<!DOCTYPE html>\n<head><base href="plugin/{name}/" /></head>\n'
        f'<body><script type="module">{script}</script></body>\n'
    )
    policy = f"{CONTENT_SECURITY_POLICY} 'sha256-{digest}'"
    return Response(html, media_type="text/html", headers={**SECURITY_HEADERS, "Content-Security-Policy": policy})


def projector_file(name: str) -> PolicyRoute:
    path = package_file(PROJECTOR_FILES / name)
    media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    # TensorBoard sends its policy with every HTML page.
    policy = {"Content-Security-Policy": CONTENT_SECURITY_POLICY} if media_type == "text/html" else {}

    @declare("A file of the projector dashboard", returns=media_type)
    def serve(request: Request) -> Response:
        if path is None:
            return Response("Not found", 404, SECURITY_HEADERS, "text/plain")
        return Response(path.read_bytes(), media_type=media_type, headers={**SECURITY_HEADERS, **policy})

    return PolicyRoute(PROJECTOR_ROUTE + name, serve, READ)


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

    @declare("TensorBoard's web UI", returns=HTML)
    def index(request: Request) -> Response:
        headers = {**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY, "Vary": "Accept-Encoding"}
        return respond(request, "index.html", "text/html", headers)

    def asset(name: str) -> PolicyRoute:
        media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"

        @declare("A file of TensorBoard's web UI", text("_file_hash"), returns=media_type)
        def serve(request: Request) -> Response:
            headers = {**SECURITY_HEADERS, "Vary": "Accept-Encoding"}
            if media_type in JS_MEDIA_TYPES and request.query_params.get("_file_hash"):
                expires = formatdate(time.time() + JS_CACHE_SECONDS, usegmt=True)
                headers |= {"Expires": expires, "Cache-Control": f"private, max-age={JS_CACHE_SECONDS}"}
            return respond(request, name, media_type, headers)

        return PolicyRoute("/" + name, serve, READ)

    @declare("An old dashboard path: a redirect to the UI", returns=HTML)
    def to_index(request: Request) -> RedirectResponse:
        return RedirectResponse(root, status_code=302, headers=SECURITY_HEADERS)

    return [
        PolicyRoute("/", index, READ),
        PolicyRoute("/index.html", index, READ),
        PolicyRoute("/data/plugin_entry.html", plugin_entry, READ),
        *(projector_file(name) for name in ("index.js", "projector_binary.html", "projector_binary.js")),
        *(PolicyRoute(f"/{page}", to_index, READ) for page in OLD_PAGES),
        *(asset(name) for name in names if name != "index.html"),
    ]
