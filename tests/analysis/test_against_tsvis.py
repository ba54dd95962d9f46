"""The analyses agree with TS-VIS 0.4.2's own code, run in .venv-tsvis (it needs NumPy 1.23: `np.int`,
`interpolation=`), on generated tensors where TS-VIS is right: finite values (NaN too for its box, which ignores
NaN), and PCA on at most 1000 points (TS-VIS projects only the first 1000). TS-VIS's t-SNE needs tsne-mp, which no
index here has, so t-SNE is compared with nothing but the tests of test_projections."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.tsvis.venv import PYTHON, SHIM
from trainboard.analysis.exceptions import box, box_series, heat_map, histogram, outliers
from trainboard.analysis.projections import project
from trainboard.analysis.tensors import grid_shape, tiled

SCRIPT = Path(__file__).with_name("tsvis_reference.py")
SHAPES = [(7,), (1,), (3, 5), (1, 9), (6, 4, 5), (7, 3, 2), (1, 2, 2), (2, 3, 4, 5), (3, 2, 2, 1), (5, 4, 3, 7)]


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[dict[str, Any], Any, dict[str, np.ndarray]]]:
    """(call, TS-VIS's answer, tensors) for every generated call."""
    if not PYTHON.exists():
        pytest.skip(f"{PYTHON} is missing: scripts/test builds it (tsvis 0.4.2 with NumPy 1.23 from the index)")
    rng = np.random.default_rng(11)
    tensors: dict[str, np.ndarray] = {}
    calls: list[dict[str, Any]] = [{"call": "grid_shape", "counts": list(range(3000))}]

    def add(tensor: np.ndarray) -> str:
        key = f"t{len(tensors)}"
        tensors[key] = tensor
        return key

    for shape in SHAPES * 3:
        floats = add(rng.normal(size=shape) * rng.uniform(0.1, 100))
        integers = add(rng.integers(-1000, 1000, size=shape).astype(np.int32))
        singles = add(rng.normal(size=shape).astype(np.float32))
        with_nan = add(np.where(rng.random(shape) < 0.2, np.nan, rng.normal(size=shape)))
        for key in (floats, integers):
            calls += [{"call": kind, "tensor": key} for kind in ("flatten", "data", "histogram")]
        calls += [{"call": "box", "tensor": key} for key in (floats, integers, singles, with_nan)]
        up, down = sorted(rng.normal(size=2) * 50, reverse=True)
        calls += [{"call": "outliers", "tensor": key, "up": up, "down": down} for key in (floats, integers)]
        data = tensors[floats]
        calls.append({"call": "outliers", "tensor": floats, "up": data.min(), "down": data.max()})
    steps = [add(rng.normal(size=(4, 3)) + step) for step in range(120)]
    calls.append({"call": "meta", "tensors": steps})
    for count, features, dims in ((1000, 16, 3), (300, 5, 2), (50, 2, 3), (200, 128, 2)):
        points = rng.normal(size=(count, features)) * np.linspace(5, 1, features)
        calls.append({"call": "pca", "tensor": add(points), "dims": dims})

    folder = tmp_path_factory.mktemp("tsvis_analysis")
    np.savez(folder / "tensors.npz", **tensors)
    (folder / "calls.json").write_text(json.dumps(calls))
    done = subprocess.run(
        [str(PYTHON), str(SCRIPT), str(folder / "tensors.npz"), str(folder / "calls.json")],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(SHIM)},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [(call, answer, tensors) for call, answer in zip(calls, json.loads(done.stdout), strict=True)]


def of_kind(cases: list[tuple[dict[str, Any], Any, dict[str, np.ndarray]]], kind: str) -> list[Any]:
    found = [(call, answer, call.get("tensor") and tensors[call["tensor"]]) for call, answer, tensors in cases]
    return [case for case in found if case[0]["call"] == kind]


def test_grid_shapes(cases: Any) -> None:
    [(call, answer, _)] = of_kind(cases, "grid_shape")
    assert [list(grid_shape(count)) for count in call["counts"]] == answer


def test_heat_map_layout_and_summary(cases: Any) -> None:
    for _, answer, tensor in of_kind(cases, "flatten"):
        assert tiled(tensor).tolist() == answer
    for _, (shape, low, high, mean, grid), tensor in of_kind(cases, "data"):
        ours = heat_map(tensor)
        assert ours[0] == shape and ours[1:3] == [low, high] and ours[4] == grid
        assert ours[3] == pytest.approx(mean, rel=1e-12, abs=1e-12)


def test_box_statistics(cases: Any) -> None:
    for _, answer, tensor in of_kind(cases, "box"):
        # float32 tensors: TS-VIS takes midpoints in float32, trainboard in float64.
        tolerance = 1e-6 if tensor.dtype == np.float32 else 1e-12
        assert box(tensor) == [pytest.approx(part, rel=tolerance, abs=tolerance, nan_ok=True) for part in answer]


def test_histograms(cases: Any) -> None:
    for _, [[low, high, buckets]], tensor in of_kind(cases, "histogram"):
        [[our_low, our_high, ours]] = histogram(tensor)
        assert (our_low, our_high) == (low, high) and ours == buckets


def test_outliers(cases: Any) -> None:
    for call, answer, tensor in of_kind(cases, "outliers"):
        assert outliers(tensor, call["up"], call["down"]) == answer


def test_box_series_picks_the_same_steps(cases: Any) -> None:
    [(call, answer, _)] = of_kind(cases, "meta")
    tensors = next(tensors for c, _, tensors in cases if c is call)
    ours = box_series([(step, tensors[key]) for step, key in enumerate(call["tensors"])])
    assert ours["step"] == answer["step"]
    assert ours["box"] == [[pytest.approx(part, rel=1e-12) for part in found] for found in answer["box"]]


def test_pca_up_to_the_sign_of_each_component(cases: Any) -> None:
    for call, answer, tensor in of_kind(cases, "pca"):
        ours, theirs = project(tensor, "pca", call["dims"]), np.array(answer)
        assert ours.shape == theirs.shape
        for column in range(call["dims"]):
            sign = np.sign(ours[:, column] @ theirs[:, column])
            assert np.allclose(ours[:, column], sign * theirs[:, column], rtol=1e-7, atol=1e-9)
