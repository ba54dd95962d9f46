"""The audio dashboard: per step a blob sequence of clips (TensorBoard keeps the clips, not their labels)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from trainboard.errors import InvalidArgumentError, NotFoundError
from trainboard.plugins.markdown import markdown_to_safe_html
from trainboard.plugins.series import blob_sequences
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter
from trainboard.reader.protos.plugin_data_pb2 import AudioPluginData

PLUGIN_NAME = "audio"
DEFAULT_SAMPLES = 10
MEDIA_TYPES = {AudioPluginData.WAV: "audio/wav"}
DEFAULT_MEDIA_TYPE = "application/octet-stream"
ALLOWED_MEDIA_TYPES = frozenset([*MEDIA_TYPES.values(), DEFAULT_MEDIA_TYPE])


def tags(provider: DataProvider, experiment_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    return {
        run: {
            tag: {
                "displayName": series.display_name,
                "description": markdown_to_safe_html(series.description),
                "samples": series.max_length,
            }
            for tag, series in by_tag.items()
        }
        for run, by_tag in provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=PLUGIN_NAME).items()
    }


def audio(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, sample: int, samples: int | None
) -> list[dict[str, Any]]:
    missing = f"No audio data for run={run!r}, tag={tag!r}"
    filter_ = RunTagFilter.of([run], [tag])
    listing = (
        provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=PLUGIN_NAME, run_tag_filter=filter_)
        .get(run, {})
        .get(tag)
    )
    if listing is None:
        raise NotFoundError(missing)
    points = blob_sequences(provider, experiment_id, PLUGIN_NAME, run, tag, downsample=samples, not_found=missing)
    encoding = AudioPluginData.FromString(listing.plugin_content).encoding
    content_type = MEDIA_TYPES.get(encoding, DEFAULT_MEDIA_TYPE)
    return [
        {
            "wall_time": datum.wall_time,
            "label": "",
            "step": datum.step,
            "contentType": content_type,
            "query": urlencode({"blob_key": datum.values[sample].blob_key, "content_type": content_type}),
        }
        for datum in points
        if len(datum.values) > sample
    ]


def checked_media_type(content_type: str) -> str:
    if content_type not in ALLOWED_MEDIA_TYPES:
        raise InvalidArgumentError(f"Illegal mime type {content_type!r}")
    return content_type
