"""The text dashboard: string tensors rendered as sanitised HTML (markdown by default, tables for 1-D and 2-D)."""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from trainboard.plugins.markdown import markdown_to_safe_html, markdowns_to_safe_html, safe_html
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter

PLUGIN_NAME = "text"
DEFAULT_SAMPLES = 100
HIGH_RANK_WARNING = (
    "**Warning:** This text summary contained data of dimensionality %d, but only 2d tables are supported. "
    "Showing a 2d slice of the data instead."
)


def tags(provider: DataProvider, experiment_id: str) -> dict[str, list[str]]:
    return {
        run: list(by_tag)
        for run, by_tag in provider.list_tensors(experiment_id=experiment_id, plugin_name=PLUGIN_NAME).items()
    }


def text(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, markdown: bool, samples: int | None
) -> list[dict[str, Any]]:
    found = provider.read_tensors(
        experiment_id=experiment_id,
        plugin_name=PLUGIN_NAME,
        downsample=samples,
        run_tag_filter=RunTagFilter.of([run], [tag]),
    )
    return [
        {"wall_time": datum.wall_time, "step": datum.step, "text": to_html(datum.numpy, markdown=markdown)}
        for datum in found.get(run, {}).get(tag, [])
    ]


def to_html(strings: np.ndarray, *, markdown: bool) -> str:
    """A scalar string as one document; an array as a table of its cells (the first 2-D slice of a higher rank)."""
    if not strings.shape:
        return markdown_to_safe_html(strings.item()) if markdown else safe_html(_escaped(strings.item()))
    warning = ""
    if strings.ndim > 2:
        warning = markdown_to_safe_html(HIGH_RANK_WARNING % strings.ndim)
        strings = strings[(0,) * (strings.ndim - 2)]
    shape = strings.shape
    if markdown:
        table = markdowns_to_safe_html(list(strings.reshape(-1)), lambda cells: _table(cells, shape))
    else:
        table = safe_html(_table([_escaped(cell) for cell in strings.reshape(-1)], shape))
    return warning + table


def _table(cells: list[str], shape: tuple[int, ...]) -> str:
    columns = shape[1] if len(shape) == 2 else 1
    rows = [cells[i : i + columns] for i in range(0, len(cells), columns)]
    body = "".join("<tr>\n" + "".join(f"<td>{cell}</td>\n" for cell in row) + "</tr>\n" for row in rows)
    return f"<table>\n<tbody>\n{body}</tbody>\n</table>"


def _escaped(value: str | bytes) -> str:
    """Plain text as HTML text: markup in it shows as written."""
    return html.escape(value.decode("utf-8") if isinstance(value, bytes) else value, quote=False)
