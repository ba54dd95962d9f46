"""TS-VIS's own web UI, unmodified, from the installed `tsvis` package (found without importing it), against
trainboard's /api. Its files name themselves by absolute paths (/static/...), so it is served at the root only."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute
from starlette.staticfiles import StaticFiles

from trainboard.http.openapi import HTML, declare
from trainboard.http.policies import Policy, PolicyMount, PolicyRoute
from trainboard.http.responses import SECURITY_HEADERS
from trainboard.http.ui.csp import CONTENT_SECURITY_POLICY

MISSING = (
    "--ui tsvis serves the web UI of the tsvis package, which is not installed: pip install --no-deps tsvis==0.4.2"
)


class TsvisMissingError(RuntimeError):
    """--ui tsvis without the tsvis package."""


def frontend_directory() -> Path | None:
    """The installed tsvis package's built UI (server/frontend, with index.html and static/)."""
    spec = importlib.util.find_spec("tsvis")
    for place in (spec.submodule_search_locations or []) if spec else []:
        frontend = Path(place) / "server" / "frontend"
        if (frontend / "index.html").is_file() and (frontend / "static").is_dir():
            return frontend
    return None


def routes() -> list[BaseRoute]:
    frontend = frontend_directory()
    if frontend is None:
        raise TsvisMissingError(MISSING)

    @declare("TS-VIS's web UI", returns=HTML)
    async def index(request: Request) -> Response:
        headers = {**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY}
        return FileResponse(frontend / "index.html", media_type="text/html", headers=headers)

    # TS-VIS's page cannot sign anyone in: it needs the role, as its API does.
    return [
        PolicyRoute("/", index, Policy.READ),
        PolicyMount("/static", StaticFiles(directory=frontend / "static"), Policy.READ),
    ]
