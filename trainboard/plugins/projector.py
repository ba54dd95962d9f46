"""The embedding projector: embeddings that writers (tensorboardX, torch) describe in a projector_config.pbtxt beside
a run's event files, with their tensors, metadata, bookmarks and sprites in files the config names.

As TensorBoard without TensorFlow does, only tensor files are read (no TensorFlow checkpoints), and only in a local
logdir. A file the config names must resolve inside the config's own directory, which is inside the logdir.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from google.protobuf import json_format, text_format

from trainboard.errors import BadRequestError
from trainboard.reader.protos.projector_config_pb2 import EmbeddingInfo, ProjectorConfig

CONFIG_FILE = "projector_config.pbtxt"
ASSETS_DIR = os.path.join("plugins", "projector")


@dataclass(frozen=True, slots=True)
class RunConfig:
    config: ProjectorConfig
    path: str  # of the config file


def configs(root: str, runs: list[str]) -> dict[str, RunConfig]:
    """Each run's config with embeddings, in TensorBoard's order: runs, runs' plugin asset dirs, then the root."""
    candidates = [(run, os.path.join(root, run)) for run in runs]
    candidates += [
        (run, os.path.join(directory, ASSETS_DIR))
        for run, directory in list(candidates)
        if os.path.isfile(os.path.join(directory, ASSETS_DIR, CONFIG_FILE))
    ]
    if "." not in runs:
        candidates.append((".", root))
    found: dict[str, RunConfig] = {}
    for run, directory in candidates:
        path = os.path.join(directory, CONFIG_FILE)
        config = _read_config(path)
        if config is not None and config.embeddings:
            found[run] = RunConfig(config, path)
    return found


def _read_config(path: str) -> ProjectorConfig | None:
    """The config with tensor names filled in, or None when it has no tensor files (or cannot be read)."""
    if not os.path.isfile(path):
        return None
    config = ProjectorConfig()
    try:
        with open(path, encoding="utf-8") as stream:
            text_format.Parse(stream.read(), config)
    except (OSError, UnicodeDecodeError, text_format.ParseError):
        return None
    if not any(embedding.tensor_path for embedding in config.embeddings):
        return None  # a checkpoint-only config: TensorFlow would be needed to read it
    for embedding in config.embeddings:
        if embedding.tensor_path and not embedding.tensor_name:
            embedding.tensor_name = os.path.basename(embedding.tensor_path)
        embedding.tensor_name = embedding.tensor_name.removesuffix(":0")
        if embedding.tensor_path and not embedding.tensor_shape:
            try:
                tensor = read_tensor(embedding, path)
            except (BadRequestError, OSError, ValueError):
                continue
            embedding.tensor_shape.extend(tensor.shape if tensor.ndim == 2 else (len(tensor), 0))
    return config


def info(found: RunConfig) -> str:
    return json_format.MessageToJson(found.config)


def embedding(found: RunConfig, name: str) -> EmbeddingInfo | None:
    canonical = _canonical(name)
    return next((info for info in found.config.embeddings if _canonical(info.tensor_name) == canonical), None)


def _canonical(name: str) -> str:
    return name if ":" in name else name + ":0"


def read_tensor(info: EmbeddingInfo, config_path: str) -> np.ndarray:
    """The embedding's tensor as float32 rows: a TSV file, or raw float32 of the declared 2-D shape."""
    path = asset_path(info.tensor_path, config_path)
    if not os.path.isfile(path):
        raise BadRequestError(f'Tensor file "{path}" does not exist')
    try:
        with open(path, encoding="utf-8") as stream:
            rows = [list(map(float, line.rstrip("\n").split("\t"))) for line in stream if line.rstrip("\n")]
        return np.array(rows, dtype=np.float32)
    except UnicodeDecodeError:
        if len(info.tensor_shape) != 2:
            raise BadRequestError(f"Tensor must be 2D, got shape {list(info.tensor_shape)}") from None
        return np.fromfile(path, dtype=np.float32).reshape(tuple(info.tensor_shape))


def metadata_text(path: str, num_rows: int | None) -> str:
    """The metadata file's lines; with `num_rows`, that many points (after a header row, if there is one)."""
    lines: list[str] = []
    header_rows = 0
    with open(path, encoding="utf-8", errors="replace") as stream:
        for line in stream:
            lines.append(line)
            if len(lines) == 1 and "\t" in line:
                header_rows = 1
            if num_rows and len(lines) >= num_rows + header_rows:
                break
    return "".join(lines)


def asset_path(path: str, config_path: str) -> str:
    """A path the config names, resolved against the config's directory, which it must not leave."""
    directory = os.path.realpath(os.path.dirname(config_path))
    candidate = os.path.expanduser(path)
    if not os.path.isabs(candidate):
        candidate = os.path.join(directory, candidate)
    candidate = os.path.realpath(candidate)
    message = f'Asset path "{path}" resolves outside the config directory'
    try:
        if os.path.commonpath([directory, candidate]) != directory:
            raise BadRequestError(message)
    except ValueError:
        raise BadRequestError(message) from None
    return candidate
