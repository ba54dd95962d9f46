"""TS-VIS's embeddings: per tag, the steps and the shape of the embedded points, each step's points and labels, and
the samples (images, audio or text) they were made from, as data URIs or text.

They come from TS-VIS's projector records, or else from TensorBoard's projector files (`projector_config.pbtxt`, as
torch's and tensorboardX's add_embedding write them: a tensor named `<tag>:<step>`, a metadata TSV whose first
column labels the points, and a sprite whose cells are the image samples)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from trainboard.analysis import projections
from trainboard.analysis.projection_cache import ProjectionCache
from trainboard.errors import InvalidArgumentError, NotFoundError
from trainboard.plugins import projector
from trainboard.plugins.projector import RunConfig
from trainboard.plugins.series import tensors
from trainboard.plugins.tsvis.media import data_uri
from trainboard.provider.provider import DataProvider
from trainboard.reader.protos import tsvis_pb2
from trainboard.reader.protos.projector_config_pb2 import EmbeddingInfo
from trainboard.reader.tsvis import EMBEDDINGS_PLUGIN, projector_array

SAMPLE_PREFIX = "sample_"
SAMPLE_TYPES = {1: "audio", 2: "text", 3: "image"}


@dataclass(frozen=True, slots=True)
class Embedding:
    step: int
    points: np.ndarray
    labels: np.ndarray


def embeddings(
    provider: DataProvider, experiment_id: str, configs: dict[str, RunConfig], run: str, tag: str
) -> list[Embedding]:
    from_files = file_embeddings(configs, run).get(tag)
    if from_files is not None:
        found = configs[run]
        return [
            Embedding(
                step,
                projector.read_tensor(provider, experiment_id, found, info),
                _file_labels(provider, experiment_id, found, info),
            )
            for step, info in sorted(from_files.items())
        ]
    records = []
    for datum in tensors(provider, experiment_id, EMBEDDINGS_PLUGIN, run, tag):
        embedding = _projector(datum.numpy).embedding
        labels = projector_array(embedding.label) if embedding.HasField("label") else np.array([])
        records.append(Embedding(datum.step, projector_array(embedding.value), labels))
    return records


def file_embeddings(configs: dict[str, RunConfig], run: str) -> dict[str, dict[int, EmbeddingInfo]]:
    """The run's projector-file embeddings by tag and step (tensor names `<tag>:<step>`; others at step 0)."""
    found: dict[str, dict[int, EmbeddingInfo]] = {}
    config = configs.get(run)
    for info in config.config.embeddings if config else []:
        if not info.tensor_path:
            continue
        tag, _, step = info.tensor_name.rpartition(":")
        if not (tag and step.isdigit()):
            tag, step = info.tensor_name, "0"
        found.setdefault(tag, {})[int(step)] = info
    return found


def at_step(
    provider: DataProvider, experiment_id: str, configs: dict[str, RunConfig], run: str, tag: str, step: int
) -> Embedding:
    for embedding in embeddings(provider, experiment_id, configs, run, tag):
        if embedding.step == step:
            return embedding
    raise NotFoundError(f"no embedding at step {step}")


def meta(
    provider: DataProvider, experiment_id: str, configs: dict[str, RunConfig], run: str, tag: str
) -> dict[str, Any]:
    found = embeddings(provider, experiment_id, configs, run, tag)
    sprite = _sprite(provider, experiment_id, configs, run, tag)
    samples = None if sprite is not None else _samples(provider, experiment_id, run, tag)
    return {
        tag: [embedding.step for embedding in found],
        "shape": list(found[0].points.shape) if found else [],
        "sample": sprite is not None or samples is not None,
        "sample_type": "image" if sprite is not None else SAMPLE_TYPES.get(samples.type, "") if samples else "",
    }


def raw(
    provider: DataProvider, experiment_id: str, configs: dict[str, RunConfig], run: str, tag: str, step: int
) -> list[Any]:
    embedding = at_step(provider, experiment_id, configs, run, tag, step)
    return [embedding.points.tolist(), embedding.labels.tolist()]


def sample(
    provider: DataProvider, experiment_id: str, configs: dict[str, RunConfig], run: str, tag: str, index: int
) -> str:
    """The `index`th sample: an image as a PNG data URI (floats taken as 0..1), audio as a WAV data URI, or text."""
    sprite = _sprite(provider, experiment_id, configs, run, tag)
    if sprite is not None:
        return data_uri("image/png", _png(_sprite_cell(sprite, index)))
    samples = _samples(provider, experiment_id, run, tag)
    if samples is None:
        raise NotFoundError(f"no samples of embedding {tag!r} in run {run!r}")
    values = projector_array(samples.X)
    _check_index(index, len(values))
    value = values[index]
    kind = SAMPLE_TYPES.get(samples.type)
    if kind == "image":
        return data_uri("image/png", _png(np.squeeze(value)))
    if kind == "audio":
        return data_uri("audio/wav", value.tobytes() if value.dtype.kind != "S" else bytes(value))
    if kind == "text":
        return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)
    raise NotFoundError(f"samples of embedding {tag!r} have no known type")


def projection(
    provider: DataProvider,
    experiment_id: str,
    configs: dict[str, RunConfig],
    where: tuple[str, str, int],
    method: str,
    dims: int,
    cache: ProjectionCache,
    max_points: int | None,
) -> list[Any]:
    """`[points, labels]` of the embedding at (run, tag, step) projected by `method` into `dims` dimensions, on every
    point (TS-VIS takes the first 1,000), computed once per embedding content."""
    run, tag, step = where
    embedding = at_step(provider, experiment_id, configs, run, tag, step)
    projected = cache.projection(run, tag, step, embedding.points, method, dims, max_points=max_points)
    return [projections.rows(projected), embedding.labels.tolist()]


def _check_index(index: int, count: int) -> None:
    if not 0 <= index < count:
        raise InvalidArgumentError(f"sample index {index} is not in 0..{count - 1}")


def _file_labels(provider: DataProvider, experiment_id: str, found: RunConfig, info: EmbeddingInfo) -> np.ndarray:
    """The first column of the metadata file (after its header row, when it has several columns)."""
    if not info.metadata_path:
        return np.array([])
    data = projector.read_file(provider, experiment_id, found, info.metadata_path)
    lines = projector.metadata_text(data, None).splitlines()
    if lines and "\t" in lines[0]:
        lines = lines[1:]
    return np.array([line.split("\t")[0] for line in lines])


def _sprite(
    provider: DataProvider, experiment_id: str, configs: dict[str, RunConfig], run: str, tag: str
) -> tuple[np.ndarray, tuple[int, int], int] | None:
    """The sprite of a projector-file embedding (of its last step that has one), its cells' width and height, and how
    many of its cells are samples (one per point)."""
    steps = file_embeddings(configs, run).get(tag, {})
    with_sprite = [info for _, info in sorted(steps.items()) if info.sprite.image_path]
    if not with_sprite or len(with_sprite[-1].sprite.single_image_dim) != 2:
        return None
    info = with_sprite[-1]
    from PIL import Image  # deferred: a server's start should not pay for it

    data = projector.read_file(provider, experiment_id, configs[run], info.sprite.image_path)
    with Image.open(io.BytesIO(data)) as image:
        pixels = np.asarray(image.convert("RGB"))
    width, height = info.sprite.single_image_dim
    return pixels, (width, height), info.tensor_shape[0] if info.tensor_shape else 0


def _sprite_cell(sprite: tuple[np.ndarray, tuple[int, int], int], index: int) -> np.ndarray:
    pixels, (width, height), count = sprite
    columns = max(pixels.shape[1] // width, 1)
    _check_index(index, min(count, columns * (pixels.shape[0] // height)))
    row, column = divmod(index, columns)
    return pixels[row * height : (row + 1) * height, column * width : (column + 1) * width]


def _samples(provider: DataProvider, experiment_id: str, run: str, tag: str) -> Any | None:
    try:
        points = tensors(provider, experiment_id, EMBEDDINGS_PLUGIN, run, SAMPLE_PREFIX + tag)
    except NotFoundError:
        return None
    return _projector(points[0].numpy).embedding.sample if points else None


def _projector(stored: np.ndarray) -> Any:
    try:
        return tsvis_pb2.Projector.FromString(stored.reshape(-1)[0])
    except DecodeError:
        raise NotFoundError("a stored embedding is no TS-VIS Projector message") from None


def _png(image: np.ndarray) -> bytes:
    from PIL import Image  # deferred: a server's start should not pay for it

    if image.dtype.kind == "f":
        image = np.clip(image * 255, 0, 255)
    output = io.BytesIO()
    Image.fromarray(image.astype(np.uint8)).save(output, format="png")
    return output.getvalue()
