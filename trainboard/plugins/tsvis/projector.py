"""TS-VIS's embeddings (projector records): per tag, the steps and the shape of the embedded points, each step's
points and labels, and the samples (images, audio or text) they were made from, as data URIs or text."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError
from PIL import Image

from trainboard.errors import InvalidArgumentError, NotFoundError
from trainboard.plugins.tsvis.media import data_uri
from trainboard.plugins.tsvis.series import tensors
from trainboard.provider.provider import DataProvider
from trainboard.reader.protos import tsvis_pb2
from trainboard.reader.tsvis import EMBEDDINGS_PLUGIN, projector_array

SAMPLE_PREFIX = "sample_"
SAMPLE_TYPES = {1: "audio", 2: "text", 3: "image"}


@dataclass(frozen=True, slots=True)
class Embedding:
    step: int
    points: np.ndarray
    labels: np.ndarray


def embeddings(provider: DataProvider, run: str, tag: str) -> list[Embedding]:
    found = []
    for datum in tensors(provider, EMBEDDINGS_PLUGIN, run, tag):
        embedding = _projector(datum.numpy).embedding
        labels = projector_array(embedding.label) if embedding.HasField("label") else np.array([])
        found.append(Embedding(datum.step, projector_array(embedding.value), labels))
    return found


def at_step(provider: DataProvider, run: str, tag: str, step: int) -> Embedding:
    for embedding in embeddings(provider, run, tag):
        if embedding.step == step:
            return embedding
    raise NotFoundError(f"no embedding at step {step}")


def meta(provider: DataProvider, run: str, tag: str) -> dict[str, Any]:
    found = embeddings(provider, run, tag)
    samples = _samples(provider, run, tag)
    return {
        tag: [embedding.step for embedding in found],
        "shape": list(found[0].points.shape) if found else [],
        "sample": samples is not None,
        "sample_type": SAMPLE_TYPES.get(samples.type, "") if samples is not None else "",
    }


def raw(provider: DataProvider, run: str, tag: str, step: int) -> list[Any]:
    embedding = at_step(provider, run, tag, step)
    return [embedding.points.tolist(), embedding.labels.tolist()]


def sample(provider: DataProvider, run: str, tag: str, index: int) -> str:
    """The `index`th sample: an image as a PNG data URI (floats taken as 0..1), audio as a WAV data URI, or text."""
    samples = _samples(provider, run, tag)
    if samples is None:
        raise NotFoundError(f"no samples of embedding {tag!r} in run {run!r}")
    values = projector_array(samples.X)
    if not 0 <= index < len(values):
        raise InvalidArgumentError(f"sample index {index} is not in 0..{len(values) - 1}")
    value = values[index]
    kind = SAMPLE_TYPES.get(samples.type)
    if kind == "image":
        return data_uri("image/png", _png(np.squeeze(value)))
    if kind == "audio":
        return data_uri("audio/wav", value.tobytes() if value.dtype.kind != "S" else bytes(value))
    if kind == "text":
        return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)
    raise NotFoundError(f"samples of embedding {tag!r} have no known type")


def _samples(provider: DataProvider, run: str, tag: str) -> Any | None:
    try:
        points = tensors(provider, EMBEDDINGS_PLUGIN, run, SAMPLE_PREFIX + tag)
    except NotFoundError:
        return None
    return _projector(points[0].numpy).embedding.sample if points else None


def _projector(stored: np.ndarray) -> Any:
    try:
        return tsvis_pb2.Projector.FromString(stored.reshape(-1)[0])
    except DecodeError:
        raise NotFoundError("a stored embedding is no TS-VIS Projector message") from None


def _png(image: np.ndarray) -> bytes:
    if image.dtype.kind == "f":
        image = np.clip(image * 255, 0, 255)
    output = io.BytesIO()
    Image.fromarray(image.astype(np.uint8)).save(output, format="png")
    return output.getvalue()
