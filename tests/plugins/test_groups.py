"""Groups with bands, on runs written by torch's SummaryWriter at different steps: each group's mean, std, min and max
at every step checked against numpy on every point read from the store, and the sampled answer against those."""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats  # type: ignore[import-untyped]
from torch.utils import tensorboard as torch_tensorboard

from tests.logdirs import write_sweep_logdir
from tests.stores import TestStore
from trainboard.errors import InvalidArgumentError
from trainboard.plugins import groups
from trainboard.reader.logdir import LogDir

# run -> (first step, stride, seed): steps that only partly meet, so that a step's statistics cover 1 to 3 runs.
RUNS = {"cnn_seed0": (0, 1, 0), "cnn_seed1": (5, 2, 1), "cnn_seed2": (0, 3, 2), "mlp_seed0": (1, 1, 3)}
POINTS = 3000


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> TestStore:
    root = tmp_path_factory.mktemp("groups")
    logdir = root / "logs"
    for run, (first, stride, seed) in RUNS.items():
        values = np.random.default_rng(seed).normal(seed, 1.0, POINTS)
        with torch_tensorboard.SummaryWriter(str(logdir / "models" / run)) as writer:
            for index, step in enumerate(range(first, first + stride * POINTS, stride)):
                writer.add_scalar("loss", values[index], step)
            writer.add_scalar("loss", float("nan"), first + stride * POINTS)  # left out of every statistic
    found = TestStore(root / "store.sqlite")
    found.loader(LogDir(str(logdir))).poll()
    return found


def every_point(store: TestStore, runs: list[str]) -> dict[int, list[float]]:
    """step -> the value of each run that has one there, read whole from the store."""
    at: dict[int, list[float]] = {}
    for row in store.series(runs=[f"models/{run}" for run in runs], tags=["loss"]):
        columns = store.scalars(row.id)
        for step, value in zip(columns.steps.tolist(), columns.values.tolist(), strict=True):
            if np.isfinite(value):
                at.setdefault(step, []).append(value)
    return at


@pytest.mark.parametrize("band", groups.BANDS)
def test_bands_are_computed_on_every_point(store: TestStore, band: str) -> None:
    answer = groups.groups(
        store.provider(),
        store.experiment_id,
        tag="loss",
        by=groups.grouping(r"regex:(\w+)_seed\d+"),
        band=band,
        run_filter=None,
        runs=None,
        samples=None,
    )
    found = {group["name"]: group for group in answer["groups"]}  # type: ignore[attr-defined]
    assert list(found) == ["cnn", "mlp"]
    assert found["cnn"]["runs"] == ["models/cnn_seed0", "models/cnn_seed1", "models/cnn_seed2"]
    for name, members in (("cnn", ["cnn_seed0", "cnn_seed1", "cnn_seed2"]), ("mlp", ["mlp_seed0"])):
        at = every_point(store, members)
        steps = sorted(at)
        assert found[name]["step"] == steps
        means = np.array([np.mean(at[step]) for step in steps])
        np.testing.assert_allclose(found[name]["mean"], means, rtol=1e-12)
        if band == "std":
            deviations = np.array([np.std(at[step]) for step in steps])
            np.testing.assert_allclose(found[name]["low"], means - deviations, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(found[name]["high"], means + deviations, rtol=1e-9, atol=1e-12)
        elif band == "ci":
            # Student's t with n - 1 degrees of freedom, as SciPy gives it; none where one run has a point.
            halves = np.array(
                [
                    stats.t.ppf(0.975, len(at[step]) - 1) * stats.sem(at[step]) if len(at[step]) > 1 else np.nan
                    for step in steps
                ]
            )
            np.testing.assert_allclose(found[name]["low"], means - halves, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(found[name]["high"], means + halves, rtol=1e-9, atol=1e-12)
        else:
            assert found[name]["low"] == [min(at[step]) for step in steps]
            assert found[name]["high"] == [max(at[step]) for step in steps]
        assert found[name]["count"] == [len(at[step]) for step in steps]
    assert set(found["cnn"]["count"]) == {1, 2, 3}


def test_asof_alignment_counts_each_run_between_its_first_and_last_steps(store: TestStore) -> None:
    runs = ["cnn_seed0", "cnn_seed1", "cnn_seed2"]
    logged = {run: every_point(store, [run]) for run in runs}
    union = sorted(set().union(*logged.values()))
    expected_means: list[float] = []
    expected_counts: list[int] = []
    for step in union:
        values = []
        for points in logged.values():
            steps = sorted(points)
            if steps[0] <= step <= steps[-1]:
                values.append(points[steps[bisect.bisect_right(steps, step) - 1]][0])
        expected_means.append(float(np.mean(values)))
        expected_counts.append(len(values))
    answer = groups.groups(
        store.provider(),
        store.experiment_id,
        tag="loss",
        by=groups.grouping("dir:0"),
        band="minmax",
        run_filter='name ~ "cnn"',
        runs=None,
        samples=None,
        align="asof",
    )
    carried: list[dict[str, Any]] = answer["groups"]  # type: ignore[assignment]
    assert carried[0]["step"] == union and carried[0]["count"] == expected_counts
    np.testing.assert_allclose(carried[0]["mean"], expected_means, rtol=1e-12)
    assert answer["align"] == "asof"


def test_sampling_comes_after_the_statistics(store: TestStore) -> None:
    def answer(samples: int | None) -> dict[str, list[object]]:
        found = groups.groups(
            store.provider(),
            store.experiment_id,
            tag="loss",
            by=groups.grouping("dir:0"),
            band="minmax",
            run_filter='name ~ "cnn"',
            runs=None,
            samples=samples,
        )
        (group,) = found["groups"]  # type: ignore[misc]
        return group  # type: ignore[no-any-return]

    whole, sampled = answer(None), answer(1000)
    assert whole["runs"] == ["models/cnn_seed0", "models/cnn_seed1", "models/cnn_seed2"]
    assert len(whole["step"]) > 5000 and len(sampled["step"]) == 1000
    positions = [whole["step"].index(step) for step in sampled["step"]]
    assert positions[0] == 0 and positions[-1] == len(whole["step"]) - 1
    for column in ("mean", "low", "high", "count"):
        assert sampled[column] == [whole[column][position] for position in positions]


def test_groups_by_hparam_and_directory(tmp_path: Path) -> None:
    found = TestStore(tmp_path / "store.sqlite")
    found.loader(LogDir(str(write_sweep_logdir(tmp_path / "logs", seeds=2, steps=5)))).poll()

    def names(by: str, run_filter: str | None = None) -> dict[str, list[str]]:
        answer = groups.groups(
            found.provider(),
            found.experiment_id,
            tag="acc",
            by=groups.grouping(by),
            band="std",
            run_filter=run_filter,
            runs=None,
            samples=None,
        )
        return {group["name"]: group["runs"] for group in answer["groups"]}  # type: ignore[attr-defined]

    by_lr = names("hparam:lr")
    assert list(by_lr) == ["0.001", "0.01", "0.1"]
    assert by_lr["0.1"] == ["adam/lr0.1_seed0", "adam/lr0.1_seed1", "sgd/lr0.1_seed0", "sgd/lr0.1_seed1"]
    assert names("dir:0", "lr >= 0.1") == {
        "adam": ["adam/lr0.1_seed0", "adam/lr0.1_seed1"],
        "sgd": ["sgd/lr0.1_seed0", "sgd/lr0.1_seed1"],
    }
    assert names("dir:1", 'optimizer = "sgd" and lr = 0.01') == {
        "lr0.01_seed0": ["sgd/lr0.01_seed0"],
        "lr0.01_seed1": ["sgd/lr0.01_seed1"],
    }
    assert names("hparam:optimizer", "seed = 1 and lr = 0.01") == {
        "adam": ["adam/lr0.01_seed1"],
        "sgd": ["sgd/lr0.01_seed1"],
    }
    assert list(names("dir:5")) == [groups.MISSING]
    found.close()


@pytest.mark.parametrize(
    ("by", "message"),
    [("lr", "by must be"), ("regex:(", "invalid regular expression"), ("regex:" + "a" * 2000, "over the bound")],
)
def test_a_bad_grouping_is_refused(by: str, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        groups.grouping(by)
