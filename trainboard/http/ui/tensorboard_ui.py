"""TensorBoard's own web UI, unmodified, from the installed `tensorboard` package's webfiles.zip, against trainboard's
API: index.html with TensorBoard's relative-root preamble and CSP, every other asset as it is in the zip."""

from __future__ import annotations

import importlib.util
import mimetypes
import zipfile
from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from trainboard.http.responses import SECURITY_HEADERS, JSONResponse
from trainboard.http.ui.csp import CONTENT_SECURITY_POLICY


class TensorBoardMissingError(RuntimeError):
    pass


def webfiles() -> dict[str, bytes]:
    """The UI's files by path, read from the installed tensorboard package."""
    spec = importlib.util.find_spec("tensorboard")
    locations = list(spec.submodule_search_locations or []) if spec else []
    archive = next(
        (Path(place) / "webfiles.zip" for place in locations if (Path(place) / "webfiles.zip").is_file()), None
    )
    if archive is None:
        raise TensorBoardMissingError("--ui tensorboard needs the tensorboard package: pip install tensorboard")
    with zipfile.ZipFile(archive) as files:
        return {name: files.read(name) for name in files.namelist() if not name.endswith("/")}


def routes(path_prefix: str) -> list[BaseRoute]:
    files = webfiles()
    index = files.pop("index.html")

    # TensorBoard's UI finds its API relative to this root: the page's own directory, under any path prefix.
    preamble = b'<!doctype html><meta name="tb-relative-root" content="./">'

    def serve_index(request: Request) -> Response:
        headers = {**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY}
        return Response(preamble + index, media_type="text/html", headers=headers)

    def asset(path: str, content: bytes) -> Route:
        media_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
        return Route("/" + path, lambda request: Response(content, media_type=media_type, headers=SECURITY_HEADERS))

    def window_properties(request: Request) -> JSONResponse:
        return JSONResponse({"window_title": request.app.state.settings.window_title})

    def to_index(request: Request) -> RedirectResponse:
        return RedirectResponse("/" + path_prefix.strip("/"))

    return [
        Route("/", serve_index),
        Route("/index.html", serve_index),
        Route("/data/window_properties", window_properties),
        *(Route(f"/{name}", to_index) for name in ("events", "graphs", "histograms", "images")),
        *(asset(path, content) for path, content in files.items()),
    ]
