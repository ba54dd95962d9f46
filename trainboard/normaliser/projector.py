"""A projector config and the files it names as one blob-sequence point of the `projector_files` plugin, tagged by
where the config lies in its run.

Blob 0 is the config itself, the named files follow, and the last blob is an index (JSON): the config's path where
it was read, where it ranks among the configs of the logdir (`order`, TensorBoard's: configs in run directories, then
in runs' plugin asset folders, then at a root without event files, each in the order of the logdir's walk), and for
each path the config names where it resolved (null: outside the config's directory) and which blob holds it (null:
not read), plus the shape of each tensor file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from trainboard.normaliser.points import Batch, BlobSequencePoint, DataClass, SeriesMetadata
from trainboard.reader.dialect import PROJECTOR_ASSETS, PROJECTOR_CONFIG
from trainboard.reader.projector import ProjectorFiles, tensor_paths, tensor_shape

PROJECTOR_FILES_PLUGIN = "projector_files"
RUN_CONFIG_TAG = PROJECTOR_CONFIG
ASSETS_CONFIG_TAG = "/".join((*PROJECTOR_ASSETS, PROJECTOR_CONFIG))
# Where a config lies: the first part of its rank.
IN_RUN, IN_ASSETS, AT_ROOT = 0, 1, 2


def projector_batch(files: ProjectorFiles, place: int, position: int) -> Batch:
    tag = ASSETS_CONFIG_TAG if place == IN_ASSETS else RUN_CONFIG_TAG
    batch = Batch()
    batch.metadata[tag] = SeriesMetadata(plugin_name=PROJECTOR_FILES_PLUGIN, data_class=DataClass.BLOB_SEQUENCE)
    blobs = _blobs(files, [place, position])
    batch.operations.append(BlobSequencePoint(tag=tag, step=0, wall_time=time.time(), blobs=blobs))
    return batch


def _blobs(files: ProjectorFiles, order: list[int]) -> Iterator[bytes]:
    """The config, each file read (one at a time, as the store takes them), then the index."""
    yield files.config
    tensors = set(tensor_paths(files.config))
    entries: dict[str, dict[str, Any]] = {}
    shapes: dict[str, list[int]] = {}
    count = 1
    for named in files.files:
        entries[named.name] = {"path": named.path, "blob": None if named.data is None else count}
        if named.data is None:
            continue
        count += 1
        shape = tensor_shape(named.data, ()) if named.name in tensors else None
        if shape is not None:
            shapes[named.name] = shape
        yield named.data
    yield json.dumps({"config_path": files.path, "order": order, "files": entries, "shapes": shapes}).encode()
