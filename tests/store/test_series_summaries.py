"""Series summaries, run status and the runs table (trainboard.store.summaries, trainboard.store.runs_table) on every
backend, checked against pandas over every point the store holds, on a logdir with NaNs, infinities, spikes, ties,
a restart that purges steps, long series over many chunks and writes spread over several ingest passes."""

from __future__ import annotations

import dataclasses
import math
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import psycopg
import pytest
import re2
from tensorboard.compat.proto import event_pb2, summary_pb2, types_pb2
from torch.utils import tensorboard as torch_tensorboard

from tests.store.conftest import StoreOpener
from trainboard.errors import InvalidArgumentError
from trainboard.ingest.loader import Loader
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos import hparams_pb2
from trainboard.store.opening import open_store
from trainboard.store.run_filter import FUNCTIONS, And, Compare, Not, Or, RunFilter, Term, parse, parse_terms
from trainboard.store.run_metadata import MetadataChange, RunMetadata
from trainboard.store.runs_table import SortKey, TableQuery
from trainboard.store.store import Store

TAGS = ("loss", "acc", "val/acc", "missing")
SUMMARY_TERMS = tuple(Term(function, tag) for tag in TAGS for function in FUNCTIONS)
RUN_TERMS = (Term("status", "status"), Term("start_time", "start_time"), Term("last_step", "last_step"))
# Long enough for any run written by the test to count as running.
NEVER = 1e12


def _hparams_summary(tag: str, data: hparams_pb2.HParamsPluginData) -> summary_pb2.Summary:
    summary = summary_pb2.Summary()
    value = summary.value.add(tag=tag)
    value.metadata.plugin_data.plugin_name = "hparams"
    value.metadata.plugin_data.content = data.SerializeToString()
    value.tensor.dtype = types_pb2.DT_FLOAT
    value.tensor.tensor_shape.dim.add(size=0)
    return summary


def _session(writer: Any, hparams: dict[str, float | str], status: int | None) -> None:
    start = hparams_pb2.SessionStartInfo()
    for name, value in hparams.items():
        if isinstance(value, str):
            start.hparams[name].string_value = value
        else:
            start.hparams[name].number_value = value
    writer.file_writer.add_summary(
        _hparams_summary("_hparams_/session_start_info", hparams_pb2.HParamsPluginData(session_start_info=start))
    )
    if status is not None:
        end = hparams_pb2.SessionEndInfo(status=status)  # type: ignore[arg-type]
        writer.file_writer.add_summary(
            _hparams_summary("_hparams_/session_end_info", hparams_pb2.HParamsPluginData(session_end_info=end))
        )


def _noisy(rng: np.random.Generator, count: int) -> np.ndarray:
    """Values with NaNs, infinities, spikes and repeated extremes."""
    values = rng.normal(1.0, 0.3, count)
    for special in (math.nan, math.inf, -math.inf, 1e30, -1e30):
        values[rng.choice(count, size=max(1, count // 50), replace=False)] = special
    values[rng.choice(count, size=2, replace=False)] = -7.25  # a tie of the finite minimum
    return values


def _write(path: Path, tags: dict[str, np.ndarray], steps: range, suffix: str) -> None:
    """A writer's session: a SessionLog START at its first step, which after a run's first one is a restart
    (TensorBoard's purge of the points from that step on)."""
    with torch_tensorboard.SummaryWriter(str(path), filename_suffix=suffix) as writer:
        start = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
        writer.file_writer.add_event(event_pb2.Event(session_log=start), step=steps[0])
        for position, step in enumerate(steps):
            for tag, values in tags.items():
                writer.add_scalar(tag, float(values[position]), step)


def write_first_pass(root: Path) -> None:
    rng = np.random.default_rng(25)
    with torch_tensorboard.SummaryWriter(str(root / "sweep" / "a")) as writer:
        _session(writer, {"lr": 0.1, "optimizer": "adam"}, hparams_pb2.STATUS_SUCCESS)
    _write(root / "sweep" / "a", {"loss": _noisy(rng, 300), "acc": rng.random(300)}, range(300), ".1")
    with torch_tensorboard.SummaryWriter(str(root / "sweep" / "b")) as writer:
        _session(writer, {"lr": 0.01, "optimizer": "sgd"}, hparams_pb2.STATUS_FAILURE)
    _write(root / "sweep" / "b", {"loss": _noisy(rng, 120), "val/acc": rng.random(120)}, range(0, 240, 2), ".1")
    with torch_tensorboard.SummaryWriter(str(root / "open")) as writer:
        _session(writer, {"lr": 0.001, "optimizer": "adam"}, None)
    _write(root / "open", {"loss": _noisy(rng, 5000), "acc": rng.random(5000)}, range(5000), ".1")
    # A restart: the second writer goes back to step 60, which purges the first one's points from there.
    _write(root / "restart", {"loss": _noisy(rng, 100), "acc": rng.random(100)}, range(100), ".1")
    _write(root / "restart", {"loss": _noisy(rng, 80), "acc": rng.random(80)}, range(60, 140), ".2")
    # Nothing finite: no min, max or mean; first and last are NaN or infinite.
    _write(root / "odd", {"loss": np.full(30, math.nan), "acc": np.array([math.inf, -math.inf] * 15)}, range(30), ".1")
    _write(root / "one", {"loss": np.array([-0.0]), "val/acc": np.array([3.5])}, range(7, 8), ".1")


def write_second_pass(root: Path) -> None:
    """More points for series already stored: merged into their summaries, and a restart across passes."""
    rng = np.random.default_rng(26)
    _write(root / "open", {"loss": _noisy(rng, 6000), "acc": rng.random(6000)}, range(5000, 11000), ".2")
    _write(root / "sweep" / "a", {"loss": _noisy(rng, 50), "acc": rng.random(50)}, range(250, 300), ".2")
    _write(root / "odd", {"loss": np.array([2.0, math.nan]), "acc": np.array([5.0, 6.0])}, range(30, 32), ".2")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("summaries")
    write_first_pass(root)
    return root


def _loaded(store: Store, logdir: Path) -> str:
    experiment_id = store.create_experiment("summaries").id
    loader = Loader(LogDir(str(logdir)), store, experiment_id, workers=0)
    loader.poll()
    write_second_pass(logdir)
    loader.poll()
    return experiment_id


@pytest.fixture(scope="module")
def second_pass_logdir(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logdir as both passes leave it (for stores that read it in one pass)."""
    import shutil

    root = Path(shutil.copytree(logdir, tmp_path_factory.mktemp("both") / "logdir"))
    write_second_pass(root)
    return root


@pytest.fixture
def loaded(open_test_store: StoreOpener, logdir: Path, tmp_path: Path) -> tuple[Store, str]:
    import shutil

    copy = Path(shutil.copytree(logdir, tmp_path / "logdir"))
    store = open_test_store()
    return store, _loaded(store, copy)


def expected_table(store: Store, experiment_id: str) -> dict[str, dict[Term, Any]]:
    """Each run's summaries, computed by pandas from every point the store gives."""
    table: dict[str, dict[Term, Any]] = {run.name: {} for run in store.runs(experiment_id)}
    for series in store.series(experiment_id):
        if series.tag not in TAGS:
            continue
        points = store.scalars(experiment_id, series.id)
        frame = pd.DataFrame({"step": points.steps, "value": points.values})
        finite = frame[np.isfinite(frame.value)]
        row = table[series.run]
        row[Term("count", series.tag)] = len(frame)
        row[Term("first", series.tag)] = _known(frame.value.iloc[0])
        row[Term("last", series.tag)] = _known(frame.value.iloc[-1])
        row[Term("min", series.tag)] = finite.value.min() if len(finite) else None
        row[Term("max", series.tag)] = finite.value.max() if len(finite) else None
        row[Term("mean", series.tag)] = finite.value.mean() if len(finite) else None
        row[Term("step_of_min", series.tag)] = int(finite.step[finite.value.idxmin()]) if len(finite) else None
        row[Term("step_of_max", series.tag)] = int(finite.step[finite.value.idxmax()]) if len(finite) else None
        row[Term("last_step", "last_step")] = max(row.get(Term("last_step", "last_step"), -1), int(frame.step.max()))
    return table


def _known(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _same(found: object, expected: object) -> bool:
    if isinstance(expected, float) and isinstance(found, float):
        return found == expected or math.isclose(found, expected, rel_tol=1e-12)
    return found == expected


def _table(store: Store, experiment_id: str, **query: Any) -> list[dict[str, Any]]:
    found = store.runs_table(experiment_id, TableQuery(**query), stalled_after=NEVER)
    return [dict(zip(found.columns, row, strict=True)) for row in found.rows]


def test_summaries_are_those_of_every_point(loaded: tuple[Store, str]) -> None:
    store, experiment_id = loaded
    expected = expected_table(store, experiment_id)
    restart = store.scalars(experiment_id, store.series(experiment_id, runs=["restart"], tags=["loss"])[0].id)
    assert restart.steps.tolist() == [*range(60), *range(60, 140)]  # the restart purged the first writer's 60..99
    assert len(store.scalars(experiment_id, store.series(experiment_id, runs=["open"], tags=["loss"])[0].id)) == 11000
    rows = _table(store, experiment_id, columns=SUMMARY_TERMS)
    assert sorted(row["run"] for row in rows) == sorted(expected)
    checked = 0
    for row in rows:
        for term in SUMMARY_TERMS:
            want = expected[row["run"]].get(term)
            assert _same(row[term.label], want), (row["run"], term.label, row[term.label], want)
            checked += want is not None
    assert checked > 80
    odd = next(row for row in rows if row["run"] == "odd")
    assert odd["min(loss)"] == 2.0 and odd["count(loss)"] == 32 and odd["last(loss)"] is None
    assert odd["first(acc)"] == math.inf and odd["min(acc)"] == 5.0 and odd["step_of_max(acc)"] == 31


def test_run_status_and_times(loaded: tuple[Store, str]) -> None:
    store, experiment_id = loaded
    expected = expected_table(store, experiment_id)
    rows = _table(store, experiment_id, columns=(*RUN_TERMS, Term("duration", "duration")))
    by_run = {row["run"]: row for row in rows}
    assert by_run["sweep/a"]["status"] == "finished"
    assert by_run["sweep/b"]["status"] == "failed"
    assert by_run["open"]["status"] == "running"
    for run, row in by_run.items():
        assert row["last_step"] == expected[run][Term("last_step", "last_step")], run
        assert row["start_time"] is not None and row["duration"] >= 0
    stalled = store.runs_table(experiment_id, TableQuery(columns=RUN_TERMS), stalled_after=0)
    assert {row[0]: row[1] for row in stalled.rows} == {
        "one": "stalled",
        "odd": "stalled",
        "open": "stalled",
        "restart": "stalled",
        "sweep/a": "finished",
        "sweep/b": "failed",
    }


def test_a_run_whose_points_are_stamped_before_its_start_starts_at_its_first_point(
    open_test_store: StoreOpener, tmp_path: Path
) -> None:
    """A writer given wall times of its own (a replayed log) stamps its points a year before its file-version event,
    which TensorBoard takes as the run's start: the table's start is the earlier, so the duration is not negative."""
    year = 365 * 86400.0
    with torch_tensorboard.SummaryWriter(str(tmp_path / "replayed")) as writer:
        for step in range(10):
            writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=1e9 + 60 * step)
            writer.add_scalar("acc", step / 10, step, walltime=1e9 + 60 * step + 1)
    _write(tmp_path / "live", {"loss": np.arange(5.0)}, range(5), ".1")
    store = open_test_store()
    experiment_id = store.create_experiment("replayed").id
    Loader(LogDir(str(tmp_path)), store, experiment_id, workers=0).poll()
    started = {run.name: run.start_time for run in store.runs(experiment_id)}
    walls = {series.run: store.scalars(experiment_id, series.id).wall_times for series in store.series(experiment_id)}
    assert started["replayed"] > 1e9 + year  # the file-version event is stamped now, the points long before
    times = (Term("start_time", "start_time"), Term("duration", "duration"))
    for reader in (store, store.pinned(experiment_id, store.create_pin(experiment_id).id)):  # type: ignore[union-attr]
        assert reader is not None
        rows = {row["run"]: row for row in _table(reader, experiment_id, columns=times)}
        assert rows["replayed"]["start_time"] == 1e9
        assert rows["replayed"]["duration"] == 9 * 60 + 1
        # A run written as it goes: its file-version event comes first and stays its start.
        assert rows["live"]["start_time"] == started["live"] <= walls["live"].min()
        assert 0 <= rows["live"]["duration"] == walls["live"].max() - started["live"]
        kept = reader.runs_table(experiment_id, TableQuery(where=parse("duration < 0", re2.compile)))
        assert kept.total == 0
    # TensorBoard's start (the runs listing, the HParams sessions) stays the file-version event's.
    assert {run.name: run.start_time for run in store.runs(experiment_id)} == started


def _value(tree: Compare, row: dict[Term, Any], run: str, hparams: dict[str, Any], status: str) -> Any:
    kind = tree.term.kind
    if kind == "name":
        return run
    if kind == "status":
        return status
    if kind == "field":
        return hparams[tree.field] if tree.field in hparams else row.get(Term("last", tree.field))
    return row.get(tree.term)


def evaluate(tree: RunFilter, run: str, row: dict[Term, Any], hparams: dict[str, Any], status: str) -> bool:
    """The language's meaning, in Python."""
    if isinstance(tree, Not):
        return not evaluate(tree.operand, run, row, hparams, status)
    if isinstance(tree, And):
        return all(evaluate(operand, run, row, hparams, status) for operand in tree.operands)
    if isinstance(tree, Or):
        return any(evaluate(operand, run, row, hparams, status) for operand in tree.operands)
    assert isinstance(tree, Compare)
    value = _value(tree, row, run, hparams, status)
    if value is None:
        return False
    if tree.operator == "~":
        return isinstance(value, str) and re2.search(str(tree.value), value) is not None
    if isinstance(value, str) != isinstance(tree.value, str):
        return False
    return bool(
        {
            "=": value == tree.value,
            "!=": value != tree.value,
            "<": value < tree.value,
            "<=": value <= tree.value,
            ">": value > tree.value,
            ">=": value >= tree.value,
        }[tree.operator]
    )


FILTERS = [
    "max(loss) > 100",
    "min(loss) = -7.25",
    "mean(loss) < 1 and count(loss) >= 100",
    "step_of_min(loss) < 50 or step_of_max(acc) > 100",
    "last(loss) > 0",
    "not last(loss) > 0",
    "first(`val/acc`) = 3.5",
    "count(missing) > 0",
    "not count(missing) > 0",
    "status = running",
    "status != finished and status ~ '^f'",
    "name ~ '^sweep/' and max(loss) >= 1e30",
    "lr < 0.05 or optimizer = adam",
    "loss > 0 and not optimizer = sgd",
    "MAX(acc) > 0.99",
    "last_step > 200",
    "duration >= 0 and start_time > 0",
    "min(acc) = 5 or first(acc) > 1e300",
]


def _random_filter(rng: random.Random, depth: int = 0, tags: tuple[str, ...] = ("loss", "acc", "`val/acc`")) -> str:
    roll = rng.random()
    if depth < 2 and roll < 0.3:
        joiner = rng.choice([" and ", " or "])
        return "(" + joiner.join(_random_filter(rng, depth + 1, tags) for _ in range(2)) + ")"
    if depth < 2 and roll < 0.4:
        return "not " + _random_filter(rng, depth + 1, tags)
    operator = rng.choice(["=", "!=", "<", "<=", ">", ">="])
    term = rng.choice([f"{f}({t})" for f in FUNCTIONS for t in tags])
    threshold = rng.choice(["0", "0.5", "1", "2", "-7.25", "100", "150", "1e30", "-1e30"])
    return f"{term} {operator} {threshold}"


def test_the_database_filters_as_python_does(loaded: tuple[Store, str]) -> None:
    store, experiment_id = loaded
    expected = expected_table(store, experiment_id)
    hparams = {values.run: values.hparams for values in store.run_values(experiment_id)}
    statuses = {row["run"]: row["status"] for row in _table(store, experiment_id, columns=RUN_TERMS)}
    times = {row["run"]: row for row in _table(store, experiment_id, columns=(*RUN_TERMS, Term("duration", "d")))}
    rng = random.Random(25)
    split = 0
    for text in FILTERS + [_random_filter(rng) for _ in range(120)]:
        tree = parse(text, re2.compile)
        want = sorted(
            run
            for run in expected
            if evaluate(
                tree,
                run,
                {
                    **expected[run],
                    Term("start_time", "start_time"): times[run]["start_time"],
                    Term("duration", "duration"): times[run]["duration"],
                },
                hparams[run],
                statuses[run],
            )
        )
        found = sorted(row["run"] for row in _table(store, experiment_id, where=tree, columns=()))
        assert found == want, text
        values = store.run_values(experiment_id, tree, stalled_after=NEVER)
        assert sorted(v.run for v in values) == want, text
        split += 0 < len(want) < len(expected)
    assert split > 60


@pytest.mark.parametrize("descending", [False, True])
def test_sorted_on_any_column_missing_values_last(loaded: tuple[Store, str], descending: bool) -> None:
    store, experiment_id = loaded
    every = _table(store, experiment_id, columns=(*RUN_TERMS, *SUMMARY_TERMS, Term("field", "optimizer")))
    for label in [key for key in every[0] if key != "run"]:
        term = parse_terms(label)[0][0]
        rows = _table(store, experiment_id, columns=(term,), sort=(SortKey(term, descending),))
        present = sorted(
            (row for row in every if row[label] is not None),
            key=lambda row: row["run"],
        )
        present.sort(key=lambda row: row[label], reverse=descending)
        want = [row["run"] for row in present]
        want += sorted(row["run"] for row in every if row[label] is None)
        found = [row["run"] for row in rows]
        # Runs that tie are ordered by name in either direction.
        assert [r[label] for r in rows] == [next(e for e in every if e["run"] == run)[label] for run in want], label
        assert found == _by_name_within_ties(want, every, label), label


def _by_name_within_ties(order: list[str], every: list[dict[str, Any]], label: str) -> list[str]:
    value = {row["run"]: row[label] for row in every}
    groups: list[list[str]] = []
    for run in order:
        if groups and value[groups[-1][0]] == value[run]:
            groups[-1].append(run)
        else:
            groups.append([run])
    return [run for group in groups for run in sorted(group)]


def test_pages_and_the_total(loaded: tuple[Store, str]) -> None:
    store, experiment_id = loaded
    sort = (SortKey(Term("max", "loss"), descending=True),)
    provider = DataProvider(store, stalled_after=NEVER)
    whole = provider.runs_table(experiment_id=experiment_id, query=TableQuery(sort=sort))
    assert whole.total == 6 and len(whole.rows) == 6
    assert whole.columns[:4] == ("run", "status", "start_time", "last_step")
    assert "lr" in whole.columns and "optimizer" in whole.columns and "last(val/acc)" in whole.columns
    query = TableQuery(columns=(Term("max", "loss"),), sort=sort)
    pages = [store.runs_table(experiment_id, dataclasses.replace(query, offset=o, limit=4)) for o in (0, 4, 8)]
    assert [p.total for p in pages] == [6, 6, 6]
    assert [row[0] for page in pages for row in page.rows] == [row[0] for row in whole.rows]
    kept = store.runs_table(experiment_id, TableQuery(where=parse("name ~ '^sweep'", re2.compile), limit=1))
    assert kept.total == 2 and [row[0] for row in kept.rows] == ["sweep/a"]


def test_terms_name_themselves_as_the_language_writes_them() -> None:
    terms = parse_terms("max(val/acc), -step_of_min(`loss (train)`), lr, `status`, status, Last(x)", descending=True)
    assert [(term.label, descending) for term, descending in terms] == [
        ("max(val/acc)", False),
        ("step_of_min(`loss (train)`)", True),
        ("lr", False),
        ("`status`", False),
        ("status", False),
        ("last(x)", False),
    ]
    with pytest.raises(InvalidArgumentError, match="position 0: expected a function"):
        parse_terms("median(x)")
    with pytest.raises(InvalidArgumentError, match="position 4: expected a tag name"):
        parse_terms("max(1)")
    with pytest.raises(InvalidArgumentError, match="position 0"):
        parse_terms("-max(x)")
    with pytest.raises(InvalidArgumentError, match=r"position 6: expected '\)'"):
        parse("max(x > 1", re2.compile)


def test_one_pass_and_two_passes_give_the_same_summaries(
    open_test_store: StoreOpener, second_pass_logdir: Path, loaded: tuple[Store, str]
) -> None:
    """Summaries merged batch by batch equal those of the same points written at once."""
    store, experiment_id = loaded
    once = open_test_store()
    once_id = once.create_experiment("once").id
    Loader(LogDir(str(second_pass_logdir)), once, once_id, workers=0).poll()
    query = TableQuery(columns=SUMMARY_TERMS)
    merged = store.runs_table(experiment_id, query).rows
    whole = once.runs_table(once_id, query).rows
    assert len(merged) == len(whole) == 6
    for left, right in zip(merged, whole, strict=True):
        assert all(_same(a, b) for a, b in zip(left, right, strict=True)), (left, right)


# The summaries' columns, as a store from before 0012/0013 lacks them.
_ADDED = {
    "scalar_chunks": "nonfinite_count min_value min_value_step max_value max_value_step value_sum first_step"
    " first_wall_time first_value last_step last_wall_time",
    "series": "nonfinite_count min_value min_value_step max_value max_value_step value_sum first_step first_wall_time"
    " first_value last_step last_wall_time last_value",
    "pin_series": "nonfinite_count min_value min_value_step max_value max_value_step value_sum first_step"
    " first_wall_time first_value last_step last_wall_time",
    "runs": "last_step last_wall_time end_status",
}


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_store_from_before_summaries_is_filled_when_migrated(
    backend: str, logdir: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    import shutil

    copy = Path(shutil.copytree(logdir, tmp_path / "logdir"))
    url = str(tmp_path / "store.sqlite") if backend == "sqlite" else request.getfixturevalue("postgres_url")
    store = open_store(url)
    experiment_id = _loaded(store, copy)
    query = TableQuery(columns=(*SUMMARY_TERMS, Term("last_step", "last_step"), Term("status", "status")))
    before = store.runs_table(experiment_id, query, stalled_after=NEVER)
    store.close()
    name = "0012_series_summaries" if backend == "sqlite" else "0013_series_summaries"
    drops = [
        f"ALTER TABLE {table} DROP COLUMN {column}" for table, columns in _ADDED.items() for column in columns.split()
    ]
    if backend == "sqlite":
        with sqlite3.connect(url) as db:
            for statement in [
                "DROP INDEX series_summaries",
                "DROP INDEX series_tags",
                "DROP INDEX run_hparams_values",
                *drops,
            ]:
                db.execute(statement)
            db.execute("DELETE FROM migrations WHERE name = ?", (name,))
    else:
        with psycopg.connect(url) as connection:
            for statement in ["DROP INDEX series_by_tag_summaries", *drops, "DROP INDEX run_hparams_by_name"]:
                connection.execute(statement.encode())
            connection.execute("DELETE FROM migrations WHERE name = %s", (name,))
    store = open_store(url)
    try:
        after = store.runs_table(experiment_id, query, stalled_after=NEVER)
        assert after.columns == before.columns and len(after.rows) == 6
        for left, right in zip(after.rows, before.rows, strict=True):
            assert all(_same(a, b) for a, b in zip(left, right, strict=True)), (left, right)
    finally:
        store.close()


def test_a_pin_keeps_the_summaries_it_saw(loaded: tuple[Store, str], tmp_path: Path) -> None:
    store, experiment_id = loaded
    pin = store.create_pin(experiment_id)
    assert pin is not None
    query = TableQuery(columns=SUMMARY_TERMS)
    before = store.runs_table(experiment_id, query).rows
    _write(
        tmp_path / "logdir" / "open",
        {"loss": np.array([-1e35, 0.5]), "acc": np.array([0.5, 0.5])},
        range(11000, 11002),
        ".3",
    )
    Loader(LogDir(str(tmp_path / "logdir")), store, experiment_id, workers=0).poll()
    live = {row[0]: row for row in store.runs_table(experiment_id, query).rows}
    found = float(live["open"][1 + SUMMARY_TERMS.index(Term("min", "loss"))])  # type: ignore[arg-type]
    assert found < -1e34 and live["open"][1 + SUMMARY_TERMS.index(Term("count", "loss"))] == 11002
    pinned = store.pinned(experiment_id, pin.id)
    assert pinned is not None
    assert pinned.runs_table(experiment_id, query).rows == before
    kept = pinned.runs_table(experiment_id, TableQuery(where=parse("min(loss) < -1e34", re2.compile)))
    assert [row[0] for row in kept.rows] == [] and kept.total == 0
    assert store.runs_table(experiment_id, TableQuery(where=parse("min(loss) < -1e34", re2.compile))).total == 1


# Run metadata as the filter and the table read it (a run without any: no labels, not starred, notes "").
METADATA = {
    "sweep/a": MetadataChange(add_labels=("baseline", "lr sweep"), starred=True, notes="Diverged at step 40.\nRetry."),
    "sweep/b": MetadataChange(add_labels=("lr sweep",), notes="ok", display_name="B", color="#00aa11"),
    "open": MetadataChange(add_labels=("baseline",), display_name="the long one"),
    "odd": MetadataChange(starred=True, add_labels=("a", "ab", "a b")),
}
METADATA_TERMS = tuple(Term(name, name) for name in ("labels", "starred", "notes", "display_name", "color"))
METADATA_FILTERS = [
    "label = baseline",
    "labels = baseline",
    "label != baseline",
    "not label = baseline",
    "label = 'lr sweep' and label = baseline",
    "label ~ '^a'",
    "label ~ 'nothing'",
    "label > b",
    "label = 3",
    "starred",
    "not starred",
    "starred = true",
    "starred = false and max(loss) > 1",
    "starred or label = baseline",
    "notes ~ '(?i)diverged'",
    "notes ~ '^$'",
    "notes = ''",
    "notes != ok",
    "display_name ~ long",
    "display_name = B",
    "color = '#00aa11'",
    "color ~ '.'",
    "not color ~ '.'",
    "name ~ '^sweep/' and not starred",
]


@pytest.fixture
def with_metadata(loaded: tuple[Store, str]) -> tuple[Store, str]:
    store, experiment_id = loaded
    for run, change in METADATA.items():
        store.change_run_metadata(experiment_id, [run], change)
    return store, experiment_id


def _metadata_value(term: Term, metadata: RunMetadata) -> Any:
    return metadata.as_json()[term.kind] if term.kind != "starred" else float(metadata.starred)


def _metadata_holds(compare: Compare, metadata: RunMetadata) -> bool:
    """The metadata terms' meaning in Python: a label compares as any of the run's labels, `!=` as none of them."""
    if compare.term.kind != "labels":
        value = _metadata_value(compare.term, metadata)
        return value is not None and _compared(compare, value)
    if compare.operator == "!=":
        return isinstance(compare.value, str) and compare.value not in metadata.labels
    return any(_compared(compare, label) for label in metadata.labels)


def _compared(compare: Compare, value: Any) -> bool:
    tree = dataclasses.replace(compare, field="x", function=None, is_name=False)
    return evaluate(tree, "", {}, {"x": value}, "")


def _holds(tree: RunFilter, run: str, metadata: RunMetadata, others: Callable[[Compare], bool]) -> bool:
    if isinstance(tree, Not):
        return not _holds(tree.operand, run, metadata, others)
    if isinstance(tree, And | Or):
        results = [_holds(operand, run, metadata, others) for operand in tree.operands]
        return all(results) if isinstance(tree, And) else any(results)
    if tree.term.kind in METADATA_NAMES:
        return _metadata_holds(tree, metadata)
    return others(tree)


METADATA_NAMES = {term.kind for term in METADATA_TERMS}


def test_the_database_filters_on_run_metadata_as_python_does(with_metadata: tuple[Store, str]) -> None:
    store, experiment_id = with_metadata
    expected = expected_table(store, experiment_id)
    kept = {found.run: found for found in store.run_metadata(experiment_id)}
    every = {run: kept.get(run, RunMetadata(run)) for run in expected}
    rng = random.Random(26)
    randoms = [
        " and ".join(rng.sample(METADATA_FILTERS, 2)) if rng.random() < 0.5 else "not " + rng.choice(METADATA_FILTERS)
        for _ in range(40)
    ]
    split = 0
    for text in METADATA_FILTERS + randoms:
        tree = parse(text, re2.compile)
        want = sorted(
            run
            for run, metadata in every.items()
            if _holds(tree, run, metadata, lambda compare, run=run: evaluate(compare, run, expected[run], {}, ""))
        )
        found = sorted(row["run"] for row in _table(store, experiment_id, where=tree, columns=()))
        assert found == want, text
        assert sorted(v.run for v in store.run_values(experiment_id, tree, stalled_after=NEVER)) == want, text
        split += 0 < len(want) < len(expected)
    assert split > 30


def test_run_metadata_columns_and_their_sort(with_metadata: tuple[Store, str]) -> None:
    store, experiment_id = with_metadata
    rows = {row["run"]: row for row in _table(store, experiment_id, columns=METADATA_TERMS)}
    assert rows["odd"]["labels"] == ["a", "a b", "ab"] and rows["odd"]["starred"] is True
    assert rows["sweep/b"] == {
        "run": "sweep/b",
        "labels": ["lr sweep"],
        "starred": False,
        "notes": "ok",
        "display_name": "B",
        "color": "#00aa11",
    }
    assert rows["one"] == {"run": "one", "labels": [], "starred": False, "notes": "", "display_name": "", "color": None}
    for term in METADATA_TERMS:
        for descending in (False, True):
            found = [row["run"] for row in _table(store, experiment_id, columns=(), sort=(SortKey(term, descending),))]
            # Python's order (lists of labels compare element by element), ties by name, missing values last.
            value = {run: row[term.label] for run, row in rows.items()}
            present = sorted((run for run in value if value[run] not in (None, [])), key=lambda run: run)
            present.sort(key=lambda run: value[run], reverse=descending)
            missing = sorted(run for run in value if value[run] in (None, []))
            assert found == _by_name_within_ties(present, list(rows.values()), term.label) + missing, term.label


def test_run_metadata_terms_are_words_of_the_language() -> None:
    terms = parse_terms("label, labels, starred, notes, display_name, color, `notes`, `label`")
    assert [term.label for term, _ in terms] == [
        "labels",
        "labels",
        "starred",
        "notes",
        "display_name",
        "color",
        "`notes`",
        "`label`",
    ]
    assert parse("not starred", re2.compile) == Not(Compare("starred", False, "=", 1.0, None, "starred"))
    with pytest.raises(InvalidArgumentError, match="position 10: expected a value"):
        parse("starred = and", re2.compile)


# Derived metrics: differences, a division by values that reach 0, -0.0, NaN and ±inf, and an asof alignment over
# tags logged at other steps (`val/acc` every other step in sweep/b).
DEFINITIONS = {"gap": ("loss - acc", "exact"), "ratio": ("acc / loss", "exact"), "late": ("`val/acc` - loss", "asof")}
DERIVED_TERMS = tuple(Term(function, name) for name in DEFINITIONS for function in FUNCTIONS)


def test_derived_metrics_in_the_table_and_the_filter_as_pandas_over_every_point(loaded: tuple[Store, str]) -> None:
    store, experiment_id = loaded
    provider = DataProvider(store, writer=store, stalled_after=NEVER)
    for name, (expression, align) in DEFINITIONS.items():
        provider.define(experiment_id=experiment_id, name=name, expression=expression, align=align)
    series = provider.read_scalar_columns(
        experiment_id=experiment_id, plugin_name="scalars", downsample=None, run_tag_filter=None
    )
    expected: dict[str, dict[Term, Any]] = {run.name: {} for run in store.runs(experiment_id)}
    for run, by_tag in series.items():
        for tag, points in by_tag.items():
            frame = pd.DataFrame({"step": points.steps, "value": points.values})
            finite = frame[np.isfinite(frame.value)]
            row = expected[run]
            row[Term("count", tag)] = len(frame)
            row[Term("first", tag)] = _known(frame.value.iloc[0])
            row[Term("last", tag)] = _known(frame.value.iloc[-1])
            row[Term("min", tag)] = finite.value.min() if len(finite) else None
            row[Term("max", tag)] = finite.value.max() if len(finite) else None
            row[Term("mean", tag)] = finite.value.mean() if len(finite) else None
            row[Term("step_of_min", tag)] = int(finite.step[finite.value.idxmin()]) if len(finite) else None
            row[Term("step_of_max", tag)] = int(finite.step[finite.value.idxmax()]) if len(finite) else None
    assert {run for run, by_tag in series.items() if "late" in by_tag} == {"sweep/b", "one"}
    assert len(series["open"]["ratio"]) == 11000 and not np.isfinite(series["odd"]["ratio"].values).all()
    table = provider.runs_table(experiment_id=experiment_id, query=TableQuery(columns=DERIVED_TERMS))
    checked = 0
    for run, *values in table.rows:
        for term, value in zip(DERIVED_TERMS, values, strict=True):
            want = expected[str(run)].get(term)
            assert _same(value, want), (run, term.label, value, want)
            checked += want is not None
    assert checked > 70
    rng = random.Random(27)
    fixed = ["max(gap) < 0.1", "last(ratio) > 1", "gap < 0 and not max(late) > 0", "count(late) > 0 or lr < 0.05"]
    split = 0
    for text in fixed + [_random_filter(rng, tags=tuple(DEFINITIONS)) for _ in range(60)]:
        tree = parse(text, re2.compile)
        hparams = {values.run: values.hparams for values in store.run_values(experiment_id)}
        want = sorted(run for run in expected if evaluate(tree, run, expected[run], hparams[run], ""))
        query = TableQuery(where=tree, columns=(Term("name", "name"),))
        assert sorted(str(row[0]) for row in provider.runs_table(experiment_id=experiment_id, query=query).rows) == want
        assert sorted(v.run for v in provider.list_run_values(experiment_id=experiment_id, run_filter=tree)) == want
        split += 0 < len(want) < len(expected)
    assert split > 20
    # Sorted on a derived column, missing values last.
    sort = (SortKey(Term("max", "gap"), descending=True),)
    order = [row[0] for row in provider.runs_table(experiment_id=experiment_id, query=TableQuery(sort=sort)).rows]
    maxima = {run: expected[run].get(Term("max", "gap")) for run in expected}
    assert order == sorted(maxima, key=lambda run: (maxima[run] is None, -(maxima[run] or 0), run))
