"""The projection cache: one computation per key and content, a byte budget, concurrent requests."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from trainboard.analysis.projection_cache import ProjectionCache
from trainboard.analysis.projections import project
from trainboard.errors import InvalidArgumentError

POINTS = np.random.default_rng(0).normal(size=(200, 6)).astype(np.float32)


def test_the_same_request_is_answered_from_memory() -> None:
    cache = ProjectionCache()
    first = cache.projection("train", "emb", 3, POINTS, "pca", 2)
    assert cache.projection("train", "emb", 3, POINTS.copy(), "pca", 2) is first
    assert np.array_equal(first, project(POINTS, "pca", 2))
    assert not first.flags.writeable
    assert cache.projection("train", "emb", 3, POINTS, "pca", 3) is not first  # another key
    assert len(cache) == 2 and cache.bytes == first.nbytes + 200 * 3 * 8


def test_new_content_at_the_same_step_is_projected_again_and_replaces_the_old() -> None:
    cache = ProjectionCache()
    old = cache.projection("train", "emb", 3, POINTS, "pca", 2)
    rewritten = POINTS[::-1].copy()
    new = cache.projection("train", "emb", 3, rewritten, "pca", 2)
    assert new is not old and np.array_equal(new, project(rewritten, "pca", 2))
    assert len(cache) == 1 and cache.bytes == new.nbytes
    # The same values with another dtype or shape are other content.
    assert cache.projection("train", "emb", 3, rewritten.astype(np.float64), "pca", 2) is not new


def test_least_recently_used_go_first_beyond_the_budget() -> None:
    one = 200 * 2 * 8
    cache = ProjectionCache(max_bytes=3 * one)
    first = cache.projection("r", "t", 0, POINTS, "pca", 2)
    for step in (1, 2):
        cache.projection("r", "t", step, POINTS, "pca", 2)
    assert cache.projection("r", "t", 0, POINTS, "pca", 2) is first  # now the most recent
    cache.projection("r", "t", 3, POINTS, "pca", 2)  # evicts step 1
    assert len(cache) == 3 and cache.bytes == 3 * one
    assert cache.projection("r", "t", 0, POINTS, "pca", 2) is first
    recomputed = cache.projection("r", "t", 1, POINTS, "pca", 2)
    assert len(cache) == 3 and cache.projection("r", "t", 1, POINTS, "pca", 2) is recomputed


def test_a_projection_larger_than_the_budget_is_answered_but_not_kept() -> None:
    cache = ProjectionCache(max_bytes=100)
    assert cache.projection("r", "t", 0, POINTS, "pca", 2).shape == (200, 2)
    assert len(cache) == 0 and cache.bytes == 0


def test_concurrent_requests_for_one_key_share_one_computation() -> None:
    cache = ProjectionCache()
    found: list[np.ndarray] = []
    threads = [
        threading.Thread(target=lambda: found.append(cache.projection("r", "t", 0, POINTS, "tsne", 2)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 4 and all(projected is found[0] for projected in found)


def test_refusals_pass_through_and_are_not_kept() -> None:
    cache = ProjectionCache()
    with pytest.raises(InvalidArgumentError, match="more than the 10"):
        cache.projection("r", "t", 0, POINTS, "pca", 2, max_points=10)
    with pytest.raises(InvalidArgumentError, match="real numbers, not dtype object"):
        cache.projection("r", "t", 0, np.array([[None]], dtype=object), "pca", 2)
    assert len(cache) == 0
