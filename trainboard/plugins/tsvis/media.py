"""TS-VIS's scalar, text, image and audio answers: points as `{wall_time, step, ...}`, media as data URIs."""

from __future__ import annotations

import base64
import io
import wave
from typing import Any

from trainboard.errors import NotFoundError
from trainboard.plugins import audio, images, scalars, text
from trainboard.plugins.series import blob_sequences, scalar_columns, tensors
from trainboard.plugins.tsvis.series import at_step
from trainboard.provider.provider import DataProvider

# TensorBoard's image blob sequences hold the width and height, then the images.
IMAGE_BLOBS_START = 2
IMAGE_TYPES = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF8": "image/gif", b"BM": "image/bmp"}


def scalar(provider: DataProvider, experiment_id: str, run: str, tag: str) -> list[dict[str, Any]]:
    columns = scalar_columns(provider, experiment_id, scalars.PLUGIN_NAME, run, tag)
    return [
        {"wall_time": wall_time, "step": step, "value": value}
        for step, wall_time, value in zip(
            columns.steps.tolist(), columns.wall_times.tolist(), columns.values.tolist(), strict=True
        )
    ]


def texts(provider: DataProvider, experiment_id: str, run: str, tag: str) -> list[dict[str, Any]]:
    """Each step's strings, unrendered, as TS-VIS serves them (its UI renders them)."""
    return [
        {
            "wall_time": datum.wall_time,
            "step": datum.step,
            "value": [_text(item) for item in datum.numpy.reshape(-1).tolist()],
        }
        for datum in tensors(provider, experiment_id, text.PLUGIN_NAME, run, tag)
    ]


def image_meta(provider: DataProvider, experiment_id: str, run: str, tag: str) -> list[dict[str, Any]]:
    found = []
    for datum in blob_sequences(provider, experiment_id, images.PLUGIN_NAME, run, tag):
        width, height = (
            provider.read_blob(experiment_id=experiment_id, blob_key=blob.blob_key)
            for blob in datum.values[:IMAGE_BLOBS_START]
        )
        found.append({"wall_time": datum.wall_time, "step": datum.step, "width": int(width), "height": int(height)})
    return found


def image_data_uri(provider: DataProvider, experiment_id: str, run: str, tag: str, step: int) -> str:
    """The step's first image."""
    datum = at_step(blob_sequences(provider, experiment_id, images.PLUGIN_NAME, run, tag), step)
    if len(datum.values) <= IMAGE_BLOBS_START:
        raise NotFoundError(f"no image at step {step}")
    image = provider.read_blob(experiment_id=experiment_id, blob_key=datum.values[IMAGE_BLOBS_START].blob_key)
    media_type = next((kind for magic, kind in IMAGE_TYPES.items() if image.startswith(magic)), "image/png")
    return data_uri(media_type, image)


def audio_meta(provider: DataProvider, experiment_id: str, run: str, tag: str) -> list[dict[str, Any]]:
    """Each step's label: the first clip's sample rate, channels and frames, worded as TS-VIS words them."""
    found = []
    for datum in blob_sequences(provider, experiment_id, audio.PLUGIN_NAME, run, tag):
        clip = (
            provider.read_blob(experiment_id=experiment_id, blob_key=datum.values[0].blob_key) if datum.values else b""
        )
        found.append({"wall_time": datum.wall_time, "step": datum.step, "label": _wav_label(clip)})
    return found


def audio_data_uri(provider: DataProvider, experiment_id: str, run: str, tag: str, step: int) -> str:
    datum = at_step(blob_sequences(provider, experiment_id, audio.PLUGIN_NAME, run, tag), step)
    if not datum.values:
        raise NotFoundError(f"no audio at step {step}")
    return data_uri("audio/wav", provider.read_blob(experiment_id=experiment_id, blob_key=datum.values[0].blob_key))


def _wav_label(clip: bytes) -> str:
    try:
        with wave.open(io.BytesIO(clip)) as reader:
            rate, channels, frames = reader.getframerate(), reader.getnchannels(), reader.getnframes()
    except (wave.Error, EOFError):
        return ""
    return f"采样率: {float(rate)}, 声道: {channels}, 帧长度: {frames}"


def _text(item: object) -> str:
    return item.decode("utf-8", errors="replace") if isinstance(item, bytes) else str(item)


def data_uri(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode()}"
