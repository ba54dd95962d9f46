"""The custom scalars dashboard: the layouts runs wrote, merged, and scalars of a run by tag regular expression.

User regular expressions run on RE2 within the bounds of trainboard.plugins.regex, so no pattern can hang the server.
"""

from __future__ import annotations

from typing import Any

from trainboard.plugins import regex, scalars
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter
from trainboard.reader.protos.layout_pb2 import Category, Layout
from trainboard.reader.protos.versions import to_dict_with_defaults

PLUGIN_NAME = "custom_scalars"
CONFIG_TAG = "custom_scalars__config__"


def layout(provider: DataProvider, experiment_id: str) -> dict[str, Any]:
    """Every run's layout merged in run order: categories of the same title pool their charts, without repeats."""
    found = provider.read_tensors(
        experiment_id=experiment_id,
        plugin_name=PLUGIN_NAME,
        downsample=1,
        run_tag_filter=RunTagFilter.of(tags=[CONFIG_TAG]),
    )
    merged: Layout | None = None
    by_title: dict[str, Category] = {}
    for run in sorted(found):
        points = found[run][CONFIG_TAG]
        if not points:
            continue
        one = Layout.FromString(points[0].numpy.item())
        if merged is None:
            merged = one
            by_title = {category.title: category for category in merged.category}
            continue
        for category in one.category:
            if category.title in by_title:
                known = by_title[category.title]
                known.chart.extend([chart for chart in category.chart if chart not in known.chart])
            else:
                added = merged.category.add()
                added.MergeFrom(category)
                by_title[category.title] = added
    if merged is None:
        return {}
    return to_dict_with_defaults(merged)


def scalars_by_regex(
    provider: DataProvider, experiment_id: str, *, run: str, tag_regex: str, samples: int | None
) -> dict[str, Any]:
    """Each scalar tag of `run` that `tag_regex` matches at its start, with its points; an invalid regex says so."""
    if not tag_regex:
        return {"regex_valid": False, "tag_to_events": {}}
    try:
        pattern = regex.compile_regex(tag_regex, name="query parameter 'tag'")
    except regex.error:
        return {"regex_valid": False, "tag_to_events": {}}
    listed = provider.list_scalars(
        experiment_id=experiment_id, plugin_name=scalars.PLUGIN_NAME, run_tag_filter=RunTagFilter.of(runs=[run])
    )
    payload = {
        tag: scalars.rows(scalars.scalars(provider, experiment_id, run=run, tag=tag, samples=samples))
        for tag in listed.get(run, {})
        if pattern.match(tag)
    }
    return {"regex_valid": True, "tag_to_events": payload}
