"""A small, seeded demo logdir, written with trainboard's own record writer when `trainboard` is given no logdir.

It has something for every dashboard, in the forms PyTorch's, tensorboardX's and TensorBoard's writers use:

- `sweep/lr-<rate>/seed-<n>`: a learning-rate sweep, three seeds each (one run restarted from an earlier step):
  scalars, and one hparams session per run, the seeds of a rate making a session group; the first seed of each rate
  also has histograms, images, audio and markdown text, and the first run a graph;
- `eval`: precision-recall curves, a text table and an embedding (projector config, tensors and metadata);
- the root: the hparams experiment and a custom scalars layout;
- `tsvis`: an exception tensor in a TS-VIS event file (which TensorBoard does not read).
"""

from __future__ import annotations

import io
import math
import shutil
import struct
import tempfile
import wave
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import platformdirs
from google.protobuf import struct_pb2, text_format

from trainboard.reader.protos import hparams_pb2, layout_pb2, plugin_data_pb2, tsvis_pb2
from trainboard.reader.protos.event_pb2 import Event, SessionLog
from trainboard.reader.protos.graph_pb2 import GraphDef
from trainboard.reader.protos.projector_config_pb2 import ProjectorConfig
from trainboard.reader.protos.summary_pb2 import Summary
from trainboard.reader.protos.tensor_pb2 import DataType, TensorProto
from trainboard.reader.records import write_record

STEPS = 200
RATES = (0.1, 0.03, 0.01)
SEEDS = 3
# Bump when the demo's content changes: a new version is written beside the old one.
VERSION = 3
START_TIME = 1_700_000_000.0
NOTES = """# Demo run

| setting | value |
| ------- | ----- |
| learning rate | {rate} |
| seed | {seed} |
| batch size | 64 |

Written by `trainboard` itself when no `--logdir` is given.
"""
EVENT_FILE = "events.out.tfevents.1700000000.demo"
# TS-VIS names its event files without "tfevents".
TSVIS_EVENT_FILE = "events.out.1700000000.demo"

Write = Callable[[Event], None]


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
    """The demo's runs under `root`, the same bytes every time."""
    with _events(root / EVENT_FILE) as write:
        write(Event(wall_time=START_TIME, step=0, summary=_experiment()))
        write(Event(wall_time=START_TIME, step=0, summary=_layout()))
    for rate in RATES:
        for seed in range(SEEDS):
            rng = np.random.default_rng([seed, int(rate * 1000)])
            with _events(root / "sweep" / f"lr-{rate}" / f"seed-{seed}" / EVENT_FILE) as write:
                _write_training(write, rate, seed, rng, first=rate == RATES[0] and seed == 0)
    _write_eval(root / "eval", np.random.default_rng(7))
    _write_tsvis(root / "tsvis" / TSVIS_EVENT_FILE, np.random.default_rng(8))


@contextmanager
def _events(path: Path) -> Iterator[Write]:
    """A writer of events to a new event file at `path`, its first record the file version."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:

        def write(event: Event) -> None:
            write_record(stream, event.SerializeToString())

        write(Event(wall_time=START_TIME, file_version="brain.Event:2"))
        yield write


def _write_training(write: Write, rate: float, seed: int, rng: np.random.Generator, *, first: bool) -> None:
    wall_time = START_TIME
    write(Event(wall_time=wall_time, session_log=SessionLog(status=SessionLog.START)))
    write(Event(wall_time=wall_time, step=0, summary=_session_start(rate, seed)))
    write(Event(wall_time=wall_time, step=0, summary=_text("notes", NOTES.format(rate=rate, seed=seed))))
    if first:
        write(Event(wall_time=wall_time, graph_def=_graph().SerializeToString()))
    steps = list(range(STEPS))
    restart_at = 120 if first else None
    if restart_at is not None:
        # The process died after step 149 and resumed from its checkpoint at `restart_at`: the restart's
        # SessionLog.START makes TensorBoard (and trainboard) drop the points from `restart_at` on.
        steps = [step for step in steps if step < 150] + [-1] + [step for step in steps if step >= restart_at]
    for step in steps:
        wall_time += 1
        if step == -1:
            write(Event(wall_time=wall_time, step=restart_at, session_log=SessionLog(status=SessionLog.START)))
            continue
        write(_scalars(step, rate, seed, rng, wall_time))
        if seed == 0 and step % 20 == 0:
            write(_media(step, rate, rng, wall_time))
    write(Event(wall_time=wall_time, step=STEPS, summary=_session_end(wall_time)))


def _scalars(step: int, rate: float, seed: int, rng: np.random.Generator, wall_time: float) -> Event:
    loss = (2.5 + 0.2 * seed) * math.exp(-step * rate / 8) + 0.05 * float(rng.normal())
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


def _text(tag: str, *rows: str, shape: tuple[int, ...] = ()) -> Summary:
    """A text summary: a string tensor of `shape` (a scalar by default)."""
    summary = Summary()
    value = summary.value.add(tag=tag)
    value.metadata.plugin_data.plugin_name = "text"
    value.tensor.dtype = DataType.DT_STRING
    value.tensor.tensor_shape.dim.extend([TensorProto().tensor_shape.Dim(size=size) for size in shape])
    value.tensor.string_val.extend(row.encode() for row in rows)
    return summary


def _hparams(tag: str, data: hparams_pb2.HParamsPluginData) -> Summary:
    """An hparams summary as TensorBoard's `hparams_pb` writes it: the data in the metadata, an empty tensor."""
    summary = Summary()
    value = summary.value.add(tag=tag)
    value.metadata.plugin_data.plugin_name = "hparams"
    value.metadata.plugin_data.content = data.SerializeToString()
    value.tensor.dtype = DataType.DT_FLOAT
    value.tensor.tensor_shape.dim.add(size=0)
    return summary


def _experiment() -> Summary:
    experiment = hparams_pb2.Experiment(time_created_secs=START_TIME)
    rates = struct_pb2.ListValue(values=[struct_pb2.Value(number_value=rate) for rate in RATES])
    experiment.hparam_infos.add(
        name="lr", display_name="learning rate", type=hparams_pb2.DATA_TYPE_FLOAT64, domain_discrete=rates
    )
    experiment.hparam_infos.add(name="seed", type=hparams_pb2.DATA_TYPE_FLOAT64)
    experiment.hparam_infos.add(name="optimizer", type=hparams_pb2.DATA_TYPE_STRING)
    experiment.metric_infos.add(name=hparams_pb2.MetricName(tag="loss"), display_name="loss")
    experiment.metric_infos.add(name=hparams_pb2.MetricName(tag="accuracy"), display_name="accuracy")
    return _hparams("_hparams_/experiment", hparams_pb2.HParamsPluginData(experiment=experiment))


def _session_start(rate: float, seed: int) -> Summary:
    start = hparams_pb2.SessionStartInfo(group_name=f"lr-{rate}", start_time_secs=START_TIME)
    start.hparams["lr"].number_value = rate
    start.hparams["seed"].number_value = seed
    start.hparams["optimizer"].string_value = "sgd" if rate == RATES[0] else "adam"
    return _hparams("_hparams_/session_start_info", hparams_pb2.HParamsPluginData(session_start_info=start))


def _session_end(wall_time: float) -> Summary:
    end = hparams_pb2.SessionEndInfo(status=hparams_pb2.STATUS_SUCCESS, end_time_secs=wall_time)
    return _hparams("_hparams_/session_end_info", hparams_pb2.HParamsPluginData(session_end_info=end))


def _layout() -> Summary:
    """A custom scalars layout: the sweep's losses on one chart, accuracy with a band on another."""
    layout = layout_pb2.Layout()
    category = layout.category.add(title="Sweep")
    category.chart.add(title="losses", multiline=layout_pb2.MultilineChartContent(tag=["loss", "accuracy"]))
    band = layout_pb2.MarginChartContent.Series(value="accuracy", lower="accuracy", upper="learning_rate")
    category.chart.add(title="accuracy band", margin=layout_pb2.MarginChartContent(series=[band]))
    summary = Summary()
    value = summary.value.add(tag="custom_scalars__config__")
    value.metadata.plugin_data.plugin_name = "custom_scalars"
    value.tensor.dtype = DataType.DT_STRING
    value.tensor.string_val.append(layout.SerializeToString())
    return summary


def _graph() -> GraphDef:
    """A small model's graph: input -> dense (matmul + bias) -> relu -> output, and a loss."""
    graph = GraphDef()
    for name, op, inputs in (
        ("input", "Placeholder", []),
        ("dense/kernel", "VariableV2", []),
        ("dense/bias", "VariableV2", []),
        ("dense/MatMul", "MatMul", ["input", "dense/kernel"]),
        ("dense/BiasAdd", "BiasAdd", ["dense/MatMul", "dense/bias"]),
        ("relu", "Relu", ["dense/BiasAdd"]),
        ("labels", "Placeholder", []),
        ("loss", "SoftmaxCrossEntropyWithLogits", ["relu", "labels"]),
    ):
        node = graph.node.add(name=name, op=op, input=inputs)
        node.attr["T"].type = DataType.DT_FLOAT
    graph.versions.producer = 22
    return graph


def _write_eval(directory: Path, rng: np.random.Generator) -> None:
    with _events(directory / EVENT_FILE) as write:
        table = _text("summary", "metric", "value", "loss", "0.12", "accuracy", "0.96", shape=(3, 2))
        write(Event(wall_time=START_TIME, step=0, summary=table))
        for step in range(0, STEPS, 20):
            write(Event(wall_time=START_TIME + step, step=step, summary=_pr_curve("pr", step, rng)))
    _write_embedding(directory, rng)


def _pr_curve(tag: str, step: int, rng: np.random.Generator, thresholds: int = 21) -> Summary:
    """TensorBoard's pr_curves form: a float tensor [6, thresholds] of TP, FP, TN, FN, precision and recall."""
    labels = rng.integers(0, 2, size=200).astype(bool)
    skill = 0.2 + 0.6 * step / STEPS
    predictions = np.clip(labels * skill + rng.uniform(size=200) * (1 - skill), 0, 1)
    predicted = predictions[None, :] >= np.linspace(0, 1, thresholds)[:, None]
    tp, fp = (predicted & labels).sum(axis=1), (predicted & ~labels).sum(axis=1)
    tn, fn = (~predicted & ~labels).sum(axis=1), (~predicted & labels).sum(axis=1)
    precision, recall = tp / np.maximum(tp + fp, 1), tp / np.maximum(tp + fn, 1)
    table = np.stack([tp, fp, tn, fn, precision, recall]).astype(np.float32)
    summary = Summary()
    value = summary.value.add(tag=tag)
    value.metadata.plugin_data.plugin_name = "pr_curves"
    plugin_data = plugin_data_pb2.PrCurvePluginData(version=0, num_thresholds=thresholds)
    value.metadata.plugin_data.content = plugin_data.SerializeToString()
    value.tensor.CopyFrom(_tensor(table))
    return summary


def _tensor(array: np.ndarray) -> TensorProto:
    tensor = TensorProto(dtype=DataType.DT_FLOAT, tensor_content=array.astype("<f4").tobytes())
    tensor.tensor_shape.dim.extend([TensorProto().tensor_shape.Dim(size=size) for size in array.shape])
    return tensor


def _write_embedding(directory: Path, rng: np.random.Generator) -> None:
    """An embedding as PyTorch's `add_embedding` writes one: tensors and metadata as TSV, a projector config beside
    the run's event file naming them."""
    classes = ("cat", "dog", "bird")
    labels = np.arange(90) % len(classes)
    centres = rng.normal(scale=4, size=(len(classes), 8))
    points = centres[labels] + rng.normal(size=(len(labels), 8))
    folder = directory / "00000" / "features"
    folder.mkdir(parents=True)
    (folder / "tensors.tsv").write_text("".join("\t".join(f"{v:.5f}" for v in row) + "\n" for row in points))
    rows = [f"{classes[label]}\t{index}" for index, label in enumerate(labels)]
    (folder / "metadata.tsv").write_text("class\tindex\n" + "".join(row + "\n" for row in rows))
    config = ProjectorConfig()
    config.embeddings.add(
        tensor_name="features:00000",
        tensor_path="00000/features/tensors.tsv",
        metadata_path="00000/features/metadata.tsv",
    )
    (directory / "projector_config.pbtxt").write_text(text_format.MessageToString(config))


def _write_tsvis(path: Path, rng: np.random.Generator) -> None:
    """An exception tensor as TS-VIS's `add_exception` writes one: a projector message in Summary.Value field 7."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        for step in range(5):
            values = rng.normal(step / 10, 1, size=(4, 6, 5)).astype(np.float32)
            values[1, 2, 3], values[3, 0, 1] = 40.0, -35.0
            tensor = tsvis_pb2.Tensor(dtype="float32", tensor_content=values.tobytes())
            tensor.tensor_shape.dim.extend([tsvis_pb2.Tensor.Shape.Dim(size=size) for size in values.shape])
            projector = tsvis_pb2.Projector(exception=tsvis_pb2.Projector.Exception(value=tensor))
            summary = Summary()
            summary.value.add(tag="activations", node_name=projector.SerializeToString())
            event = Event(wall_time=START_TIME + step, step=step, summary=summary)
            write_record(stream, event.SerializeToString())


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
