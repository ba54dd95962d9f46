"""Run with TS-VIS's Python (.venv-tsvis): writes TS-VIS hparams sessions and scalars under LOGDIR with TS-VIS's own
SummaryWriter, then prints, as JSON, what TS-VIS's own reader reads back from every hparams and scalar record under
LOGDIR (the generated runs and any copied fixture files): per run, its sessions in file order and its scalars.

Usage: python write_hparams.py LOGDIR
"""

import contextlib
import json
import os
import random
import sys

from tsvis import SummaryWriter
from tsvis.parser.visparser.summary_reader import SummaryReader

OPTIMIZERS = ["adam", "sgd", "rmsprop", "momentum 50%"]


def write(logdir):
    rng = random.Random(7)
    for run in ["sweep_a", "sweep_b/train", "sweep_c"]:
        writer = SummaryWriter(os.path.join(logdir, run))
        for step in range(0, 50, 5):
            writer.add_scalar("loss", rng.uniform(0.1, 2.0), step)
            writer.add_scalar("accuracy", rng.uniform(0.5, 1.0), step)
        if run == "sweep_c":
            writer.add_scalar("loss", float("nan"), 50)
        for trial in range(6):
            hparams = {"lr": round(10 ** rng.uniform(-4, 0), 6), "optimizer": OPTIMIZERS[trial % 4]}
            if trial % 3 != 2:
                hparams["batch_norm"] = bool(trial % 2)
            if trial != 4:
                hparams["layers"] = rng.randint(1, 8)
            metrics = [["loss", "accuracy"], ["loss"], ["accuracy", "missing"]][trial % 3]
            # Repeated tags: TS-VIS keeps each call a session of its own.
            writer.add_hparams(hparams, metrics, tag=f"trial_{trial // 2}")
        writer.close()


def read(logdir):
    runs = {}
    for directory, _, names in sorted(os.walk(logdir)):
        run = os.path.relpath(directory, logdir).replace(os.sep, "/")
        for name in sorted(names):
            if "events" not in name:
                continue
            with open(os.path.join(directory, name), "rb") as file:
                for item in SummaryReader(file):
                    found = runs.setdefault(run, {"sessions": [], "scalars": {}})
                    if item["type"] == "hparams":
                        info = item["value"].session_start_info
                        found["sessions"].append(
                            {
                                "group_name": info.group_name,
                                "wall_time": item["wall_time"],
                                "hparams": {key: _value(value) for key, value in info.hparams.items()},
                                "metrics": sorted(info.metrics),
                            }
                        )
                    elif item["type"] == "scalar":
                        found["scalars"].setdefault(item["tag"], []).append(
                            [item["step"], item["wall_time"], item["value"]]
                        )
    return runs


def _value(value):
    return getattr(value, value.WhichOneof("kind"))


if __name__ == "__main__":
    # TS-VIS prints the names of the files it writes.
    with contextlib.redirect_stdout(sys.stderr):
        write(sys.argv[1])
    print(json.dumps(read(sys.argv[1])))
