"""TensorBoard's original HTTP API (seed 000), answered from the same store as the plugin routes.

Histograms there are TensorFlow's HistogramProto ([min, max, num, sum, sum_squares, bucket_limit, bucket]); the store
keeps TensorBoard's normalised buckets [left, right, count], so `sum` and `sum_squares` are estimated from bucket
centres (exact for buckets of one value, as tensorboardX's and TF2's fine buckets nearly are).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import numpy as np

from trainboard.errors import InvalidArgumentError
from trainboard.plugins import audio, distributions, histograms, images, scalars
from trainboard.plugins.series import blob_sequences
from trainboard.provider.provider import DataProvider

DEFAULT_SAMPLE_COUNT = 10


def all_scalars(
    provider: DataProvider, experiment_id: str, sample_count: int
) -> dict[str, dict[str, list[scalars.Row]]]:
    """Every scalar series, each sampled evenly to `sample_count` points keeping the first and last."""
    if sample_count < 2:
        raise InvalidArgumentError(f"sample_count must be at least 2, not {sample_count}")
    found = provider.read_scalars(experiment_id=experiment_id, plugin_name=scalars.PLUGIN_NAME, downsample=sample_count)
    return {
        run: {tag: [(d.wall_time, d.step, d.value) for d in series] for tag, series in by_tag.items()}
        for run, by_tag in found.items()
    }


def histogram_protos(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, samples: int | None
) -> list[list[Any]]:
    return [
        [wall_time, step, _histogram_proto(buckets)]
        for wall_time, step, buckets in histograms.histograms(
            provider, experiment_id, run=run, tag=tag, samples=samples
        )
    ]


def _histogram_proto(buckets: list[list[float]]) -> list[Any]:
    if not buckets:
        return [0.0, 0.0, 0.0, 0.0, 0.0, [], []]
    table = np.asarray(buckets, dtype=np.float64)
    centres = (table[:, 0] + table[:, 1]) / 2
    counts = table[:, 2]
    return [
        float(table[0, 0]),
        float(table[-1, 1]),
        float(counts.sum()),
        float((centres * counts).sum()),
        float((centres * centres * counts).sum()),
        table[:, 1].tolist(),
        counts.tolist(),
    ]


def compressed_histograms(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, samples: int | None
) -> list[list[Any]]:
    return distributions.distributions(provider, experiment_id, run=run, tag=tag, samples=samples)


def image_metadata(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, samples: int | None
) -> list[dict[str, Any]]:
    """The first image of each step, with its size and the query that fetches it from /data/individualImage."""
    points = blob_sequences(
        provider,
        experiment_id,
        images.PLUGIN_NAME,
        run,
        tag,
        downsample=samples,
        not_found=f"No image data for run={run!r}, tag={tag!r}",
    )
    result = []
    for datum in points:
        if len(datum.values) < 3:
            continue
        width, height = (
            _integer(provider.read_blob(experiment_id=experiment_id, blob_key=value.blob_key))
            for value in datum.values[:2]
        )
        result.append(
            {
                "width": width,
                "height": height,
                "wall_time": datum.wall_time,
                "step": datum.step,
                "query": urlencode({"blob_key": datum.values[2].blob_key}),
            }
        )
    return result


def _integer(data: bytes) -> int:
    try:
        return int(data)
    except ValueError:
        return 0


def audio_metadata(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, samples: int | None
) -> list[dict[str, Any]]:
    """The first clip of each step, with the query that fetches it from /data/individualAudio."""
    return [
        {key: entry[key] for key in ("wall_time", "step", "query")} | {"content_type": entry["contentType"]}
        for entry in audio.audio(provider, experiment_id, run=run, tag=tag, sample=0, samples=samples)
    ]
