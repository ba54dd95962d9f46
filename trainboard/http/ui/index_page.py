"""trainboard's own web UI at / (the default --ui): the single-page app built from frontend/ into app/, which talks
to the TensorBoard API by relative URLs, so it works under --path_prefix too. Its files are read once and served with
TensorBoard's headers (the Content-Security-Policy on the page).

The page tells the app whether the request may read an experiment where it is served (its meta tag
`trainboard-experiment`), and preloads that experiment's start-up requests only then: the app shows that experiment's
dashboards, else the sign-in page or the experiments page, without asking for what it would be refused.

Where the server is exposed (`trainboard.http.exposure`), the page carries a banner saying so: a style in its head
that the app's rendering of the body leaves in place."""

from __future__ import annotations

import functools
import mimetypes
import re
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from trainboard.access.accounts import Accounts
from trainboard.errors import NotFoundError
from trainboard.http.context import DEFAULT_EXPERIMENT_IDS, Experiments
from trainboard.http.exposure import exposure_warnings
from trainboard.http.guard import principal_of
from trainboard.http.openapi import HTML, declare, text
from trainboard.http.policies import Policy, PolicyRoute
from trainboard.http.responses import SECURITY_HEADERS
from trainboard.http.ui.csp import CONTENT_SECURITY_POLICY

APP = Path(__file__).parent / "app"
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}
READABLE = b'<meta name="trainboard-experiment" content="readable" />'
PRELOAD = re.compile(rb'\n *<link rel="preload" [^>]*>')
HEAD_END = b"</head>"
BANNER_STYLE = (
    "body::before{{content:{text};display:block;white-space:pre-line;padding:8px 16px;background:#b3261e;"
    "color:#fff;font:600 14px/1.4 system-ui,sans-serif}}"
)


@functools.cache
def _file(path: Path) -> bytes:
    return path.read_bytes()


@functools.cache
def _page(readable: bool, preload: bool, warnings: tuple[str, ...] = ()) -> bytes:
    page = _file(APP / "index.html")
    if not readable:
        page = page.replace(READABLE, READABLE.replace(b'"readable"', b'""'))
    if warnings:
        page = page.replace(HEAD_END, _banner(warnings) + HEAD_END, 1)
    return page if preload else PRELOAD.sub(b"", page)


def _banner(warnings: tuple[str, ...]) -> bytes:
    """A style showing the warnings above whatever the app draws; every character but plain ones escaped as CSS
    escapes, so that no text can end the string or the style element."""
    text = "\n".join(f"Warning: {warning}." for warning in warnings)
    escaped = "".join(char if char.isalnum() or char in " .,:-()_" else f"\\{ord(char):x} " for char in text)
    style = BANNER_STYLE.format(text='"' + escaped + '"')
    return f"<style>{style}</style>\n".encode()


def _media_type(path: Path) -> str:
    return MEDIA_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def _readable(request: Request) -> bool:
    """Whether the request may read the experiment the page is served for (at /, the app's default one)."""
    experiments: Experiments = request.app.state.experiments
    accounts: Accounts | None = request.app.state.accounts
    experiment_id: str | None = request.path_params.get("experiment_id", "")
    if experiment_id in DEFAULT_EXPERIMENT_IDS:
        experiment_id = experiments.default
    if experiment_id is None:
        return False
    if accounts is not None:
        return accounts.role(principal_of(request), experiment_id) is not None
    try:
        experiments.get(experiment_id)
    except NotFoundError:
        return False
    return True


@declare("trainboard's web UI", text("experiments"), returns=HTML)
def index(request: Request) -> Response:
    headers = {**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY}
    readable = _readable(request)
    # At / of an app with a default experiment, ?experiments asks for the experiments page: nothing to preload.
    warnings = exposure_warnings(request.app.state.settings)
    page = _page(readable, readable and "experiments" not in request.query_params, warnings)
    return Response(page, media_type="text/html; charset=utf-8", headers=headers)


def _asset(path: Path) -> PolicyRoute:
    @declare("A file of trainboard's web UI", returns=_media_type(path))
    def serve(request: Request) -> Response:
        return Response(_file(path), media_type=_media_type(path), headers=SECURITY_HEADERS)

    return PolicyRoute("/" + path.relative_to(APP).as_posix(), serve, Policy.ANYONE)


def routes() -> list[BaseRoute]:
    """The page at / and /index.html, and each built asset at its own path. Anyone may load them: they hold no data,
    and the page signs a visitor in."""
    assets = sorted(path for path in APP.rglob("*") if path.is_file() and path.name != "index.html")
    pages = [PolicyRoute(path, index, Policy.ANYONE) for path in ("/", "/index.html")]
    return [*pages, *(_asset(path) for path in assets)]
