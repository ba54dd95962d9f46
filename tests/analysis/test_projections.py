"""Projections: PCA against the covariance's own eigenvalues and distances, t-SNE and UMAP keeping generated blobs
apart, the same answer every time, and what they refuse."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from trainboard.analysis.projections import project, rows
from trainboard.cli import parse_flags
from trainboard.errors import InvalidArgumentError
from trainboard.settings import Settings

EXAMPLES = settings(max_examples=100, deadline=None, derandomize=True, database=None)


def blobs(per_blob: int = 100, features: int = 20, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Three well separated Gaussian blobs, and the blob of each point."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=20, size=(3, features))
    labels = np.repeat(np.arange(3), per_blob)
    return centres[labels] + rng.normal(size=(len(labels), features)), labels


def nearest_neighbour_purity(points: np.ndarray, labels: np.ndarray) -> float:
    distances = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    np.fill_diagonal(distances, np.inf)
    return float(np.mean(labels[distances.argmin(axis=1)] == labels))


def assert_blobs_apart(points: np.ndarray, labels: np.ndarray) -> None:
    assert np.isfinite(points).all()
    assert nearest_neighbour_purity(points, labels) == 1.0
    centres = np.array([points[labels == blob].mean(axis=0) for blob in range(3)])
    spread = max(np.linalg.norm(points[labels == blob] - centres[blob], axis=1).mean() for blob in range(3))
    gaps = [np.linalg.norm(centres[a] - centres[b]) for a, b in ((0, 1), (0, 2), (1, 2))]
    assert min(gaps) > 2 * spread


@st.composite
def embeddings(draw: st.DrawFn) -> np.ndarray:
    """Points with features of distinct spreads, so that principal components are unique."""
    count = draw(st.integers(2, 60))
    features = draw(st.integers(1, 8))
    base = draw(hnp.arrays(np.float64, (count, features), elements=st.floats(-10, 10)))
    return np.asarray(base * (1.7 ** np.arange(features)))


@given(embeddings(), st.sampled_from([2, 3]))
@EXAMPLES
def test_pca_components_carry_the_largest_variances_in_order(points: np.ndarray, dims: int) -> None:
    projected = project(points, "pca", dims)
    assert projected.shape == (len(points), dims)
    centred = points - points.mean(axis=0)
    eigenvalues = np.sort(np.linalg.eigvalsh(centred.T @ centred / len(points)))[::-1]
    variances = (projected**2).mean(axis=0)
    top = np.pad(eigenvalues, (0, max(0, dims - len(eigenvalues))))[:dims]
    scale = max(1.0, float(eigenvalues[0]))
    assert np.allclose(variances, top, rtol=1e-6, atol=1e-9 * scale)
    assert np.all(np.diff(variances) <= 1e-9 * scale)
    assert np.allclose(projected.mean(axis=0), 0, atol=1e-9 * np.sqrt(scale))
    if points.shape[1] <= dims:  # a rotation of the centred points: every distance is kept
        assert np.allclose(
            np.linalg.norm(projected[:, None] - projected[None], axis=-1),
            np.linalg.norm(centred[:, None] - centred[None], axis=-1),
            atol=1e-7 * np.sqrt(scale),
        )


def test_pca_signs_are_fixed_and_answers_repeat() -> None:
    points, _ = blobs()
    first = project(points, "pca", 3)
    assert np.array_equal(first, project(points.copy(), "pca", 3))
    loadings = np.linalg.lstsq(points - points.mean(axis=0), first, rcond=None)[0]
    assert np.all(loadings[np.abs(loadings).argmax(axis=0), range(3)] > 0)


@pytest.mark.parametrize("method", ["tsne", "umap"])
@pytest.mark.parametrize("dims", [2, 3])
def test_neighbour_embeddings_keep_blobs_apart_and_repeat(method: str, dims: int) -> None:
    # Forty points a blob are kept apart as a hundred are, in an eighth of t-SNE's time.
    points, labels = blobs(per_blob=40)
    projected = project(points.astype(np.float32), method, dims)
    assert projected.shape == (120, dims) and projected.dtype == np.float64
    assert_blobs_apart(projected, labels)
    assert np.array_equal(projected, project(points.astype(np.float32), method, dims))


@pytest.mark.parametrize("method", ["pca", "tsne", "umap"])
@pytest.mark.parametrize("count", [0, 1, 2, 3, 5, 16])
def test_few_points(method: str, count: int) -> None:
    points = np.random.default_rng(count).normal(size=(count, 4))
    projected = project(points, method, 2)
    assert projected.shape == (count, 2) and np.isfinite(projected).all()
    if count == 1:
        assert projected.tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize("method", ["pca", "tsne", "umap"])
def test_identical_points_meet_at_the_origin(method: str) -> None:
    assert project(np.ones((50, 8)), method, 3).tolist() == [[0.0, 0.0, 0.0]] * 50


@pytest.mark.parametrize("method", ["pca", "tsne"])
def test_points_with_nan_or_infinity_are_left_out_and_keep_their_rows(method: str) -> None:
    points, labels = blobs(per_blob=40)
    spoiled = points.copy()
    spoiled[3, 2], spoiled[50, 7], spoiled[51, 0] = np.nan, np.inf, -np.inf
    projected = project(spoiled, method, 2)
    left_out = [3, 50, 51]
    assert np.isnan(projected[left_out]).all()
    kept = np.setdiff1d(np.arange(len(points)), left_out)
    assert np.array_equal(projected[kept], project(points[kept], method, 2))
    found = rows(projected)
    assert [found[i] for i in left_out] == [[None, None]] * 3
    assert found[0] == projected[0].tolist()


def test_features_beyond_the_first_axis_are_flattened_and_one_feature_is_padded() -> None:
    images = np.random.default_rng(0).normal(size=(30, 2, 3))
    assert np.array_equal(project(images, "pca", 2), project(images.reshape(30, 6), "pca", 2))
    line = np.arange(10.0)
    projected = project(line, "pca", 3)
    assert np.allclose(np.abs(projected[:, 0]), np.abs(line - 4.5)) and not projected[:, 1:].any()
    assert project(np.array([[True, False], [False, True], [True, True]]), "pca", 2).shape == (3, 2)


def test_more_points_than_the_cap_are_refused_naming_the_setting() -> None:
    started = time.perf_counter()
    cap = Settings().max_projection_points
    too_many = np.broadcast_to(np.float32(1), (cap + 1, 128))
    with pytest.raises(InvalidArgumentError, match=r"100,001 points .* 100,000 .* --max_projection_points"):
        project(too_many, "tsne", 2, max_points=cap)
    assert time.perf_counter() - started < 1
    with pytest.raises(InvalidArgumentError, match="11 points are more than the 10"):
        project(np.zeros((11, 2)), "pca", 2, max_points=10)


@pytest.mark.parametrize(
    ("embeddings", "method", "dims", "message"),
    [
        (np.zeros((4, 2)), "mds", 2, "must be one of pca, tsne, umap, not 'mds'"),
        (np.zeros((4, 2)), "pca", 4, "2 or 3 dimensions, not 4"),
        (np.float32(3), "pca", 2, "not a single value"),
        (np.array([["a"], ["b"]]), "pca", 2, "real numbers, not dtype str32"),
    ],
)
def test_refused_requests(embeddings: np.ndarray, method: str, dims: int, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        project(embeddings, method, dims)


@pytest.mark.parametrize(("method", "module", "said"), [("umap", "umap", "UMAP"), ("tsne", "openTSNE", "t-SNE")])
def test_a_method_without_its_package_says_what_to_install(method: str, module: str, said: str) -> None:
    script = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "import numpy as np\n"
        "from trainboard.analysis.projections import project\n"
        "from trainboard.errors import InvalidArgumentError\n"
        "try:\n"
        f"    project(np.eye(5), {method!r}, 2)\n"
        "except InvalidArgumentError as error:\n"
        "    print(error.message)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == (f"{said} projections need an optional package: pip install 'trainboard[{method}]'")
    assert project(np.eye(5), "pca", 2).shape == (5, 2)


def test_the_cap_is_the_default_of_its_setting() -> None:
    assert Settings().max_projection_points == 100_000
    assert parse_flags(["--max_projection_points", "250,000"], {})[0].max_projection_points == 250_000
