"""A small, seeded demo logdir, written with trainboard's own record writer when `trainboard` is given no logdir.

Two training runs and an evaluation run in nested directories: scalars (one run restarted from an earlier step),
histograms, images, audio and markdown text, in the legacy summary forms PyTorch's and tensorboardX's writers use.
"""

from __future__ import annotations

import io
import math
import shutil
import struct
import tempfile
import wave
import zlib
from pathlib import Path

import numpy as np
import platformdirs

from trainboard.reader.protos.event_pb2 import Event, SessionLog
from trainboard.reader.protos.summary_pb2 import Summary
from trainboard.reader.protos.tensor_pb2 import DataType
from trainboard.reader.records import write_record

STEPS = 200
# Bump when the demo's content changes: a new version is written beside the old one.
VERSION = 2
START_TIME = 1_700_000_000.0
NOTES = """# Demo run

| setting | value |
| ------- | ----- |
| learning rate | {rate} |
| batch size | 64 |

Written by `trainboard` itself when no `--logdir` is given.
"""


def demo_logdir() -> Path:
    """The demo logdir in the user's cache directory, written on first use."""
    root = Path(platformdirs.user_cache_dir("trainboard")) / f"demo-v{VERSION}"
    if not root.exists():
        root.parent.mkdir(parents=True, exist_ok=True)
        # Written aside and renamed into place, so that the demo is whole (or absent) even when two trainboards
        # start at once or one is stopped while writing: the first rename wins, the other copy is dropped.
        scratch = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
        try:
            write_demo(scratch)
            try:
                scratch.rename(root)
            except OSError:
                if not root.is_dir():
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return root


def write_demo(root: Path) -> None:
    """The demo's three runs under `root`, the same bytes every time."""
    rng = np.random.default_rng(0)
    for run, rate in (("train/lr-0.1", 0.1), ("train/lr-0.01", 0.01)):
        _write_run(root / run, rate, rng, restart_at=120 if rate == 0.1 else None)
    _write_run(root / "eval", 0.01, rng, restart_at=None, every=10)


def _write_run(
    directory: Path, rate: float, rng: np.random.Generator, *, restart_at: int | None, every: int = 1
) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    wall_time = START_TIME
    with (directory / "events.out.tfevents.1700000000.demo").open("wb") as stream:

        def write(event: Event) -> None:
            write_record(stream, event.SerializeToString())

        write(Event(wall_time=wall_time, file_version="brain.Event:2"))
        write(Event(wall_time=wall_time, session_log=SessionLog(status=SessionLog.START)))
        notes = Summary()
        value = notes.value.add(tag="notes/text_summary")
        value.metadata.plugin_data.plugin_name = "text"
        value.tensor.dtype = DataType.DT_STRING
        value.tensor.string_val.append(NOTES.format(rate=rate).encode())
        write(Event(wall_time=wall_time, step=0, summary=notes))
        steps = list(range(0, STEPS, every))
        if restart_at is not None:
            # The process died after step 149 and resumed from its checkpoint at `restart_at`: the restart's
            # SessionLog.START makes TensorBoard (and trainboard) drop the points from `restart_at` on.
            steps = [step for step in steps if step < 150] + [-1] + [step for step in steps if step >= restart_at]
        for step in steps:
            wall_time += 1
            if step == -1:
                write(Event(wall_time=wall_time, step=restart_at, session_log=SessionLog(status=SessionLog.START)))
                continue
            write(_scalars(step, rate, rng, wall_time))
            if step % 20 == 0:
                write(_media(step, rate, rng, wall_time))


def _scalars(step: int, rate: float, rng: np.random.Generator, wall_time: float) -> Event:
    loss = 2.5 * math.exp(-step * rate / 8) + 0.05 * float(rng.normal())
    summary = Summary()
    summary.value.add(tag="loss", simple_value=loss)
    summary.value.add(tag="accuracy", simple_value=1 - loss / 3)
    summary.value.add(tag="learning_rate", simple_value=rate)
    return Event(wall_time=wall_time, step=step, summary=summary)


def _media(step: int, rate: float, rng: np.random.Generator, wall_time: float) -> Event:
    summary = Summary()
    weights = rng.normal(scale=1 + step * rate / 20, size=1000)
    histo = summary.value.add(tag="weights").histo
    counts, edges = np.histogram(weights, bins=30)
    histo.min, histo.max, histo.num = float(weights.min()), float(weights.max()), float(len(weights))
    histo.sum, histo.sum_squares = float(weights.sum()), float((weights * weights).sum())
    histo.bucket_limit.extend(edges[1:].tolist())
    histo.bucket.extend(counts.astype(float).tolist())
    shade = int(255 * min(1.0, step / STEPS))
    pixels = rng.integers(0, 256, size=(16, 16, 3), dtype=np.uint8) // 2 + np.uint8(shade // 2)
    image = summary.value.add(tag="samples").image
    image.height, image.width, image.colorspace = 16, 16, 3
    image.encoded_image_string = _png(pixels)
    audio = summary.value.add(tag="tone").audio
    audio.sample_rate, audio.num_channels, audio.length_frames = 8000.0, 1, 800
    audio.encoded_audio_string = _wav(np.sin(np.arange(800) * (0.05 + step / 2000)), 8000)
    audio.content_type = "audio/wav"
    return Event(wall_time=wall_time, step=step, summary=summary)


def _png(pixels: np.ndarray) -> bytes:
    """An 8-bit RGB PNG of an (height, width, 3) array."""
    height, width, _ = pixels.shape
    rows = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def _wav(samples: np.ndarray, rate: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as output:
        output.setnchannels(1)
        output.setsampwidth(2)
        output.setframerate(rate)
        output.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return buffer.getvalue()
