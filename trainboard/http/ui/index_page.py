"""trainboard's page at / until its own UI exists: every run with its tags by dashboard, and ingest progress."""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Route

from trainboard.http.context import experiment
from trainboard.http.responses import SECURITY_HEADERS
from trainboard.http.ui.csp import CONTENT_SECURITY_POLICY
from trainboard.plugins import core

# Dashboards whose tags are listed, with the provider listing that holds them.
LISTINGS = (
    ("scalars", "list_scalars"),
    ("histograms", "list_tensors"),
    ("images", "list_blob_sequences"),
    ("audio", "list_blob_sequences"),
    ("text", "list_tensors"),
    ("pr_curves", "list_tensors"),
)


def index(request: Request) -> HTMLResponse:
    found = experiment(request)
    provider = found.provider
    tags: dict[str, dict[str, list[str]]] = {}
    for plugin, listing in LISTINGS:
        for run, by_tag in getattr(provider, listing)(plugin_name=plugin).items():
            tags.setdefault(run, {})[plugin] = sorted(by_tag)
    progress = found.progress.as_json()
    state = "done" if progress["done"] else "loading"
    rows = []
    for run in core.runs(provider):
        cells = "".join(
            f"<li><b>{escape(plugin)}</b>: {escape(', '.join(names))}</li>"
            for plugin, names in tags.get(run, {}).items()
        )
        rows.append(f"<section><h2>{escape(run)}</h2><ul>{cells}</ul></section>")
    title = escape(request.app.state.settings.window_title or "trainboard")
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}}h2{{font-size:1.1rem;margin-bottom:.2rem}}</style>
</head><body>
<h1>{title}</h1>
<p id="progress">ingest {state}: {progress["files_done"]}/{progress["files_total"]} files,
{progress["points"]:,} points. The API is at <code>/data/</code>;
<code>--ui tensorboard</code> serves TensorBoard's own UI.</p>
{"".join(rows) or "<p>No runs yet.</p>"}
</body></html>
"""
    return HTMLResponse(body, headers={**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY})


def routes() -> list[BaseRoute]:
    return [Route("/", index)]
