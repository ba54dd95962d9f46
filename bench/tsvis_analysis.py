"""TS-VIS analyses benchmark: projection time for 10,000 × 128 embeddings per method (PCA, t-SNE, UMAP), and
exception_data latency (median of several runs) for a 4-D tensor of 1M elements; each with its process's peak RSS,
beside TS-VIS 0.4.2's own code (.venv-tsvis) on the same data where it runs.

    .venv/bin/python -m bench.tsvis_analysis [--points 10000] [--features 128] [--repeats 7]
        [--methods pca tsne umap] [--dims 2 3]

Every measurement runs in a fresh process, so that peak RSS is its own and UMAP's first call pays numba's compile
(its second call, in the same process, is shown as warm). TS-VIS projects only the first 1000 points; its PCA is
timed on all of them too, by calling its reduction directly. Its t-SNE needs tsne-mp, which no index here has.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import orjson

ROOT = Path(__file__).resolve().parents[1]
TSVIS_PYTHON = ROOT / ".venv-tsvis" / "bin" / "python"
TSVIS_SHIM = ROOT / "tests" / "tsvis" / "shim"
TENSOR_SHAPE = (16, 32, 32, 64)  # [B, W, H, C]: 1,048,576 values

# Run by TS-VIS's Python: its own PCA (on all points and on its first 1000) and its exception_data, timed the same way.
TSVIS_CHILD = """
import json, resource, statistics, sys, time
import numpy as np
from tsvis.server.backend.component.Exception.exception_read import Exception_read
from tsvis.server.backend.component.Projector.projector_reduction import projector_reduction
kind, path, argument = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = np.load(path)
if kind == "pca":
    found = {}
    for label, points in (("all", data), ("first 1000", data[:1000])):
        started = time.perf_counter()
        projector_reduction(points.copy(), "pca", dimension=argument).Pca()
        found[label] = time.perf_counter() - started
else:
    times = []
    for _ in range(argument):
        started = time.perf_counter()
        json.dumps(Exception_read(data=[{"step": 0, "value": data}], step=0).get_data())
        times.append(time.perf_counter() - started)
    found = {"median": statistics.median(times)}
found["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(found))
"""


def embeddings(points: int, features: int) -> np.ndarray:
    """float32 points around 10 cluster centres, as trained embeddings tend to be."""
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=4, size=(10, features))
    return (centres[rng.integers(0, 10, points)] + rng.normal(size=(points, features))).astype(np.float32)


def child(kind: str, path: str, argument: str) -> dict[str, float]:
    """One measurement in this process: a projection (argument: method:dims) or exception_data (argument: repeats)."""
    from trainboard.analysis.exceptions import heat_map
    from trainboard.analysis.projections import project

    data = np.load(path)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    found: dict[str, float] = {}
    if kind == "projection":
        method, dims = argument.split(":")
        for label in ("cold", "warm") if method == "umap" else ("cold",):
            started = time.perf_counter()
            project(data, method, int(dims))
            found[label] = time.perf_counter() - started
    else:
        computed, encoded = [], []
        for _ in range(int(argument)):
            started = time.perf_counter()
            answer = heat_map(data)
            computed.append(time.perf_counter() - started)
            orjson.dumps({"0": answer})
            encoded.append(time.perf_counter() - started)
        found = {"median": statistics.median(computed), "median_with_json": statistics.median(encoded)}
    found["rss_before_mb"] = before
    found["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return found


def run(command: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def ours(kind: str, path: Path, argument: str) -> dict[str, Any]:
    return run([sys.executable, "-m", "bench.tsvis_analysis", "--child", kind, str(path), argument])


def theirs(kind: str, path: Path, argument: int) -> dict[str, Any]:
    if not TSVIS_PYTHON.exists():
        return {"error": f"{TSVIS_PYTHON} is missing (scripts/test builds it)"}
    command = [str(TSVIS_PYTHON), "-c", TSVIS_CHILD, kind, str(path), str(argument)]
    return run(command, env={"PYTHONPATH": str(TSVIS_SHIM), "PATH": "/usr/bin:/bin"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--methods", nargs="+", default=["pca", "tsne", "umap"])
    parser.add_argument("--dims", nargs="+", type=int, default=[2, 3])
    parser.add_argument("--child", nargs=3, metavar=("KIND", "PATH", "ARGUMENT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return

    with tempfile.TemporaryDirectory() as folder:
        points_path, tensor_path = Path(folder) / "points.npy", Path(folder) / "tensor.npy"
        np.save(points_path, embeddings(args.points, args.features))
        np.save(tensor_path, np.random.default_rng(1).normal(size=TENSOR_SHAPE).astype(np.float32))

        print(f"projections of {args.points:,} x {args.features} float32 embeddings (seconds; peak RSS in MB)")
        for method in args.methods:
            for dims in args.dims:
                found = ours("projection", points_path, f"{method}:{dims}")
                print(f"  trainboard {method:5} {dims}-D: {_format(found)}", flush=True)
                if method == "pca":
                    print(f"  TS-VIS     pca   {dims}-D: {_format(theirs('pca', points_path, dims))}", flush=True)
        print("  TS-VIS     tsne: not measured (its tsne-mp is on no index here)")

        print(f"exception_data for a {TENSOR_SHAPE} float32 tensor, median of {args.repeats} (seconds; MB)")
        print(f"  trainboard: {_format(ours('exception_data', tensor_path, str(args.repeats)))}", flush=True)
        print(f"  TS-VIS (with json.dumps): {_format(theirs('exception_data', tensor_path, args.repeats))}")


def _format(found: dict[str, Any]) -> str:
    return ", ".join(
        f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}" for key, value in found.items()
    )


if __name__ == "__main__":
    main()
