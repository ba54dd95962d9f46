"""TS-VIS hparams sessions, and the same sessions written in TensorBoard's format.

trainboard serves a TS-VIS session as TensorBoard serves a run `<run>/<group name>` (`<name> (2)`, `<name> (3)`...
for names a file repeats) whose session start info has the session's hyperparameters, the session's name as its
group, the record's wall time as its start time, and the scalars of the metrics the session names.
"""

from __future__ import annotations

import posixpath
import shutil
from pathlib import Path
from typing import Any

from tensorboard.compat.proto import summary_pb2
from tensorboard.plugins.hparams import summary_v2 as hparams_summary
from torch.utils.tensorboard.writer import FileWriter

from tests.tsvis.venv import run_in_tsvis

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tsvis"


def write_tsvis_logdir(root: Path) -> dict[str, Any]:
    """TS-VIS's own sample hparams files plus sessions and scalars written by TS-VIS's SummaryWriter; returns what
    TS-VIS's reader reads back: {run: {"sessions": [...], "scalars": {tag: [[step, wall_time, value]...]}}}."""
    shutil.copytree(FIXTURES / "hp", root / "hp")
    for path in (root / "hp").rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    read: dict[str, Any] = run_in_tsvis(Path(__file__).with_name("write_hparams.py"), str(root))
    return read


def write_tensorboard_equivalent(read: dict[str, Any], root: Path) -> None:
    for run, found in read.items():
        taken: set[str] = set()
        for session in found["sessions"]:
            name = posixpath.join(run, session["group_name"])
            number = 1
            while name in taken:
                number += 1
                name = f"{posixpath.join(run, session['group_name'])} ({number})"
            taken.add(name)
            writer = FileWriter(str(root / name))
            start = session["wall_time"]
            writer.add_summary(
                hparams_summary.hparams_pb(session["hparams"], trial_id=name, start_time_secs=start), walltime=start
            )
            for tag in session["metrics"]:
                for step, wall_time, value in found["scalars"].get(tag, []):
                    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])
                    writer.add_summary(summary, global_step=step, walltime=wall_time)
            writer.close()
