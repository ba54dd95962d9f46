"""Run with TS-VIS's Python (.venv-tsvis, NumPy 1.23): answers calls to TS-VIS's own exception and PCA code.

TENSORS is an .npz file of arrays; CALLS a JSON list of `{"call": name, "tensor": key, ...}`. Prints, as JSON, one
answer per call, in order: what TS-VIS's `Exception_read` and `projector_reduction` return for it.

Usage: python tsvis_reference.py TENSORS CALLS
"""

import json
import sys

import numpy as np
from tsvis.server.backend.component.Exception.exception_read import Exception_read
from tsvis.server.backend.component.Projector.projector_reduction import projector_reduction


def points(tensors, call):
    """TS-VIS's cached exception records of one tag: a step per tensor named in the call."""
    return [{"step": step, "value": tensors[key]} for step, key in enumerate(call["tensors"])]


def answer(tensors, call):
    kind = call["call"]
    if kind == "grid_shape":
        return [list(Exception_read.get_flatten_shape(count)) for count in call["counts"]]
    if kind == "meta":
        return Exception_read(data=points(tensors, call)).get_meta_data()
    tensor = tensors[call["tensor"]]
    if kind == "flatten":
        return Exception_read().flatten(tensor).tolist()
    if kind == "box":
        return list(Exception_read.box_line(tensor.copy()))
    record = Exception_read(data=[{"step": 0, "value": tensor}], step=0)
    if kind == "data":
        found = record.get_data()
        return [list(found[0]), *found[1:]]
    if kind == "histogram":
        return [list(found) for found in record.get_histogram()]
    if kind == "outliers":
        return list(record.get_outlier([call["up"], call["down"]]))
    if kind == "pca":
        return projector_reduction(tensor.copy(), "pca", dimension=call["dims"]).Pca()
    raise ValueError(f"unknown call {kind!r}")


def main():
    tensors = dict(np.load(sys.argv[1]))
    with open(sys.argv[2]) as stream:
        calls = json.load(stream)
    json.dump([answer(tensors, call) for call in calls], sys.stdout)


if __name__ == "__main__":
    main()
