"""Run with TS-VIS's Python (.venv-tsvis): writes one record of every kind TS-VIS's SummaryWriter writes under
LOGDIR/run, then prints, as JSON, what TS-VIS's own reader reads back: a list of {type, tag, step, ...} items with
tensors as {dtype, shape, values}.

Usage: python write_every_kind.py LOGDIR
"""

import contextlib
import json
import os
import sys

import numpy as np
from tsvis import SummaryWriter
from tsvis.parser.visparser.summary_reader import SummaryReader


def write(directory):
    rng = np.random.default_rng(3)
    writer = SummaryWriter(directory)
    for step in range(3):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_text("notes", f"step **{step}** <b>bold</b>", step)
        writer.add_histogram("weights", rng.normal(size=1000), step)
        writer.add_image("picture", rng.integers(0, 255, size=(8, 6, 3), dtype=np.uint8), step)
        writer.add_exception("activations", rng.normal(size=(2, 3, 4)).astype(np.float32), step)
    writer.add_exception("counts", np.arange(12, dtype=np.int64).reshape(3, 4), 0)
    writer.add_audio("sound", rng.uniform(-1, 1, size=(800, 1)).astype(np.float32), 0, sample_rate=8000)
    writer.add_embedding("features", rng.normal(size=(20, 5)), label=np.arange(20) % 3, step=4)
    writer.add_embedding("features", rng.normal(size=(20, 5)), label=np.arange(20) % 3, step=9)
    writer.add_embedding_sample("features", rng.uniform(size=(20, 8, 8)), "image")
    writer.add_embedding("words", rng.normal(size=(6, 3)), label=np.arange(6), step=0)
    writer.add_embedding_sample("words", ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"], "text")
    writer.add_hparams({"lr": 0.01, "optimizer": "adam", "augment": True}, ["loss"], tag="first")
    writer.add_hparams({"lr": 0.1, "optimizer": "sgd", "augment": False}, ["loss", "missing"], tag="first")
    writer.close()


def tensor(array):
    array = np.asarray(array)
    return {"dtype": array.dtype.name, "shape": list(array.shape), "values": array.ravel().tolist()}


def read(directory):
    items = []
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), "rb") as file:
            for item in SummaryReader(file):
                found = {"file": name, "type": item["type"], "tag": item.get("tag"), "step": item["step"]}
                value = item["value"]
                if item["type"] == "scalar":
                    found["value"] = value
                elif item["type"] == "text":
                    text = np.asarray(value).ravel()[0]
                    found["text"] = text.decode() if isinstance(text, bytes) else str(text)
                elif item["type"] in ("exception",):
                    found["tensor"] = tensor(value)
                elif item["type"] == "embedding" and "label" in item:
                    found["tensor"] = tensor(value)
                    found["label"] = tensor(item["label"])
                items.append(found)
    return items


if __name__ == "__main__":
    # TS-VIS prints the names of the files it writes.
    run = os.path.join(sys.argv[1], "run")
    with contextlib.redirect_stdout(sys.stderr):
        write(run)
    print(json.dumps(read(run)))
