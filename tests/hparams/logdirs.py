"""Log directories of many hparams sessions, written by the real writers: tensorboard's hparams summary functions
(with its plugin metadata for session ends, which its TF-free functions do not write), torch's `add_hparams` and
tensorboardX's `add_hparams`. Fixed seeds and times make every value deterministic.

Sessions repeat in groups (a shared trial id), miss metrics and hparams, end in every status, and hold string,
boolean, integer and float hparams; a few metric values are NaN or infinite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tensorboardX
from tensorboard.compat.proto import summary_pb2
from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2
from tensorboard.plugins.hparams import metadata as hparams_metadata
from tensorboard.plugins.hparams import summary_v2 as hparams_summary
from tensorboard.plugins.scalar import summary_v2 as scalar_summary
from torch.utils import tensorboard as torch_tensorboard
from torch.utils.tensorboard.writer import FileWriter

START_TIME = 1_700_000_000.0
OPTIMIZERS = ("adam", "sgd", "rmsprop", "adagrad_v2", "momentum 50%")
STATUSES = ("STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING", "STATUS_UNKNOWN", None)
# Metrics of the sessions written with tensorboard's functions: (group, tag).
LOSS = ("", "loss")
ACCURACY = ("validation", "accuracy")
TORCH_METRIC = "hparam/accuracy"
TENSORBOARDX_METRIC = "hparam/f1"


@dataclass(frozen=True, slots=True)
class Shape:
    """What a logdir holds, for tests that generate requests over it."""

    hparams: dict[str, str]  # name -> "string" | "bool" | "number"
    metrics: list[tuple[str, str]]  # (group, tag)


def write_writers_logdir(root: Path, trials: int = 24) -> Shape:
    """An experiment summary at the root, then sessions from all three writers."""
    writer = FileWriter(str(root))
    config = hparams_summary.hparams_config_pb(
        [
            hparams_summary.HParam("lr", hparams_summary.RealInterval(1e-4, 1.0), display_name="learning rate"),
            hparams_summary.HParam("optimizer", hparams_summary.Discrete(list(OPTIMIZERS))),
            hparams_summary.HParam("layers", hparams_summary.IntInterval(1, 8)),
            hparams_summary.HParam("batch_norm", hparams_summary.Discrete([False, True])),
            hparams_summary.HParam("dropout", hparams_summary.Discrete([0.0, 0.25, 0.5])),
        ],
        [
            hparams_summary.Metric(LOSS[1], group=LOSS[0], display_name="loss (train)"),
            hparams_summary.Metric(ACCURACY[1], group=ACCURACY[0], dataset_type=hparams_summary.Metric.VALIDATION),
            hparams_summary.Metric(TORCH_METRIC, description="from *torch*"),
            hparams_summary.Metric(TENSORBOARDX_METRIC),
        ],
        time_created_secs=START_TIME,
    )
    writer.add_summary(config)
    writer.close()
    write_tensorboard_sessions(root / "tb", trials=trials, seed=1)
    write_torch_sessions(root / "torch", count=trials // 3, seed=2)
    write_tensorboardx_sessions(root / "tbx", count=trials // 3, seed=3)
    return Shape(
        hparams={"lr": "number", "optimizer": "string", "layers": "number", "batch_norm": "bool", "dropout": "number"},
        metrics=[LOSS, ACCURACY, ("", TORCH_METRIC), ("", TENSORBOARDX_METRIC)],
    )


def write_inferred_logdir(root: Path, trials: int = 20) -> Shape:
    """No experiment summary: TensorBoard infers the experiment from the session start infos and the scalars of the
    sessions' runs and their subdirectories. One session nests inside another's run, and one run is no session."""
    write_tensorboard_sessions(root / "sweep", trials=trials, seed=4, mixed=True)
    write_session(
        root / "sweep" / "trial_000_0" / "nested",
        {"optimizer": "adam", "lr": 0.5, "mixed": 7.0, "batch_norm": True},
        trial_id="nested",
        status="STATUS_SUCCESS",
        metrics={LOSS: [0.5, 0.25], ACCURACY: [0.75], ("", "nested_only"): [1.0]},
    )
    stray = FileWriter(str(root / "not_a_session"))
    stray.add_summary(scalar_summary.scalar_pb("stray", 1.0), global_step=0)
    stray.close()
    return Shape(
        hparams={"lr": "number", "optimizer": "string", "layers": "number", "batch_norm": "bool", "mixed": "string"},
        metrics=[LOSS, ACCURACY, ("", "nested_only"), ("deeper/eval", "accuracy")],
    )


def write_tensorboard_sessions(root: Path, trials: int, seed: int, mixed: bool = False) -> None:
    """`trials` groups of 1 to 3 repeated sessions with tensorboard's `hparams_pb`; `mixed` adds an hparam that is a
    number in some sessions and a string in others."""
    rng = np.random.default_rng(seed)
    for trial in range(trials):
        hparams: dict[str, object] = {
            "optimizer": OPTIMIZERS[trial % len(OPTIMIZERS)],
            "lr": float(round(10 ** rng.uniform(-4, 0), 6)),
            "layers": int(rng.integers(1, 9)),
            "batch_norm": bool(trial % 2),
        }
        if trial % 4 != 3:
            hparams["dropout"] = [0.0, 0.25, 0.5][trial % 3]
        if mixed:
            hparams["mixed"] = float(trial) if trial % 3 else f"label_{trial}"
        for repeat in range(1 + trial % 3):
            loss = [float(value) for value in rng.uniform(0.1, 2.0, size=3)]
            if trial == 5 and repeat == 0:
                loss[-1] = math.nan
            if trial == 7:
                loss[-1] = math.inf
            metrics = {LOSS: loss}
            if (trial + repeat) % 5 != 4:
                metrics[ACCURACY] = [float(rng.uniform(0.5, 1.0))]
            if mixed and trial == 2:
                metrics[("deeper/eval", "accuracy")] = [0.5]
            write_session(
                root / f"trial_{trial:03d}_{repeat}",
                hparams,
                trial_id=f"trial_{trial:03d}",
                status=STATUSES[(trial + repeat) % len(STATUSES)],
                metrics=metrics,
                start_offset=trial * 10 + repeat,
            )


def write_session(
    path: Path,
    hparams: dict[str, object],
    *,
    trial_id: str,
    status: str | None,
    metrics: dict[tuple[str, str], list[float]],
    start_offset: float = 0,
) -> None:
    """One session: its start info and scalars (a metric of group g goes to the run `path/g`), then its end info
    unless `status` is None."""
    writer = FileWriter(str(path))
    writer.add_summary(
        hparams_summary.hparams_pb(hparams, trial_id=trial_id, start_time_secs=START_TIME + start_offset)
    )
    writers = {"": writer}
    for (group, tag), values in metrics.items():
        if group not in writers:
            writers[group] = FileWriter(str(path / group))
        for step, value in enumerate(values):
            writers[group].add_summary(scalar_summary.scalar_pb(tag, value), global_step=step * 10)
    if status is not None:
        writer.add_summary(session_end_pb(status, START_TIME + start_offset + 100))
    for one in writers.values():
        one.close()


def session_end_pb(status: str, end_time_secs: float) -> summary_pb2.Summary:
    """What tensorboard's TF-only `session_end_pb` writes, built with its plugin metadata function."""
    data = plugin_data_pb2.HParamsPluginData(
        session_end_info=plugin_data_pb2.SessionEndInfo(
            status=api_pb2.Status.Value(status), end_time_secs=end_time_secs
        )
    )
    value = summary_pb2.Summary.Value(
        tag=hparams_metadata.SESSION_END_INFO_TAG,
        metadata=hparams_metadata.create_summary_metadata(data),
        tensor=hparams_metadata.NULL_TENSOR,
    )
    return summary_pb2.Summary(value=[value])


def write_torch_sessions(root: Path, count: int, seed: int) -> None:
    """torch's `add_hparams`: one run per call below the writer's, booleans written as numbers."""
    rng = np.random.default_rng(seed)
    with torch_tensorboard.SummaryWriter(str(root)) as writer:
        for index in range(count):
            writer.add_hparams(
                {
                    "lr": float(round(rng.uniform(0.001, 0.1), 4)),
                    "optimizer": OPTIMIZERS[index % 3],
                    "layers": index % 4 + 1,
                    "batch_norm": bool(index % 2),
                },
                {LOSS[1]: float(rng.uniform(0.1, 2.0)), TORCH_METRIC: float(rng.uniform(0.5, 1.0))},
                run_name=f"session_{index:02d}",
            )


def write_tensorboardx_sessions(root: Path, count: int, seed: int) -> None:
    """tensorboardX's `add_hparams`: one run per call below the writer's."""
    rng = np.random.default_rng(seed)
    with tensorboardX.SummaryWriter(str(root)) as writer:
        for index in range(count):
            writer.add_hparams(
                {"lr": float(round(rng.uniform(0.001, 0.1), 4)), "optimizer": OPTIMIZERS[index % 4], "dropout": 0.5},
                {LOSS[1]: float(rng.uniform(0.1, 2.0)), TENSORBOARDX_METRIC: float(rng.uniform(0.0, 1.0))},
                name=f"session_{index:02d}",
            )
