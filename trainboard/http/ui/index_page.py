"""trainboard's page at / until its own UI exists: every run with its tags by plugin, and ingest progress."""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Route

from trainboard.http.context import experiment
from trainboard.http.responses import SECURITY_HEADERS
from trainboard.http.ui.csp import CONTENT_SECURITY_POLICY
from trainboard.plugins import core
from trainboard.provider.provider import DataProvider

# While ingest goes on, the page reloads itself this often (a meta refresh: the CSP allows no inline script).
REFRESH_SECONDS = 2
STYLE = "body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}h2{font-size:1.1rem;margin-bottom:.2rem}"


def tags_by_plugin(provider: DataProvider) -> dict[str, dict[str, list[str]]]:
    """Run -> plugin -> tag names, over every plugin with data and every kind of series."""
    tags: dict[str, dict[str, set[str]]] = {}
    for plugin in provider.list_plugins():
        for listing in (provider.list_scalars, provider.list_tensors, provider.list_blob_sequences):
            for run, by_tag in listing(plugin_name=plugin).items():
                tags.setdefault(run, {}).setdefault(plugin, set()).update(by_tag)
    return {run: {plugin: sorted(names) for plugin, names in plugins.items()} for run, plugins in tags.items()}


def index(request: Request) -> HTMLResponse:
    found = experiment(request)
    tags = tags_by_plugin(found.provider)
    progress = found.progress.as_json()
    sections = []
    for run in core.runs(found.provider):
        items = "".join(
            f"<li><b>{escape(plugin)}</b>: {escape(', '.join(names))}</li>"
            for plugin, names in tags.get(run, {}).items()
        )
        sections.append(f"<section><h2>{escape(run)}</h2><ul>{items}</ul></section>")
    title = escape(request.app.state.settings.window_title or "trainboard")
    refresh = "" if progress["done"] else f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">'
    state = "done" if progress["done"] else "loading"
    files = f"{progress['files_done']}/{progress['files_total']} files"
    volume = f"{progress['bytes_read']:,}/{progress['bytes_total']:,} bytes, {progress['points']:,} points"
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">{refresh}<title>{title}</title><style>{STYLE}</style></head><body>
<h1>{title}</h1>
<p id="progress">ingest {state}: {files}, {volume} (<a href="data/ingest_progress">data/ingest_progress</a>).</p>
<p>trainboard serves TensorBoard's HTTP API at <code>data/</code>; <code>--ui tensorboard</code> serves TensorBoard's
own web UI here instead.</p>
{"".join(sections) or "<p>No runs yet.</p>"}
</body></html>
"""
    return HTMLResponse(body, headers={**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY})


def routes() -> list[BaseRoute]:
    return [Route("/", index)]
