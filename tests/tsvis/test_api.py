"""TS-VIS's API answered by trainboard as by the real TS-VIS 0.4.2 backend on the same logdir, route by route.

Differences on purpose (README): histograms are TensorBoard's normalised buckets (empty end buckets dropped, float32
edges) where TS-VIS keeps the raw ones; the category lists `distribution` beside `histogram`, as seed 004 says;
failures say what went wrong without a traceback.
"""

from __future__ import annotations

import base64
import io
import json
import math
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pytest
from PIL import Image

from tests.tsvis.conftest import Both
from tests.tsvis.logdirs import FIXTURES

pytestmark = pytest.mark.differential

COMPARED_COMPONENTS = ("custom", "scalar", "media", "statistic", "hyperparm", "graph", "embedding", "exception")


def fetch(both: Both, path: str) -> tuple[Any, Any]:
    expected = both.tsvis.get(path)
    actual = both.trainboard.get(path)
    assert expected.status_code == actual.status_code == 200, (path, expected.text[:300], actual.text[:300])
    return expected.json(), actual.json()


def assert_close(expected: Any, actual: Any, where: str = "$") -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and expected.keys() == actual.keys(), (where, expected.keys(), actual)
        for key in expected:
            assert_close(expected[key], actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(expected) == len(actual), (where, len(expected), actual)
        for index, (one, other) in enumerate(zip(expected, actual, strict=True)):
            assert_close(one, other, f"{where}[{index}]")
    elif isinstance(expected, float) and not isinstance(actual, str):
        assert math.isclose(expected, actual, rel_tol=1e-6, abs_tol=1e-12), (where, expected, actual)
    else:
        assert expected == actual, (where, expected, actual)


def answered(both: Both, path: str) -> Any:
    """trainboard's data, after checking it is TS-VIS's."""
    expected, actual = fetch(both, path)
    assert expected["code"] == actual["code"] == 200, (path, expected["msg"][:300], actual["msg"])
    assert_close(expected["data"], actual["data"])
    return actual["data"]


def category(both: Both) -> dict[str, Any]:
    expected, actual = fetch(both, "/api/getCategory")
    return {"tsvis": expected["data"], "trainboard": actual["data"]}


def series(both: Both, component: str, kind: str | None = None) -> list[tuple[str, str]]:
    """(run, tag) of every series TS-VIS lists for a component (a kind of media or statistic)."""
    found = []
    for run, components in category(both)["tsvis"].items():
        listed = components.get(component, {})
        if isinstance(listed, list):
            tags = listed
        else:
            tags = listed.get(kind, []) if kind else [tag for group in listed.values() for tag in group]
        found.extend((run, tag) for tag in tags)
    assert found, f"the logdir holds no {component} {kind or ''}"
    return found


def query(run: str, tag: str, **extra: object) -> str:
    return "&".join(
        [f"run={quote(run, safe='')}", f"tag={quote(tag, safe='')}", *(f"{k}={v}" for k, v in extra.items())]
    )


def test_init(both: Both) -> None:
    assert answered(both, "/api/init") == {"msg": "success"}


def test_category(both: Both) -> None:
    listed = category(both)
    for run, components in listed["tsvis"].items():
        if not set(components) & set(COMPARED_COMPONENTS) - {"custom"}:
            continue
        expected = {name: value for name, value in components.items() if name in COMPARED_COMPONENTS}
        actual = {name: value for name, value in listed["trainboard"].get(run, {}).items() if name in expected}
        if "statistic" in actual:
            assert actual["statistic"].pop("distribution") == actual["statistic"]["histogram"]
        if expected.get("graph") == ["c_graph"]:
            expected["graph"] = ["c_graph", "s_graph"]  # collapsed from the computation graph
        assert actual == expected, run


def test_scalars(both: Both) -> None:
    for run, tag in series(both, "scalar"):
        answered(both, f"/api/scalar?{query(run, tag)}")


def test_images(both: Both) -> None:
    for run, tag in series(both, "media", "image"):
        for point in answered(both, f"/api/image?{query(run, tag)}")[tag]:
            assert answered(both, f"/api/image_raw?{query(run, tag, step=point['step'])}").startswith(
                "data:image/png;base64,"
            )


def test_audio(both: Both) -> None:
    for run, tag in series(both, "media", "audio"):
        for point in answered(both, f"/api/audio?{query(run, tag)}")[tag]:
            assert answered(both, f"/api/audio_raw?{query(run, tag, step=point['step'])}").startswith(
                "data:audio/wav;base64,"
            )


def test_text(both: Both) -> None:
    for run, tag in series(both, "media", "text"):
        answered(both, f"/api/text?{query(run, tag)}")


def normalised(rows: list[list[Any]]) -> list[list[Any]]:
    """TS-VIS's histograms with TensorBoard's buckets: empty buckets at either end dropped, the minimum as the first
    left edge and the maximum as the last right edge."""
    result = []
    for wall_time, step, low, high, buckets in rows:
        counts = [count for _, _, count in buckets]
        first = next(i for i, count in enumerate(counts) if count)
        last = max(i for i, count in enumerate(counts) if count)
        kept = [list(bucket) for bucket in buckets[first : last + 1]]
        kept[0][0], kept[-1][1] = low, high
        result.append([wall_time, step, low, high, kept])
    return result


@pytest.mark.parametrize("samples", [None, 1, 7, 49, 500])
def test_histograms_and_distributions(both: Both, samples: int | None) -> None:
    extra = {} if samples is None else {"samples": samples}
    for run, tag in series(both, "statistic", "histogram"):
        expected, actual = fetch(both, f"/api/histogram?{query(run, tag, **extra)}")
        assert_close(normalised(expected["data"][tag]), actual["data"][tag])
        answered(both, f"/api/distribution?{query(run, tag, **extra)}")


def test_hyperparameters(both: Both) -> None:
    runs = [run for run, components in category(both)["tsvis"].items() if "hyperparm" in components]
    assert len(runs) == 5
    for run in runs:
        answered(both, f"/api/hyperparm?run={quote(run)}")
    metrics = answered(both, "/api/hyperparm?run=run")["metrics"]
    assert metrics[0]["tag"] == "loss" and len(metrics[0]["value"]) == 2


def test_values_encoded_twice(both: Both) -> None:
    twice = quote(quote("train/loss", safe=""), safe="")
    assert twice == "train%252Floss"
    data = answered(both, f"/api/scalar?run=tbx&tag={twice}")
    assert len(data["train/loss"]) == 60


@pytest.mark.parametrize(
    "path",
    [
        "/api/scalar?run=nothing&tag=loss",
        "/api/scalar?run=tbx",
        "/api/image_raw?run=.&tag=image&step=100000",
        "/api/image_raw?run=.&tag=image&step=x",
        "/api/histogram?run=.&tag=conv1_w&samples=x",
        "/api/hyperparm?run=tbx",
        "/api/text?run=..%2F..&tag=%2Fetc%2Fpasswd",
    ],
)
def test_failures(both: Both, path: str) -> None:
    expected, actual = fetch(both, path)
    assert expected["code"] == actual["code"] == 500
    assert actual["data"] == "" and actual["msg"] and "Trace" not in actual["msg"] and "File " not in actual["msg"]


def test_get_only(both: Both) -> None:
    for client in (both.tsvis, both.trainboard):
        assert client.post("/api/getCategory").status_code == 405


def test_what_tsvis_writes_is_served(both: Both) -> None:
    """The values TS-VIS's own reader read from the files its writer wrote."""
    scalars = [item for item in both.written if item["type"] == "scalar"]
    served = answered(both, "/api/scalar?run=run&tag=loss")["loss"]
    assert [(point["step"], point["value"]) for point in served] == [(item["step"], item["value"]) for item in scalars]


def graph_nodes(net: list[dict[str, Any]]) -> dict[str, Any]:
    """Every node of a graph by uid, its targets as a set (TS-VIS lists them in a set's order)."""
    found: dict[str, Any] = {}
    for node in net:
        targets = sorted(tuple(sorted(target.items())) for target in node["targets"])
        children = [child["uid"] for child in node["sub_net"]]
        found[node["uid"]] = {**node, "targets": targets, "sub_net": children}
        found.update(graph_nodes(node["sub_net"]))
    return found


def test_computation_graphs(both: Both) -> None:
    runs = [run for run, components in category(both)["tsvis"].items() if "c_graph" in components.get("graph", [])]
    assert len(runs) == 3, runs
    for run in runs:
        expected, actual = fetch(both, f"/api/graph?run={quote(run)}&tag=c_graph")
        assert expected["code"] == actual["code"] == 200
        expected_net, actual_net = json.loads(expected["data"])["net"], json.loads(actual["data"])["net"]
        assert [node["uid"] for node in actual_net] == [node["uid"] for node in expected_net]
        assert graph_nodes(actual_net) == graph_nodes(expected_net), run
    stand_in = graph_nodes(json.loads(answered_graph(both, "graphdef"))["net"])["layer/(layer)"]
    assert stand_in["op"] == "Identity" and stand_in["parent"] == "layer"


def answered_graph(both: Both, run: str) -> str:
    data: str = both.trainboard.get(f"/api/graph?run={run}&tag=c_graph").json()["data"]
    return data


def structure_graph(client: Any, run: str) -> list[list[dict[str, Any]]]:
    answer = client.get(f"/api/graph?run={run}&tag=s_graph").json()
    assert answer["code"] == 200, answer["msg"][:300]
    net: list[list[dict[str, Any]]] = json.loads(answer["data"])["net"]
    return net


def test_structure_graphs(both: Both) -> None:
    """OneFlow's structure graph as TS-VIS builds it. In TS-VIS's own JSON (inbound nodes named by strings) TS-VIS
    reads each name as its characters, so there only the layers are compared, and their inputs are the names."""
    expected, actual = structure_graph(both.tsvis, "oneflow"), structure_graph(both.trainboard, "oneflow")
    assert [len(model) for model in actual] == [len(model) for model in expected] == [16, 20]
    for expected_model, actual_model in zip(expected, actual, strict=True):
        assert [node["uid"] for node in actual_model] == [node["uid"] for node in expected_model]
        assert graph_nodes(actual_model) == graph_nodes(expected_model)
    models = json.loads((FIXTURES / "logs" / "run1" / "structure_graph.json").read_text())
    served = iter(structure_graph(both.trainboard, "run1"))
    for model in models:
        variables = {layer["name"] for layer in model["config"]["layers"] if layer["class_name"] == "variable"}
        inbound = {
            layer["name"]: [name for name in layer["inbound_nodes"] if name not in variables]
            for layer in model["config"]["layers"]
            if layer["name"] not in variables
        }
        if not any(inbound.values()):
            continue  # no layer is connected: the model has no graph
        for node in next(served):
            assert node["inputs"] == [name.replace("-", "/") for name in inbound[node["uid"]]]
            assert {target["id"] for target in node["targets"]} == {
                name for name, sources in inbound.items() if node["uid"] in sources
            }
    expected_uids = {node["uid"] for model in structure_graph(both.tsvis, "run1") for node in model}
    assert next(served, None) is None
    assert expected_uids <= {node["uid"] for nodes in structure_graph(both.trainboard, "run1") for node in nodes}


def test_embeddings(both: Both) -> None:
    """Steps, shape, points and labels of each embedding, and its samples (an image as PNG, text as text)."""
    tags = series(both, "embedding")
    assert sorted(tag for _, tag in tags) == ["features", "words"]
    for run, tag in tags:
        meta = answered(both, f"/api/projector?{query(run, tag)}")
        for step in meta[tag]:
            answered(both, f"/api/projector_raw?{query(run, tag, step=step)}")
    for index in (0, 7, 19):
        image = answered(both, f"/api/projector_sample?{query('run', 'features', index=index)}")
        assert image.startswith("data:image/png;base64,")
    assert answered(both, f"/api/projector_sample?{query('run', 'words', index=2)}") == "gamma"


def test_structure_collapsed_from_a_torch_graph(both: Both) -> None:
    """Without a structure graph file, the modules PyTorch traced are the nodes, nested as the model nests them, and
    data flows between them as the model's forward does."""
    (nodes,) = structure_graph(both.trainboard, "torch_graph")
    by_uid = graph_nodes(nodes)
    modules = {"Sequential/Block[0]", "Sequential/Block[1]", "Sequential/Flatten[2]", "Sequential/Linear[3]"}
    assert modules | {"Sequential/Block[0]/Conv2d[conv]", "Sequential/Block[0]/BatchNorm2d[norm]"} <= set(by_uid)
    assert by_uid["Sequential/Block[0]/Conv2d[conv]"]["op"] == "Conv2d"

    def targets(uid: str) -> set[str]:
        return {dict(target)["id"] for target in by_uid[uid]["targets"]}

    assert "Sequential/Block[1]" in targets("Sequential/Block[0]")
    assert "Sequential/Linear[3]" in targets("Sequential/Flatten[2]")
    assert "Sequential/Block[0]/BatchNorm2d[norm]" in targets("Sequential/Block[0]/Conv2d[conv]")
    assert "output" in targets("Sequential/Linear[3]") and "Sequential" in targets("input")


def test_embeddings_from_projector_files(both: Both, tmp_path: Path) -> None:
    """torch's add_embedding files: a tag's steps, its points and metadata labels, and sprite cells as samples."""
    listed = category(both)["trainboard"]["torch_embedding"]
    assert listed["embedding"] == ["feat"]
    meta = both.trainboard.get("/api/projector?run=torch_embedding&tag=feat").json()["data"]
    assert meta == {"feat": [0, 5], "shape": [10, 4], "sample": True, "sample_type": "image"}
    points, labels = both.trainboard.get("/api/projector_raw?run=torch_embedding&tag=feat&step=5").json()["data"]["5"]
    expected = (np.arange(40, dtype=np.float32).reshape(10, 4) / 7) * 2
    np.testing.assert_allclose(np.array(points), expected, rtol=1e-6)
    assert labels == [f"label {i % 3}" for i in range(10)]
    uri = both.trainboard.get("/api/projector_sample?run=torch_embedding&tag=feat&index=3").json()["data"]
    cell = np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB"))
    sprite = np.asarray(Image.open(next((both.logdir / "torch_embedding").rglob("sprite.png"))).convert("RGB"))
    columns = sprite.shape[1] // 8
    row, column = divmod(3, columns)
    np.testing.assert_array_equal(cell, sprite[row * 8 : row * 8 + 8, column * 8 : column * 8 + 8])
    failure = both.trainboard.get("/api/projector_sample?run=torch_embedding&tag=feat&index=10").json()
    assert failure["code"] == 500 and "index" in failure["msg"]


@pytest.mark.parametrize("bounds", [(1.0, -1.0), (0.5, 0.25), (100.0, -100.0)])
def test_exceptions(both: Both, bounds: tuple[float, float]) -> None:
    """Box statistics per step, and each step's heat map, histogram and outliers, of float and integer tensors."""
    tags = series(both, "exception")
    assert sorted(tag for _, tag in tags) == ["activations", "counts"]
    up, down = bounds
    for run, tag in tags:
        meta = answered(both, f"/api/exception?{query(run, tag)}")
        for step in meta[tag]["step"]:
            answered(both, f"/api/exception_data?{query(run, tag, step=step)}")
            answered(both, f"/api/exception_hist?{query(run, tag, step=step)}")
            answered(both, f"/api/exception_box?{query(run, tag, step=step, up=up, down=down)}")


def same_up_to_sign(expected: np.ndarray, actual: np.ndarray) -> None:
    """PCA's axes have no sign: each column may be flipped."""
    for column in range(expected.shape[1]):
        sign = 1.0 if np.dot(expected[:, column], actual[:, column]) >= 0 else -1.0
        np.testing.assert_allclose(actual[:, column] * sign, expected[:, column], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("dims", [2, 3])
def test_projections(both: Both, dims: int) -> None:
    """PCA as TS-VIS computes it, with the labels; t-SNE and UMAP on every point (TS-VIS's t-SNE needs a module no
    index here holds); the TensorBoard-side route answers the same projection, also for projector files."""
    for run, tag in series(both, "embedding"):
        meta = answered(both, f"/api/projector?{query(run, tag)}")
        for step in meta[tag]:
            path = f"/api/projector_data?{query(run, tag, step=step, method='pca', dims=dims)}"
            expected, actual = (answer["data"][str(step)] for answer in fetch(both, path))
            same_up_to_sign(np.array(expected[0]), np.array(actual[0]))
            assert actual[1] == expected[1]
    for method in ("tsne", "umap"):
        answer = both.trainboard.get(
            f"/api/projector_data?{query('run', 'features', step=4, method=method, dims=dims)}"
        )
        points, labels = answer.json()["data"]["4"]
        assert np.array(points).shape == (20, dims) and np.isfinite(points).all() and len(labels) == 20
    served = both.trainboard.get(
        "/data/plugin/projector/projection",
        params={"run": "torch_embedding", "tag": "feat", "step": 5, "dims": dims, "method": "pca"},
    ).json()
    points = np.arange(40, dtype=np.float64).reshape(10, 4) / 7 * 2
    centred = points - points.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    projected = np.array(served["points"])
    # The points lie on a line (a float32 copy of it): one component, the others noise.
    same_up_to_sign((centred @ axes[:1].T), projected[:, :1])
    assert projected.shape == (10, dims) and np.abs(projected[:, 1:]).max() < 1e-5
    assert served["labels"] == [f"label {i % 3}" for i in range(10)]
