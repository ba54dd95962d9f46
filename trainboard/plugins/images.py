"""The images dashboard: per step a blob sequence [width, height, image...]; every image is kept."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from trainboard.plugins.markdown import markdown_to_safe_html
from trainboard.plugins.series import blob_sequences
from trainboard.provider.provider import DataProvider

PLUGIN_NAME = "images"
DEFAULT_SAMPLES = 10
# Magic bytes of the image formats a browser may show; anything else is served as opaque bytes.
IMAGE_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)
# What an image's blob is served as.
MEDIA_TYPES = (*dict.fromkeys(kind for _, kind in IMAGE_SIGNATURES), "application/octet-stream")


def tags(provider: DataProvider, experiment_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    return {
        run: {
            tag: {
                "displayName": series.display_name,
                "description": markdown_to_safe_html(series.description),
                "samples": series.max_length - 2,  # width and height come first
            }
            for tag, series in by_tag.items()
        }
        for run, by_tag in provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=PLUGIN_NAME).items()
    }


def images(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, sample: int, samples: int | None
) -> list[dict[str, Any]]:
    points = blob_sequences(
        provider,
        experiment_id,
        PLUGIN_NAME,
        run,
        tag,
        downsample=samples,
        not_found=f"No image data for run={run!r}, tag={tag!r}",
    )
    return [
        {
            "wall_time": datum.wall_time,
            "step": datum.step,
            "query": urlencode({"blob_key": datum.values[sample + 2].blob_key}),
        }
        for datum in points
        if len(datum.values) - 2 > sample
    ]


def media_type(data: bytes) -> str:
    for signature, kind in IMAGE_SIGNATURES:
        if data.startswith(signature):
            return kind
    return "application/octet-stream"
