"""Derived metrics through the provider, on SQLite and PostgreSQL: every point equal to pandas' answer (exact and asof
alignment, nan and inf, a step logged twice, a purge by a restart), listings, reads, streams, bounds and errors."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trainboard.errors import ExpressionError, InvalidArgumentError, NotFoundError
from trainboard.normaliser.points import Batch, DataClass, Purge, RunState, ScalarPoint, SeriesMetadata
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter, StepRange
from trainboard.reader.tail import FileCursor
from trainboard.store.opening import open_store
from trainboard.store.store import Store
from trainboard.store.writer import FileWrite

SCALARS = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)
RUNS = ("a", "b/seed1")


def _logged(run: str) -> dict[str, list[tuple[int, float]]]:
    """What each run logs, before the restart: train/loss every step (with nan, inf, a step logged twice), val/loss
    every third step from step 2, lr every tenth."""
    rng = np.random.default_rng(len(run))
    train = [(step, float(rng.normal())) for step in range(120)]
    train[7] = (7, math.nan)
    train[8] = (8, math.inf)
    train.insert(30, (29, 5.0))  # step 29 twice: the later point counts
    return {
        "train/loss": train,
        "val/loss": [(step, float(rng.normal())) for step in range(2, 120, 3)],
        "lr": [(step, 0.1 / (1 + step)) for step in range(0, 120, 10)],
    }


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else f"sqlite:{tmp_path / 's.db'}"
    opened = open_store(url)
    experiment = opened.create_experiment("logs").id
    for run in RUNS:
        operations: list[ScalarPoint | Purge] = [
            ScalarPoint(tag=tag, step=step, wall_time=1000.0 + step, value=value)
            for tag, points in _logged(run).items()
            for step, value in points
        ]
        # A restart at step 100: the points from 100 on are dropped, then steps 100-104 logged again.
        operations.append(Purge(step=100))
        operations += [ScalarPoint("train/loss", step, 2000.0 + step, -float(step)) for step in range(100, 105)]
        operations += [ScalarPoint("val/loss", 101, 2101.0, 0.5)]
        cursor = FileCursor(path=f"/{run}", offset=1, size=1, mtime=0.0, head=b"")
        batch = Batch(operations=list(operations), metadata={tag: SCALARS for tag in ("train/loss", "val/loss", "lr")})
        opened.write_batch(experiment, FileWrite(run, cursor, RunState(), batch, restarted=False, previous=None))
    yield opened
    opened.close()


def _eid(store: Store) -> str:
    return store.experiments()[0].id


def _frame(run: str, tag: str) -> pd.Series:
    """pandas' view of a tag after the restart: the last value at each step, by step."""
    points = [(s, v) for s, v in _logged(run)[tag] if s < 100]
    if tag == "train/loss":
        points += [(s, -float(s)) for s in range(100, 105)]
    if tag == "val/loss":
        points += [(101, 0.5)]
    frame = pd.DataFrame(points, columns=["step", "value"]).drop_duplicates("step", keep="last")
    return frame.set_index("step")["value"].sort_index()


def _asof(series: pd.Series, steps: pd.Index) -> pd.Series:
    """The last value of `series` at or before each step (nan before its first), by pandas' merge_asof."""
    left = pd.DataFrame({"step": np.asarray(steps)})
    right = series.rename("value").reset_index()
    return pd.merge_asof(left, right, on="step").set_index("step")["value"]


def _derived(provider: DataProvider, store: Store, name: str, run: str) -> pd.Series:
    columns = provider.read_scalar_columns(
        experiment_id=_eid(store), plugin_name="scalars", downsample=None, run_tag_filter=RunTagFilter.of([run], [name])
    )[run][name]
    return pd.Series(columns.values, index=pd.Index(columns.steps, name="step"))


def _expected(run: str, name: str) -> pd.Series:
    train, val, lr = _frame(run, "train/loss"), _frame(run, "val/loss"), _frame(run, "lr")
    with np.errstate(all="ignore"):
        if name == "gap":
            joined = pd.concat([train, val], axis=1, join="inner")
            return joined.iloc[:, 0] - joined.iloc[:, 1]
        if name == "scaled":
            return train / _asof(lr, train.index) * 2
        if name == "ratio":
            joined = pd.concat([train, val], axis=1, join="inner")
            return joined.iloc[:, 0] / (joined.iloc[:, 1] * 0)
        if name == "smooth":
            finite = train.to_numpy()
            return pd.Series(_recursion(finite, 0.9), index=train.index)
        if name == "rolled":
            # numpy's mean of each window (pandas' rolling mean leaves a window with inf out as nan).
            values = train.to_numpy()
            return pd.Series([np.mean(values[max(0, i - 3) : i + 1]) for i in range(len(values))], index=train.index)
        if name == "both":
            union = train.index.union(val.index)
            left, right = _asof(train, union), _asof(val, union)
            return (left - right)[np.asarray(union >= max(train.index.min(), val.index.min()))]
        if name == "steps":
            return train.diff().iloc[1:].cumsum(skipna=False).cummax(skipna=False)
        if name == "chosen":
            return pd.Series(np.where(train > 0, np.log(train.abs() + 1), -np.sqrt(train.abs())), index=train.index)
    raise AssertionError(name)


def _recursion(values: np.ndarray, weight: float) -> np.ndarray:
    out = np.empty_like(values)
    for i, value in enumerate(values):
        out[i] = value if i == 0 else weight * out[i - 1] + (1 - weight) * value
    return out


DEFINITIONS = {
    "gap": ("train/loss - val/loss", "exact"),
    "scaled": ("train/loss / asof(lr) * 2", "exact"),
    "ratio": ("train/loss / (val/loss * 0)", "exact"),
    "smooth": ("ema(train/loss, 0.9)", "exact"),
    "rolled": ("rolling_mean(train/loss, 4)", "exact"),
    "both": ("train/loss - val/loss", "asof"),
    "steps": ("cummax(cumsum(diff(train/loss)))", "exact"),
    "chosen": ("where(train/loss > 0, log(abs(train/loss) + 1), -sqrt(abs(train/loss)))", "exact"),
}


def test_every_point_equals_pandas(store: Store) -> None:
    provider = DataProvider(store, writer=store)
    for name, (expression, align) in DEFINITIONS.items():
        provider.define(experiment_id=_eid(store), name=name, expression=expression, align=align)
    for run in RUNS:
        for name in DEFINITIONS:
            found, expected = _derived(provider, store, name, run), _expected(run, name)
            assert found.index.tolist() == expected.index.tolist(), name
            np.testing.assert_allclose(found.to_numpy(), expected.to_numpy(), rtol=1e-12, atol=1e-12, err_msg=name)


def test_inf_and_nan_as_numpy_gives_them(store: Store) -> None:
    provider = DataProvider(store, writer=store)
    provider.define(experiment_id=_eid(store), name="ratio", expression="train/loss / (val/loss * 0)")
    values = _derived(provider, store, "ratio", "a")
    assert np.isposinf(values).any() and np.isneginf(values).any()
    assert np.isnan(values.loc[8]) or np.isinf(values.loc[8]) or 8 not in values.index


def test_listed_read_and_streamed_as_a_scalar_tag(store: Store) -> None:
    provider = DataProvider(store, writer=store)
    eid = _eid(store)
    provider.define(experiment_id=eid, name="gap", expression="train/loss - val/loss")
    listing = provider.list_scalars(experiment_id=eid, plugin_name="scalars")
    assert set(listing) == set(RUNS)
    assert sorted(listing["a"]) == ["gap", "lr", "train/loss", "val/loss"]
    gap = listing["a"]["gap"]
    expected = _expected("a", "gap")
    assert (gap.max_step, gap.point_count, gap.description) == (
        expected.index.max(),
        len(expected),
        "train/loss - val/loss",
    )
    assert "gap" in provider.list_series(experiment_id=eid, plugin_name="scalars")["a"]
    assert provider.list_scalars(experiment_id=eid, plugin_name="images") == {}
    # Downsampled and bounded by steps as a logged tag is.
    sampled = provider.read_scalars(
        experiment_id=eid, plugin_name="scalars", downsample=5, run_tag_filter=RunTagFilter.of(["a"], ["gap"])
    )["a"]["gap"]
    steps = expected.index.to_numpy()
    assert [d.step for d in sampled] == steps[np.arange(5) * (len(steps) - 1) // 4].tolist()
    latest = provider.read_scalar_columns(
        experiment_id=eid,
        plugin_name="scalars",
        downsample=None,
        run_tag_filter=RunTagFilter.of(["a"], ["gap"]),
        steps=StepRange(latest=3),
    )["a"]["gap"]
    assert latest.steps.tolist() == steps[-3:].tolist()
    bounded = provider.read_scalar_columns(
        experiment_id=eid,
        plugin_name="scalars",
        downsample=None,
        run_tag_filter=RunTagFilter.of(["a"], ["gap"]),
        steps=StepRange(first=10, last=40),
    )["a"]["gap"]
    assert bounded.steps.tolist() == [step for step in steps.tolist() if 10 <= step <= 40]
    streamed = [(s.run, s.tag) for s in provider.stream_scalars(experiment_id=eid, plugin_name=None)]
    assert streamed == [(run, tag) for run in RUNS for tag in ("gap", "lr", "train/loss", "val/loss")]
    (gap_series,) = [s for s in provider.stream_scalars(experiment_id=eid, plugin_name="scalars") if s.tag == "gap"][:1]
    assert gap_series.metadata.description == "train/loss - val/loss"
    provider.undefine(experiment_id=eid, name="gap")
    assert "gap" not in provider.list_scalars(experiment_id=eid, plugin_name="scalars")["a"]
    with pytest.raises(NotFoundError):
        provider.undefine(experiment_id=eid, name="gap")


def test_definitions_refer_to_definitions_and_refuse_cycles(store: Store) -> None:
    provider = DataProvider(store, writer=store)
    eid = _eid(store)
    provider.define(experiment_id=eid, name="gap", expression="train/loss - val/loss")
    provider.define(experiment_id=eid, name="gap2", expression="gap * 2")
    doubled = _derived(provider, store, "gap2", "a")
    pd.testing.assert_series_equal(doubled, _expected("a", "gap") * 2, check_names=False, check_index_type=False)
    with pytest.raises(ExpressionError) as cycle:
        provider.define(experiment_id=eid, name="gap", expression="1 + gap2")
    assert cycle.value.position == 4 and cycle.value.http_code == 400
    with pytest.raises(ExpressionError) as self_reference:
        provider.define(experiment_id=eid, name="x", expression="x+1")
    assert self_reference.value.position == 0
    assert [d.name for d in provider.definitions(experiment_id=eid)] == ["gap", "gap2"]


@pytest.mark.parametrize(
    ("expression", "position", "words"),
    [
        ("train/loss - nope", 13, "no scalar tag"),
        ("train/loss/2", 0, "put a space"),
        ("foo(train/loss)", 0, "unknown function"),
        ("train/loss +", 12, "ends too early"),
        ("(train/loss", 11, "expected ')'"),
        ("ema(train/loss, 1.5)", 16, "weight"),
        ("2 + 3", 0, "refers to no tag"),
        ("lr + diff(2)", 5, "needs a series"),
        ("train/loss $ 2", 11, "unexpected character"),
        ("(" * 100 + "lr" + ")" * 100, 40, "nests deeper"),
        ("lr" + " + lr" * 10_000, 2000, "longer than"),
        ("+".join(["lr"] * 600), 749, "more than 500 terms"),
    ],
)
def test_bad_expressions_are_refused_quickly_with_a_position(
    store: Store, expression: str, position: int, words: str
) -> None:
    provider = DataProvider(store, writer=store)
    started = time.perf_counter()
    with pytest.raises(ExpressionError) as refused:
        provider.define(experiment_id=_eid(store), name="bad", expression=expression)
    assert time.perf_counter() - started < 1.0  # a store query at most: parsing stops at the fault
    assert refused.value.position == position and words in refused.value.message
    assert provider.definitions(experiment_id=_eid(store)) == []


def test_names_that_cannot_be_derived_metrics(store: Store) -> None:
    provider = DataProvider(store, writer=store)
    for name in ("lr", "", "a\nb", " gap", "x" * 257):
        with pytest.raises(InvalidArgumentError):
            provider.define(experiment_id=_eid(store), name=name, expression="lr * 2")
    with pytest.raises(InvalidArgumentError):
        provider.define(experiment_id=_eid(store), name="x", expression="lr * 2", align="nearest")
    with pytest.raises(InvalidArgumentError):
        DataProvider(store).define(experiment_id=_eid(store), name="x", expression="lr * 2")


def test_definitions_move_the_generation_and_go_with_their_experiment(store: Store) -> None:
    eid = _eid(store)
    provider = DataProvider(store, writer=store)
    before = store.generation(eid)
    provider.define(experiment_id=eid, name="gap", expression="train/loss - val/loss")
    assert store.generation(eid) > before
    listed = provider.list_scalars(experiment_id=eid, plugin_name="scalars")
    assert "gap" in listed["a"]
    # Replaced: the cached series is built again.
    provider.define(experiment_id=eid, name="gap", expression="train/loss + 1")
    again = provider.read_scalar_columns(
        experiment_id=eid, plugin_name="scalars", downsample=None, run_tag_filter=RunTagFilter.of(["a"], ["gap"])
    )["a"]["gap"]
    np.testing.assert_array_equal(again.values, _frame("a", "train/loss").to_numpy() + 1)
    other = store.create_experiment("other").id
    assert store.definitions(other) == [] and len(store.definitions(eid)) == 1
    assert store.delete_experiment(eid)
    assert store.definitions(eid) == []


def test_a_pin_shows_definitions_over_its_points(store: Store) -> None:
    eid = _eid(store)
    pin = store.create_pin(eid)
    assert pin is not None
    DataProvider(store, writer=store).define(experiment_id=eid, name="gap", expression="train/loss - val/loss")
    pinned = DataProvider(store).at(experiment_id=eid, pin=pin.id)
    assert "gap" in pinned.list_scalars(experiment_id=eid, plugin_name="scalars")["a"]
    with pytest.raises(InvalidArgumentError):
        pinned.define(experiment_id=eid, name="x", expression="lr")
