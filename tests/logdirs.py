"""Log directories written by the real writers users use, with fixed seeds so every value is deterministic.

Each `write_*_run` function writes one run; `write_full_logdir` puts them together so that every TensorBoard plugin,
every writer, nested runs, both kinds of restart and a legacy-format file are in one logdir.
"""

from __future__ import annotations

import io
import math
import time
import wave
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tensorboardX
import torch
from PIL import Image
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.audio import metadata as audio_metadata
from tensorboard.plugins.histogram import summary_v2 as histogram_summary
from tensorboard.plugins.hparams import summary_v2 as hparams_summary
from tensorboard.plugins.image import metadata as image_metadata
from tensorboard.plugins.pr_curve import metadata as pr_curve_metadata
from tensorboard.plugins.scalar import summary_v2 as scalar_summary
from tensorboard.plugins.text import summary_v2 as text_summary
from tensorboard.summary.writer.record_writer import RecordWriter
from tensorboard.util import tensor_util
from tensorboardX.proto import summary_pb2 as tensorboardx_summary_pb2
from torch.utils import tensorboard as torch_tensorboard
from torch.utils.tensorboard.writer import FileWriter

STEPS = 10
SPECIAL_FLOATS = (math.nan, math.inf, -math.inf)
# Rendered by the text plugin: the table must survive, the script must be sanitised away.
MARKDOWN = """# Notes

| metric | value |
| ------ | ----- |
| loss   | 0.25  |
| acc    | 0.9   |

<script>alert("not sanitised")</script> **bold** and `code`.
"""


class TinyNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(4, 3)
        self.out = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.out(torch.relu(self.hidden(x))), dim=-1)


def write_full_logdir(root: Path) -> Path:
    """Every plugin and every writer, nested runs, both kinds of restart and a legacy-format run, under `root`."""
    write_tensorboard_run(root)
    write_torch_run(root / "train")
    write_tensorboardx_run(root / "eval" / "a")
    write_restart_run(root / "restart")
    write_session_restart_run(root / "restart_session")
    write_legacy_run(root / "legacy")
    return root


def scalar_values(seed: int) -> list[float]:
    """STEPS values, the last three NaN, +Inf and -Inf."""
    values = np.random.default_rng(seed).normal(size=STEPS - len(SPECIAL_FLOATS)).tolist()
    return [*values, *SPECIAL_FLOATS]


def images(seed: int, count: int, height: int = 6, width: int = 8) -> np.ndarray:
    """`count` RGB images, uint8, NHWC."""
    return np.random.default_rng(seed).integers(0, 256, size=(count, height, width, 3), dtype=np.uint8)


def png(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


def tone(pitch: int, sample_rate: int = 8000, frames: int = 400) -> np.ndarray:
    return np.sin(np.arange(frames) * (pitch + 1) * 2 * np.pi * 220 / sample_rate).astype(np.float32)


def wav(samples: np.ndarray, sample_rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(sample_rate)
        file.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return buffer.getvalue()


def pr_data(seed: int, count: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Boolean labels and float32 predictions in [0, 1] that lean towards the labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=count).astype(bool)
    predictions = np.clip(labels * 0.4 + rng.uniform(size=count) * 0.6, 0, 1).astype(np.float32)
    return labels, predictions


def write_tensorboard_run(path: Path) -> None:
    """tensorboard's own TF-free summary functions, and its plugin metadata where those functions need TensorFlow,
    written by torch's FileWriter (TensorBoard's EventFileWriter underneath)."""
    rng = np.random.default_rng(1)
    writer = FileWriter(str(path))
    hparams = [
        hparams_summary.HParam("lr", hparams_summary.RealInterval(0.0, 1.0)),
        hparams_summary.HParam("optimizer", hparams_summary.Discrete(["adam", "sgd"])),
    ]
    writer.add_summary(
        hparams_summary.hparams_config_pb(hparams, [hparams_summary.Metric("tb/loss", display_name="loss")])
    )
    writer.add_summary(hparams_summary.hparams_pb({"lr": 0.01, "optimizer": "adam"}, trial_id="root"))
    for step, value in enumerate(scalar_values(seed=1)):
        summaries = [
            scalar_summary.scalar_pb("tb/loss", value, description="loss from *scalar_pb*"),
            histogram_summary.histogram_pb("tb/weights", rng.normal(step, 1, size=200), buckets=12),
            text_summary.text_pb("tb/notes", MARKDOWN if step == 0 else f"step **{step}**"),
            text_summary.text_pb("tb/table", np.array([["a", "b"], [str(step), "<b>x</b>"]])),
            image_summary("tb/samples", [png(image) for image in images(step, 3)], width=8, height=6),
            audio_summary("tb/voices", [(wav(tone(step + k)), f"voice *{k}*") for k in range(2)]),
            pr_curve_summary("tb/pr", *pr_data(step), num_thresholds=11),
        ]
        for summary in summaries:
            writer.add_summary(summary, global_step=step)
    writer.close()


def image_summary(tag: str, encoded: list[bytes], width: int, height: int) -> summary_pb2.Summary:
    """TensorBoard's image format: a string tensor [width, height, png, png, ...], several samples per step."""
    tensor = tensor_util.make_tensor_proto([str(width).encode(), str(height).encode(), *encoded])
    metadata = image_metadata.create_summary_metadata(display_name=tag, description="several samples")
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)])


def audio_summary(tag: str, clips: list[tuple[bytes, str]]) -> summary_pb2.Summary:
    """TensorBoard's audio format: a string tensor [[wav, label], ...], several samples per step."""
    tensor = tensor_util.make_tensor_proto([[clip, label.encode()] for clip, label in clips])
    metadata = audio_metadata.create_summary_metadata(
        display_name=tag, description="", encoding=audio_metadata.Encoding.Value("WAV")
    )
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)])


def pr_curve_summary(tag: str, labels: np.ndarray, predictions: np.ndarray, num_thresholds: int) -> summary_pb2.Summary:
    """TensorBoard's pr_curve format: a float tensor [6, num_thresholds] of TP, FP, TN, FN, precision, recall."""
    predicted = predictions[None, :] >= np.linspace(0, 1, num_thresholds)[:, None]
    counts = [
        (predicted & labels).sum(axis=1),
        (predicted & ~labels).sum(axis=1),
        (~predicted & ~labels).sum(axis=1),
        (~predicted & labels).sum(axis=1),
    ]
    tp, fp, _, fn = counts
    precision = tp / np.maximum(tp + fp, 1)
    recall = tp / np.maximum(tp + fn, 1)
    tensor = tensor_util.make_tensor_proto(np.stack([*counts, precision, recall]).astype(np.float32))
    metadata = pr_curve_metadata.create_summary_metadata(
        display_name=tag, description="", num_thresholds=num_thresholds
    )
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)])


def write_torch_run(path: Path) -> None:
    """torch.utils.tensorboard.SummaryWriter, everything it writes (add_scalars and add_hparams add runs below)."""
    torch.manual_seed(0)
    rng = np.random.default_rng(2)
    with torch_tensorboard.SummaryWriter(str(path)) as writer:
        writer.add_graph(TinyNet(), torch.zeros(1, 4))
        writer.add_custom_scalars(
            {"torch": {"losses": ["Multiline", ["loss", "scalars/.*"]], "band": ["Margin", ["loss", "low", "high"]]}}
        )
        for step, value in enumerate(scalar_values(seed=2)):
            writer.add_scalar("loss", value, step)
            writer.add_scalar("low", step - 1.0, step)
            writer.add_scalar("high", step + 1.0, step)
            writer.add_scalars("scalars", {"group_a": step * 0.5, "group_b": -step * 0.5}, step)
            writer.add_histogram("weights", rng.normal(step, 1, size=100), step)
            writer.add_images("batch", torch.from_numpy(images(step, 4)).permute(0, 3, 1, 2), step)
            writer.add_audio("clip", torch.from_numpy(tone(step)), step, sample_rate=8000)
            writer.add_text("notes", MARKDOWN if step == 0 else f"step {step}", step)
            labels, predictions = pr_data(step + 100)
            writer.add_pr_curve("pr", torch.from_numpy(labels), torch.from_numpy(predictions), step, num_thresholds=21)
        vertices, colors, faces = tetrahedron()
        writer.add_mesh("tetra", vertices=vertices, colors=colors, faces=faces, global_step=0)
        features = torch.from_numpy(rng.normal(size=(12, 5)).astype(np.float32))
        writer.add_embedding(features, metadata=[f"point {i}" for i in range(12)], tag="points", global_step=0)
        writer.add_hparams({"lr": 0.1, "layers": 2, "optimizer": "sgd"}, {"hparam/accuracy": 0.75}, run_name="hparams")


def write_tensorboardx_run(path: Path) -> None:
    """tensorboardX.SummaryWriter, everything it writes (add_hparams adds a run below)."""
    torch.manual_seed(1)
    rng = np.random.default_rng(3)
    with tensorboardX.SummaryWriter(str(path)) as writer:
        writer.add_graph(TinyNet(), torch.zeros(1, 4))
        writer.add_custom_scalars({"tensorboardX": {"accuracy": ["Multiline", ["accuracy"]]}})
        for step, value in enumerate(scalar_values(seed=3)):
            writer.add_scalar("accuracy", value, step)
            writer.add_histogram("activations", rng.normal(-step, 2, size=100), step)
            writer.add_images("inputs", images(step + 20, 3), step, dataformats="NHWC")
            writer.add_audio("speech", tone(step + 5), step, sample_rate=8000)
            writer.add_text("log", MARKDOWN if step == 0 else f"line {step}", step)
            labels, predictions = pr_data(step + 200)
            writer.add_pr_curve("precision_recall", labels, predictions, step, num_thresholds=15)
        vertices, colors, faces = tetrahedron()
        writer.add_mesh("tetra", vertices=vertices, colors=colors, faces=faces, global_step=0)
        writer.add_embedding(rng.normal(size=(8, 3)), metadata=[str(i) for i in range(8)], tag="vectors", global_step=0)
        writer.add_hparams({"lr": 0.2, "dropout": 0.5}, {"hparam/loss": 0.5}, name="hparams")


def tetrahedron() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    vertices = torch.tensor([[[1.0, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]])
    colors = torch.tensor([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]], dtype=torch.int32)
    faces = torch.tensor([[[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]]], dtype=torch.int32)
    return vertices, colors, faces


def write_restart_run(path: Path) -> None:
    """Steps 0..9, then a new writer in the same run writing steps 5..14, as a resumed PyTorch job does."""
    write_steps(path, range(STEPS), writer_index=0)
    write_steps(path, range(5, STEPS + 5), writer_index=1)


def write_session_restart_run(path: Path) -> None:
    """As `write_restart_run`, with a SessionLog START at each writer's first step: the second one is a restart."""
    write_steps(path, range(STEPS), writer_index=0, session_start=True)
    write_steps(path, range(5, STEPS + 5), writer_index=1, session_start=True)


def write_steps(path: Path, steps: range, writer_index: int, session_start: bool = False) -> None:
    """Values are writer_index + 1/(step+1), so a point tells which writer wrote it."""
    # The suffix keeps the files in writing order even when both writers start within the same second.
    with tensorboardX.SummaryWriter(str(path), filename_suffix=f".{writer_index}") as writer:
        if session_start:
            start = tensorboardX.proto.event_pb2.SessionLog(status=tensorboardX.proto.event_pb2.SessionLog.START)
            writer.file_writer.add_event(tensorboardX.proto.event_pb2.Event(session_log=start), step=steps[0])
        for step in steps:
            writer.add_scalar("loss", writer_index + 1 / (step + 1), step)
            writer.add_scalar("lr", writer_index + step / 100, step)


def write_legacy_run(path: Path) -> None:
    """A 'brain.Event:1' file of pre-plugin summaries (simple_value, histo, image, audio) built from TensorBoard's
    protos and framed by its RecordWriter. `loss` rewinds from step 9 to 6: old files are purged per tag."""
    path.mkdir(parents=True)
    start = time.time()
    events = [event_pb2.Event(wall_time=start, file_version="brain.Event:1")]
    rng = np.random.default_rng(4)
    for index, step in enumerate([*range(STEPS), 6, 7]):
        values = [summary_pb2.Summary.Value(tag="loss", simple_value=index + 1 / (step + 1))]
        if index < STEPS:
            values += [
                summary_pb2.Summary.Value(tag="histo", histo=legacy_histogram(rng.normal(step, 1, size=64))),
                summary_pb2.Summary.Value(tag="picture", image=legacy_image(images(step + 40, 1)[0])),
                summary_pb2.Summary.Value(tag="sound", audio=legacy_audio(tone(step + 9))),
            ]
        summary = summary_pb2.Summary(value=values)
        events.append(event_pb2.Event(wall_time=start + index / 10, step=step, summary=summary))
    writer = RecordWriter((path / f"events.out.tfevents.{int(start):010d}.legacy").open("wb"))
    for event in events:
        writer.write(event.SerializeToString())
    writer.close()


def legacy_histogram(values: np.ndarray) -> summary_pb2.HistogramProto:
    """TensorFlow's layout: right bucket edges, the last one DBL_MAX, with empty buckets at both ends."""
    counts, edges = np.histogram(values, bins=8)
    return summary_pb2.HistogramProto(
        min=float(values.min()),
        max=float(values.max()),
        num=float(values.size),
        sum=float(values.sum()),
        sum_squares=float((values**2).sum()),
        bucket_limit=[float(edges[0]) - 1, *edges[1:].tolist(), float(np.finfo(np.float64).max)],
        bucket=[0.0, *counts.astype(float).tolist(), 0.0],
    )


def legacy_image(image: np.ndarray) -> summary_pb2.Summary.Image:
    height, width, channels = image.shape
    return summary_pb2.Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=png(image))


def legacy_audio(samples: np.ndarray, sample_rate: int = 8000) -> summary_pb2.Summary.Audio:
    return summary_pb2.Summary.Audio(
        sample_rate=sample_rate,
        num_channels=1,
        length_frames=samples.size,
        encoded_audio_string=wav(samples, sample_rate),
        content_type="audio/wav",
    )


def write_sweep_logdir(root: Path, *, seeds: int = 3, steps: int = 40) -> Path:
    """A hyperparameter sweep as torch's SummaryWriter writes it: one run per (optimizer, lr, seed), each with its
    hparams session (torch's `hparams` summaries, in the run itself) and `loss`, `acc` and `val/acc` scalars; one run
    without hparams, and NaN as a final value."""
    rng = np.random.default_rng(7)
    for optimizer in ("adam", "sgd"):
        for lr in (0.001, 0.01, 0.1):
            for seed in range(seeds):
                path = root / optimizer / f"lr{lr}_seed{seed}"
                with torch_tensorboard.SummaryWriter(str(path)) as writer:
                    scale = (1.0 / (1 + 100 * lr) + seed * 0.01) * (1.0 if optimizer == "adam" else 1.6)
                    for step in range(steps):
                        writer.add_scalar("loss", scale * math.exp(-step / 10) + rng.normal(0, 0.01), step)
                        writer.add_scalar("acc", 1 - scale * math.exp(-step / 10), step)
                        writer.add_scalar("val/acc", 0.9 - scale * math.exp(-step / 8), step)
                    hparams = {"lr": lr, "optimizer": optimizer, "seed": seed, "warmup": seed % 2 == 0}
                    for summary in torch_hparams_summaries(hparams, {"acc": 0.0}):
                        writer.file_writer.add_summary(summary)
    with torch_tensorboard.SummaryWriter(str(root / "baseline")) as writer:
        for step in range(steps):
            writer.add_scalar("loss", math.nan if step == steps - 1 else 1.0, step)
    return root


def torch_hparams_summaries(hparams: dict[str, object], metrics: dict[str, float]) -> tuple[object, object, object]:
    from torch.utils.tensorboard.summary import hparams as hparams_summaries

    return hparams_summaries(hparams, metrics)


# The sweep a team runs and compares: 2 experiments x 3 learning rates x 2 batch sizes x 5 seeds, 15 scalar tags in
# four groups, every tag at every step (`write_sweep_runs_logdir`).
SWEEP_EXPERIMENTS = {"exp0": "adam", "exp1": "sgd"}
SWEEP_LRS = (0.0003, 0.001, 0.003)
SWEEP_BATCH_SIZES = (32, 128)
SWEEP_SEEDS = 5
SWEEP_STEPS = 5000
SWEEP_TAGS = (
    "train/loss",
    "train/acc",
    "train/lr",
    "train/grad_norm",
    "train/throughput",
    "val/loss",
    "val/acc",
    "val/top5_acc",
    "val/f1",
    "val/perplexity",
    "system/gpu_util",
    "system/memory_gb",
    "system/step_time_ms",
    "optim/weight_norm",
    "optim/update_ratio",
)
SWEEP_METRICS = ("val/loss", "val/acc")


@dataclass(frozen=True, slots=True)
class SweepRun:
    experiment: str
    lr: float
    batch_size: int
    seed: int

    @property
    def name(self) -> str:
        return f"{self.experiment}/lr{self.lr}_bs{self.batch_size}/seed{self.seed}"

    @property
    def hparams(self) -> dict[str, float | int | str]:
        optimizer = SWEEP_EXPERIMENTS[self.experiment]
        return {"lr": self.lr, "batch_size": self.batch_size, "seed": self.seed, "optimizer": optimizer}


def sweep_runs() -> list[SweepRun]:
    return [
        SweepRun(experiment, lr, batch_size, seed)
        for experiment in SWEEP_EXPERIMENTS
        for lr in SWEEP_LRS
        for batch_size in SWEEP_BATCH_SIZES
        for seed in range(SWEEP_SEEDS)
    ]


def sweep_curves(run: SweepRun, steps: int) -> dict[str, np.ndarray]:
    """Each tag's values over `steps`, as training looks: losses fall fast then slowly with noise that shrinks with the
    batch size, accuracies mirror them, the learning rate warms up then decays, the system metrics hover."""
    # crc32, not hash(): str hashes differ between processes.
    rng = np.random.default_rng(zlib.crc32(run.name.encode()))
    t = np.arange(steps, dtype=np.float64)
    # A larger lr learns faster; sgd (exp1) slower than adam; seeds differ a little.
    speed = run.lr / 0.001 * (1.0 if run.experiment == "exp0" else 0.6) * rng.uniform(0.9, 1.1)
    floor = 0.25 + 0.08 * math.log10(128 / run.batch_size) + rng.uniform(-0.02, 0.02)
    progress = 1 - np.exp(-t * speed / 800)
    noise = 0.25 * math.sqrt(32 / run.batch_size)
    wobble = np.convolve(rng.normal(0, 1, steps + 49), np.ones(50) / 50, mode="valid")
    train_loss = floor + 2.1 * (1 - progress) + noise * 0.15 * rng.normal(0, 1, steps) + 0.03 * wobble
    # Validation overfits a little once training is done.
    val_loss = floor + 0.06 + 2.0 * (1 - progress) + 0.02 * progress * t / steps + 0.02 * wobble
    train_acc = np.clip(0.1 + 0.85 * progress - 0.1 * floor + noise * 0.03 * rng.normal(0, 1, steps), 0, 1)
    val_acc = np.clip(0.1 + 0.8 * progress - 0.1 * floor + 0.01 * wobble, 0, 1)
    warmup = np.minimum(1, (t + 1) / 250)
    lr = run.lr * warmup * 0.5 * (1 + np.cos(np.pi * t / steps))
    grad_norm = np.abs(0.3 + 3 * (1 - progress) + 0.2 * rng.standard_cauchy(steps).clip(-20, 20) * noise)
    throughput = run.batch_size * 1000 / (20 + run.batch_size * 0.3) * (1 + 0.02 * rng.normal(0, 1, steps))
    step_time = run.batch_size / throughput * 1000
    weight_norm = 40 + 12 * progress * (run.lr / 0.001) ** 0.3 + 0.05 * wobble
    return {
        "train/loss": train_loss,
        "train/acc": train_acc,
        "train/lr": lr,
        "train/grad_norm": grad_norm,
        "train/throughput": throughput,
        "val/loss": val_loss,
        "val/acc": val_acc,
        "val/top5_acc": np.clip(val_acc + 0.12 * (1 - val_acc) ** 0.5, 0, 1),
        "val/f1": np.clip(val_acc * 0.96 - 0.01 * wobble, 0, 1),
        "val/perplexity": np.exp(val_loss),
        "system/gpu_util": np.clip(70 + 0.15 * run.batch_size + 3 * rng.normal(0, 1, steps), 0, 100),
        "system/memory_gb": 2 + run.batch_size * 0.05 + 0.2 * progress + 0.01 * rng.normal(0, 1, steps),
        "system/step_time_ms": step_time,
        "optim/weight_norm": weight_norm,
        "optim/update_ratio": lr * grad_norm / weight_norm,
    }


def write_sweep_run(root: Path, run: SweepRun, steps: int = SWEEP_STEPS) -> None:
    """One run of the sweep as tensorboardX writes it: its hparams session (tensorboardX's `hparams` summaries, in the
    run itself, with its final val metrics), then every tag at every step, one event per step (as a training loop
    logging its metrics together does; five times faster to write than an event per value)."""
    curves = sweep_curves(run, steps)
    with tensorboardX.SummaryWriter(str(root / run.name)) as writer:
        metrics = {tag: float(curves[tag][-1]) for tag in SWEEP_METRICS}
        for summary in tensorboardX.summary.hparams(run.hparams, metrics):
            writer.file_writer.add_summary(summary, walltime=1_700_000_000)
        columns = [curves[tag].tolist() for tag in SWEEP_TAGS]
        for step in range(steps):
            values = [
                tensorboardx_summary_pb2.Summary.Value(tag=tag, simple_value=column[step])
                for tag, column in zip(SWEEP_TAGS, columns, strict=True)
            ]
            writer.file_writer.add_summary(
                tensorboardx_summary_pb2.Summary(value=values), step, walltime=1_700_000_000 + step * 0.5
            )


def write_sweep_runs_logdir(root: Path, *, steps: int = SWEEP_STEPS) -> Path:
    """The 60-run sweep (`sweep_runs`) under `root`, one process per core, each writing whole runs."""
    runs = sweep_runs()
    with ProcessPoolExecutor() as pool:
        list(pool.map(write_sweep_run, [root] * len(runs), runs, [steps] * len(runs)))
    return root
