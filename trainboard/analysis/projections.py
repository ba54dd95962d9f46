"""Embeddings projected to 2 or 3 dimensions, on every point: PCA, t-SNE (openTSNE, the `tsne` extra) and UMAP
(umap-learn, the `umap` extra).

Points are the rows of the embedding tensor (a 1-D tensor is points of one value; more dimensions are flattened
after the first, as TS-VIS does). A point with a NaN or infinite coordinate is left out of the projection and gets
NaN coordinates, so rows keep their index (and their label). The same input always gives the same answer: the
methods run with fixed seeds, and PCA fixes the signs SVD leaves free. More than `max_points` points are refused:
t-SNE and UMAP need minutes and gigabytes well before a million points.
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from trainboard.errors import InvalidArgumentError

METHODS = ("pca", "tsne", "umap")
DIMENSIONS = (2, 3)
SEED = 0
# t-SNE's usual perplexity; fewer points get (n - 1) / 3, the most their neighbourhoods allow.
PERPLEXITY = 30.0
UMAP_NEIGHBOURS = 15
# Fewer points have no neighbourhoods for t-SNE and UMAP to keep: every method places them as PCA does.
MIN_NEIGHBOURHOOD = 3


def project(embeddings: np.ndarray, method: str, dims: int, *, max_points: int | None = None) -> np.ndarray:
    """An `(n, dims)` float64 array of the projected points, NaN for the points that have non-finite values; more
    than `max_points` points (when given) are refused."""
    if method not in METHODS:
        raise InvalidArgumentError(f"projection method must be one of {', '.join(METHODS)}, not {method!r}")
    if dims not in DIMENSIONS:
        raise InvalidArgumentError(f"projections have 2 or 3 dimensions, not {dims}")
    points = _points(embeddings)
    if max_points is not None and len(points) > max_points:
        raise InvalidArgumentError(
            f"{len(points):,} points are more than the {max_points:,} that projections take; "
            "raise the limit with --max_projection_points (or TRAINBOARD_MAX_PROJECTION_POINTS)"
        )
    finite = np.isfinite(points).all(axis=1)
    kept = points[finite]
    projected = np.full((len(points), dims), np.nan)
    if len(kept) <= 1 or not np.ptp(kept, axis=0).any():
        projected[finite] = 0.0  # one place: every method puts the points at the origin
    elif len(kept) < MIN_NEIGHBOURHOOD:
        projected[finite] = _pca(kept, dims)
    else:
        projected[finite] = _PROJECT[method](kept, dims)
    return projected


def rows(projected: np.ndarray) -> list[list[Any]]:
    """The projection as JSON-ready rows of floats, with null coordinates for the points left out."""
    found: list[list[Any]] = projected.tolist()
    for index in np.flatnonzero(np.isnan(projected).any(axis=1)).tolist():
        found[index] = [None] * projected.shape[1]
    return found


def _points(embeddings: np.ndarray) -> np.ndarray:
    array = np.asarray(embeddings)
    if array.ndim == 0:
        raise InvalidArgumentError("a projection needs a tensor of points, not a single value")
    if array.dtype.kind not in "biuf":
        raise InvalidArgumentError(f"projections take real numbers, not dtype {array.dtype.name}")
    return array.reshape(len(array), math.prod(array.shape[1:])).astype(np.float64)


def _pca(points: np.ndarray, dims: int) -> np.ndarray:
    centred = points - points.mean(axis=0)
    # The right singular vectors of the data are those of its small feature-by-feature Gram matrix, which is much
    # cheaper to decompose than the points themselves.
    _, _, components = np.linalg.svd(centred.T @ centred)
    components = components[:dims]
    # Each component's sign is arbitrary: make its largest loading positive, so that answers never flip.
    largest = components[np.arange(len(components)), np.abs(components).argmax(axis=1)]
    components *= np.where(largest < 0, -1.0, 1.0)[:, None]
    projected = centred @ components.T
    return np.pad(projected, ((0, 0), (0, dims - projected.shape[1])))


def _tsne(points: np.ndarray, dims: int) -> np.ndarray:
    # Imported here: openTSNE (and scikit-learn behind it) would slow every start of the server.
    TSNE = _optional("openTSNE", "TSNE", method="t-SNE", extra="tsne")
    tsne = TSNE(
        n_components=dims,
        perplexity=min(PERPLEXITY, (len(points) - 1) / 3),
        # openTSNE picks Barnes-Hut below 10,000 points and FFT above, which has no 3-D version.
        negative_gradient_method="auto" if dims == 2 else "bh",
        random_state=SEED,
        n_jobs=1,
    )
    return np.asarray(tsne.fit(points), dtype=np.float64)


def _umap(points: np.ndarray, dims: int) -> np.ndarray:
    # Imported here: compiling umap-learn's numba kernels takes seconds.
    with warnings.catch_warnings():
        # It warns at import that its TensorFlow variant, which is not used here, is unavailable.
        warnings.simplefilter("ignore", ImportWarning)
        UMAP = _optional("umap", "UMAP", method="UMAP", extra="umap")
    reducer = UMAP(
        n_components=dims,
        n_neighbors=min(UMAP_NEIGHBOURS, len(points) - 1),
        # The spectral start needs more points than dimensions + 1.
        init="spectral" if len(points) > dims + 1 else "random",
        random_state=SEED,
        n_jobs=1,
    )
    return np.asarray(reducer.fit_transform(points), dtype=np.float64)


def _optional(module: str, name: str, *, method: str, extra: str) -> Any:
    """`name` from the optional package `module`, which trainboard's extra `extra` installs."""
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:
        raise InvalidArgumentError(
            f"{method} projections need an optional package: pip install 'trainboard[{extra}]'"
        ) from None


_PROJECT: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {"pca": _pca, "tsne": _tsne, "umap": _umap}
