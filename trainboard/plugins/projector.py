"""The embedding projector: embeddings that writers (tensorboardX, torch) describe in a projector_config.pbtxt beside
a run's event files, with their tensors, metadata, bookmarks and sprites in files the config names.

Ingest keeps each config and the files it names in the store (plugin `projector_files`, laid out in
normaliser/projector.py); this module reads them back through the provider. As TensorBoard without TensorFlow does,
only tensor files are read (no TensorFlow checkpoints). A file the config names was read only when it resolved inside
the config's own directory; asking for one that did not is refused with TensorBoard's message.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf import json_format, text_format

from trainboard.errors import BadRequestError
from trainboard.normaliser.projector import PROJECTOR_FILES_PLUGIN
from trainboard.provider.provider import DataProvider
from trainboard.reader.projector import TensorShapeError, parse_tensor
from trainboard.reader.protos.projector_config_pb2 import EmbeddingInfo, ProjectorConfig


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A file a config names: where it resolved (None: outside the config's directory) and the key of its blob (None:
    it was not there to read)."""

    path: str | None
    blob_key: str | None


@dataclass(frozen=True, slots=True)
class RunConfig:
    config: ProjectorConfig
    path: str  # of the config file, where ingest read it
    files: Mapping[str, StoredFile]


def configs(provider: DataProvider, experiment_id: str) -> dict[str, RunConfig]:
    """Each run's config with embeddings, in TensorBoard's order: configs in run directories, then in the runs'
    plugin asset folders (one there replaces the run's own, in its place), then one at a root without event files;
    each in the order of the logdir's walk."""
    stored = provider.read_blob_sequences(
        experiment_id=experiment_id, plugin_name=PROJECTOR_FILES_PLUGIN, downsample=None
    )
    candidates: list[tuple[list[int], int, str, dict[str, Any], tuple[str, ...]]] = []
    for run, tags in stored.items():
        for points in tags.values():
            if not points or len(points[-1].values) < 2:
                continue
            keys = tuple(value.blob_key for value in points[-1].values)
            index = json.loads(provider.read_blob(experiment_id=experiment_id, blob_key=keys[-1]))
            candidates.append((index["order"], len(candidates), run, index, keys))
    found: dict[str, RunConfig] = {}
    for _, _, run, index, keys in sorted(candidates, key=lambda candidate: (candidate[0], candidate[1])):
        config = _config(provider.read_blob(experiment_id=experiment_id, blob_key=keys[0]), index["shapes"])
        if config is not None:
            files = {
                name: StoredFile(entry["path"], None if entry["blob"] is None else keys[entry["blob"]])
                for name, entry in index["files"].items()
            }
            found[run] = RunConfig(config, index["config_path"], files)
    return found


def _config(text: bytes, shapes: dict[str, list[int]]) -> ProjectorConfig | None:
    """The config with tensor names and shapes filled in, or None when it has no tensor files (or cannot be read)."""
    config = ProjectorConfig()
    try:
        text_format.Parse(text.decode("utf-8"), config)
    except (UnicodeDecodeError, text_format.ParseError):
        return None
    if not any(embedding.tensor_path for embedding in config.embeddings):
        return None  # a checkpoint-only config: TensorFlow would be needed to read it
    for embedding in config.embeddings:
        if embedding.tensor_path and not embedding.tensor_name:
            embedding.tensor_name = os.path.basename(embedding.tensor_path)
        embedding.tensor_name = embedding.tensor_name.removesuffix(":0")
        if embedding.tensor_path and not embedding.tensor_shape and embedding.tensor_path in shapes:
            embedding.tensor_shape.extend(shapes[embedding.tensor_path])
    return config


def info(found: RunConfig) -> str:
    return json_format.MessageToJson(found.config)


def embedding(found: RunConfig, name: str) -> EmbeddingInfo | None:
    canonical = _canonical(name)
    return next((info for info in found.config.embeddings if _canonical(info.tensor_name) == canonical), None)


def _canonical(name: str) -> str:
    return name if ":" in name else name + ":0"


def read_tensor(provider: DataProvider, experiment_id: str, found: RunConfig, info: EmbeddingInfo) -> np.ndarray:
    """The embedding's tensor as float32 rows: a TSV file, or raw float32 of the declared 2-D shape."""
    stored = _stored(found, info.tensor_path)
    if stored.blob_key is None:
        raise BadRequestError(f'Tensor file "{stored.path}" does not exist')
    data = provider.read_blob(experiment_id=experiment_id, blob_key=stored.blob_key)
    try:
        return parse_tensor(data, info.tensor_shape)
    except TensorShapeError as error:
        raise BadRequestError(str(error)) from None
    except ValueError as error:
        raise BadRequestError(f'Tensor file "{stored.path}" holds no tensor: {error}') from None


def read_file(provider: DataProvider, experiment_id: str, found: RunConfig, name: str) -> bytes:
    """A metadata, bookmarks or sprite file the config names."""
    stored = _stored(found, name)
    if stored.blob_key is None:
        raise BadRequestError(f'"{stored.path}" not found, or is not a file')
    return provider.read_blob(experiment_id=experiment_id, blob_key=stored.blob_key)


def _stored(found: RunConfig, name: str) -> StoredFile:
    stored = found.files.get(name, StoredFile(name, None))
    if stored.path is None:
        raise BadRequestError(f'Asset path "{name}" resolves outside the config directory')
    return stored


def metadata_text(data: bytes, num_rows: int | None) -> str:
    """The metadata file's lines; with `num_rows`, that many points (after a header row, if there is one)."""
    lines: list[str] = []
    header_rows = 0
    with io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace") as stream:
        for line in stream:
            lines.append(line)
            if len(lines) == 1 and "\t" in line:
                header_rows = 1
            if num_rows and len(lines) >= num_rows + header_rows:
                break
    return "".join(lines)
