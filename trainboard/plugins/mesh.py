"""The mesh dashboard: each user tag is stored as several instance tags (vertices, faces, colours), each a batch of
samples per step; the dashboard lists tags, their meshes' metadata, and fetches each part as raw typed bytes."""

from __future__ import annotations

from typing import Any

import numpy as np

from trainboard.errors import BadRequestError
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter, TensorDatum
from trainboard.reader.protos.plugin_data_pb2 import MeshPluginData

PLUGIN_NAME = "mesh"
DEFAULT_SAMPLES = 100
MAX_VERSION = 0
PART_TYPES: dict[int, str] = {MeshPluginData.VERTEX: "<f4", MeshPluginData.FACE: "<i4", MeshPluginData.COLOR: "u1"}
# Older writers leave `components` out: TensorBoard then takes all three parts as present.
ALL_COMPONENTS = sum(1 << part for part in PART_TYPES)


def parse_metadata(content: bytes) -> MeshPluginData:
    metadata = MeshPluginData.FromString(content)
    if metadata.components == 0:
        metadata.components = ALL_COMPONENTS
    return metadata


def tags(provider: DataProvider, experiment_id: str) -> dict[str, dict[str, dict[str, int]]]:
    result: dict[str, dict[str, dict[str, int]]] = {}
    for run, by_tag in provider.list_tensors(experiment_id=experiment_id, plugin_name=PLUGIN_NAME).items():
        result[run] = {}
        for series in by_tag.values():
            metadata = parse_metadata(series.plugin_content)
            if metadata.version <= MAX_VERSION:
                result[run][metadata.name] = {"samples": metadata.shape[0] if metadata.shape else 0}
    return result


def meshes(
    provider: DataProvider, experiment_id: str, *, run: str, tag: str, samples: int | None
) -> list[dict[str, Any]]:
    """Every part of every step of `tag`, by step, as metadata."""
    return [
        {
            "wall_time": datum.wall_time,
            "step": datum.step,
            "content_type": metadata.content_type,
            "components": metadata.components,
            "config": metadata.json_config,
            "data_shape": list(metadata.shape),
        }
        for metadata, datum in sorted(_parts(provider, experiment_id, run, tag, samples), key=lambda part: part[1].step)
    ]


def mesh_data(
    provider: DataProvider,
    experiment_id: str,
    *,
    run: str,
    tag: str,
    part: str,
    step: float,
    sample: int,
    samples: int | None,
) -> bytes:
    """One part (VERTEX, FACE or COLOR) of one sample at `step`, as the dashboard's typed array."""
    try:
        content_type = MeshPluginData.ContentType.Value(part)
    except ValueError:
        raise BadRequestError("Bad content_type") from None
    if content_type not in PART_TYPES:
        raise BadRequestError("Bad content_type")
    chosen = [
        datum.numpy
        for metadata, datum in _parts(provider, experiment_id, run, tag, samples)
        if datum.step == step and metadata.content_type == content_type
    ]
    if any(sample >= len(batch) for batch in chosen):
        raise BadRequestError(f"sample {sample} is out of range")
    return np.array([batch[sample] for batch in chosen], dtype=PART_TYPES[content_type]).reshape(-1).tobytes()


def _parts(
    provider: DataProvider, experiment_id: str, run: str, tag: str, samples: int | None
) -> list[tuple[MeshPluginData, TensorDatum]]:
    """(metadata, point) of every instance tag whose user tag is `tag`, instance tags in listing order."""
    listed = provider.list_tensors(
        experiment_id=experiment_id, plugin_name=PLUGIN_NAME, run_tag_filter=RunTagFilter.of(runs=[run])
    ).get(run, {})
    parts = []
    for instance_tag, series in listed.items():
        metadata = parse_metadata(series.plugin_content)
        if metadata.name != tag:
            continue
        found = provider.read_tensors(
            experiment_id=experiment_id,
            plugin_name=PLUGIN_NAME,
            downsample=samples,
            run_tag_filter=RunTagFilter.of([run], [instance_tag]),
        )
        parts += [(metadata, datum) for datum in found[run][instance_tag]]
    return parts
