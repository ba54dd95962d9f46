"""Log directories written by the writers users use: tensorboardX, torch's SummaryWriter, tensorboard's summary ops."""

from __future__ import annotations

import io
import math
import wave
from pathlib import Path

import numpy as np
from tensorboard.compat.proto import event_pb2 as tb_event_pb2
from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2

from trainboard.reader.records import write_record


def write_events(path: Path, events: list[tb_event_pb2.Event]) -> None:
    """Frame Events produced with tensorboard's own protos into a TFRecord file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as stream:
        for event in events:
            write_record(stream, event.SerializeToString())


def summary_event(step: int, summary: tb_summary_pb2.Summary, wall_time: float | None = None) -> tb_event_pb2.Event:
    return tb_event_pb2.Event(step=step, wall_time=wall_time or 1_700_000_000.0 + step, summary=summary)


def wav_bytes(frequency: float, seconds: float = 0.05, rate: int = 8000) -> bytes:
    samples = (np.sin(2 * math.pi * frequency * np.arange(int(seconds * rate)) / rate) * 32767).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())
    return buffer.getvalue()


def write_tensorboardx_run(run: Path) -> None:
    from tensorboardX import SummaryWriter

    rng = np.random.default_rng(0)
    with SummaryWriter(str(run)) as writer:
        for step in range(40):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
            writer.add_scalar("metrics/accuracy", step / 40, step)
            if step % 10 == 0:
                writer.add_histogram("weights/layer1", rng.normal(size=200) + step / 10, step)
                writer.add_images("inputs", rng.random((3, 3, 8, 8)), step)
                writer.add_text("notes", f"**step {step}** <script>alert(1)</script>\n\n|a|b|\n|-|-|\n|1|2|", step)
                writer.add_audio("tone", np.sin(np.arange(400) / 8.0).reshape(-1, 1), step, sample_rate=8000)
                writer.add_pr_curve("pr", rng.integers(0, 2, 50), rng.random(50), step)
        writer.add_scalar("loss", float("nan"), 40)
        writer.add_scalar("loss", float("inf"), 41)
        writer.add_scalar("loss", float("-inf"), 42)
        writer.add_custom_scalars({"Training": {"Loss": ["Multiline", ["loss", "metrics/accuracy"]]}})


def write_torch_run(run: Path) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    with SummaryWriter(str(run)) as writer:
        writer.add_graph(model, torch.zeros(1, 4))
        for step in range(0, 100, 7):
            writer.add_scalar("loss", 2.0 / (step + 1), step)
            writer.add_histogram("bias", torch.randn(50), step)
        writer.add_image("sample", torch.rand(3, 6, 6), 3)


def write_summary_ops_run(run: Path) -> None:
    """tensorboard's own TF-free summary functions: TF2-style tensor summaries."""
    from tensorboard.plugins.histogram.summary_v2 import histogram_pb
    from tensorboard.plugins.scalar.summary_v2 import scalar_pb
    from tensorboard.plugins.text.summary_v2 import text_pb

    rng = np.random.default_rng(1)
    events = [tb_event_pb2.Event(wall_time=1_700_000_000.0, file_version="brain.Event:2")]
    for step in range(12):
        events.append(summary_event(step, scalar_pb("xent", 3.0 - step / 4, description="Cross *entropy*")))
        events.append(summary_event(step, histogram_pb("activations", rng.normal(size=64), buckets=8)))
        if step % 4 == 0:
            events.append(summary_event(step, text_pb("table", np.array([["a", "b"], ["1", "2"]]))))
    write_events(run / "events.out.tfevents.1700000000.ops", events)


def write_restarts(logdir: Path) -> None:
    """A restarted job with file_version 2 (SessionLog.START) and an old-version job with steps going back."""

    def scalar(step: int, value: float, tag: str = "loss") -> tb_event_pb2.Event:
        summary = tb_summary_pb2.Summary(value=[tb_summary_pb2.Summary.Value(tag=tag, simple_value=value)])
        return summary_event(step, summary)

    start = tb_event_pb2.SessionLog(status=tb_event_pb2.SessionLog.START)
    new = [tb_event_pb2.Event(wall_time=1_700_000_000.0, file_version="brain.Event:2")]
    new.append(tb_event_pb2.Event(wall_time=1_700_000_000.5, step=0, session_log=start))
    new += [scalar(step, step * 1.0) for step in range(10)]
    new.append(tb_event_pb2.Event(wall_time=1_700_000_100.0, step=5, session_log=start))
    new += [scalar(step, -step * 1.0) for step in range(5, 12)]
    write_events(logdir / "restarted" / "events.out.tfevents.1700000000.a", new)

    old = [tb_event_pb2.Event(wall_time=1_600_000_000.0, file_version="brain.Event:1")]
    old += [scalar(step, step * 1.0) for step in range(10)] + [scalar(step, step * 1.0, "other") for step in range(10)]
    old += [scalar(step, step * 10.0) for step in range(4, 8)]
    write_events(logdir / "old_version" / "events.out.tfevents.1600000000.b", old)


def write_legacy_root(logdir: Path) -> None:
    """The logdir itself is a run ("."), with legacy (simple_value, histo, image) summaries."""
    events = [tb_event_pb2.Event(wall_time=1_500_000_000.0, file_version="brain.Event:2")]
    for step in range(5):
        histo = tb_summary_pb2.HistogramProto(
            min=-1.0,
            max=2.0,
            num=6,
            sum=3.0,
            sum_squares=5.0,
            bucket_limit=[-0.5, 0.0, 1.0, 1.7976931348623157e308],
            bucket=[0.0, 2.0, 3.0, 1.0],
        )
        image = tb_summary_pb2.Summary.Image(height=1, width=1, colorspace=1, encoded_image_string=_tiny_png())
        summary = tb_summary_pb2.Summary(
            value=[
                tb_summary_pb2.Summary.Value(tag="legacy/scalar", simple_value=step * 0.5),
                tb_summary_pb2.Summary.Value(tag="legacy/histo", histo=histo),
                tb_summary_pb2.Summary.Value(tag="legacy/image", image=image),
            ]
        )
        events.append(summary_event(step, summary, wall_time=1_500_000_000.0 + step))
    write_events(logdir / "events.out.tfevents.1500000000.root", events)


def _tiny_png() -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def write_full_logdir(logdir: Path) -> Path:
    write_tensorboardx_run(logdir / "train")
    write_torch_run(logdir / "eval" / "torch")
    write_summary_ops_run(logdir / "eval" / "ops")
    write_restarts(logdir)
    write_legacy_root(logdir)
    return logdir
