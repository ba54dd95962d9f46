"""The run filter language: parsed into a tree, evaluated by the database (SQLite and PostgreSQL) on a sweep written by
torch's SummaryWriter, and compared with a plain Python evaluation of the same filter over the values the store gives
without one."""

from __future__ import annotations

import math
import random
import re
import shutil
import sqlite3
from pathlib import Path

import psycopg
import pytest
import re2
from torch.utils import tensorboard as torch_tensorboard

from tests.logdirs import write_sweep_logdir
from tests.store.conftest import StoreOpener
from trainboard.errors import InvalidArgumentError
from trainboard.ingest.loader import Loader
from trainboard.plugins.run_filter import parsed
from trainboard.reader.logdir import LogDir
from trainboard.store.opening import open_store
from trainboard.store.run_filter import And, Compare, FilterSyntaxError, Not, Or, RunFilter, parse
from trainboard.store.run_values import RunValues
from trainboard.store.store import Store

FILTERS = [
    "lr < 0.01 and acc > 0.9",
    'optimizer = "adam" or name ~ "seed_[12]"',
    "not (loss >= 0.5)",
    "not loss >= 0.5",
    "lr = 0.01",
    "lr != 0.01",
    "warmup = true",
    "warmup = false and seed >= 1",
    "`val/acc` > 0.89",
    "val/acc > 0.89 and optimizer = sgd",
    "optimizer != adam or name = baseline",
    "name ~ seed_1",
    "`val/acc` <= 0.89 or lr > 0.05",
    'optimizer ~ "^s"',
    'optimizer < "b"',
    'name = "baseline"',
    'name >= "sgd"',
    "name = 1",
    "missing > 0",
    "not missing > 0",
    "loss > 0 and (lr = 0.1 or (seed = 0 and not optimizer = 'sgd'))",
    'name ~ "lr0\\.1_" and not `val/acc` > 0.9',
    "acc ~ '0'",
    "lr = '0.1'",
    "loss < 1e400",
    'name ~ ""',
    "LR < 1",
    "seed > -1 AND seed < 2 OR lr >= 1e-1",
    " and ".join(['name ~ "."'] * 200),
]


def evaluate(tree: RunFilter, values: RunValues) -> bool:
    """The language's meaning, in Python."""
    if isinstance(tree, Not):
        return not evaluate(tree.operand, values)
    if isinstance(tree, And):
        return all(evaluate(operand, values) for operand in tree.operands)
    if isinstance(tree, Or):
        return any(evaluate(operand, values) for operand in tree.operands)
    assert isinstance(tree, Compare)
    value: float | str | None = (
        values.run if tree.is_name else values.hparams.get(tree.field, values.metrics.get(tree.field))
    )
    if value is None:
        return False
    if tree.operator == "~":
        return isinstance(value, str) and re.search(str(tree.value), value) is not None
    if type(value) is not type(tree.value) and not (isinstance(value, float) and isinstance(tree.value, float)):
        return False
    ordered: dict[str, bool] = {
        "=": value == tree.value,
        "!=": value != tree.value,
        "<": value < tree.value,  # type: ignore[operator]
        "<=": value <= tree.value,  # type: ignore[operator]
        ">": value > tree.value,  # type: ignore[operator]
        ">=": value >= tree.value,  # type: ignore[operator]
    }
    return ordered[tree.operator]


def random_filter(rng: random.Random, depth: int = 0) -> str:
    """A filter of the language over the sweep's fields, to compare both evaluations on many more than FILTERS."""
    roll = rng.random()
    if depth < 3 and roll < 0.3:
        joiner = rng.choice([" and ", " or "])
        return "(" + joiner.join(random_filter(rng, depth + 1) for _ in range(rng.randint(2, 3))) + ")"
    if depth < 3 and roll < 0.4:
        return "not " + random_filter(rng, depth + 1)
    operator = rng.choice(["=", "!=", "<", "<=", ">", ">="])
    field, value = rng.choice(
        [
            ("lr", rng.choice(["0.001", "0.01", "0.1", "0.05"])),
            ("seed", rng.choice(["0", "1", "2"])),
            ("acc", f"{rng.uniform(0.95, 1.0):.3f}"),
            ("loss", f"{rng.uniform(-0.05, 0.1):.3f}"),
            (rng.choice(["`val/acc`", "val/acc"]), f"{rng.uniform(0.88, 0.9):.4f}"),
            ("optimizer", rng.choice(['"adam"', '"sgd"', '"b"', "adam", "sgd"])),
            ("name", rng.choice(['"baseline"', '"sgd/lr0.1_seed1"', '"m"'])),
        ]
    )
    if rng.random() < 0.15:
        operator, value = "~", rng.choice(['"^a"', '"seed[01]$"', '"(?i)SGD"', '"0\\.1"'])
    return f"{field} {operator} {value}"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sweep_logdir(tmp_path_factory.mktemp("sweep"))


@pytest.fixture
def loaded(open_test_store: StoreOpener, sweep: Path) -> tuple[Store, str]:
    store = open_test_store()
    experiment_id = store.create_experiment("sweep").id
    Loader(LogDir(str(sweep)), store, experiment_id, workers=0).poll()
    return store, experiment_id


def test_parse_builds_the_tree_with_precedence() -> None:
    tree = parse("not a = 1 or b > 2 and `c/d` ~ 'x'", re2.compile)
    assert isinstance(tree, Or)
    first, second = tree.operands
    assert first == Not(Compare("a", False, "=", 1.0))
    assert second == And((Compare("b", False, ">", 2.0), Compare("c/d", False, "~", "x")))
    assert parse("name = 'a\\'b'", re2.compile) == Compare("name", True, "=", "a'b")
    assert parse("`name` = 'x'", re2.compile) == Compare("name", False, "=", "x")
    assert parse("((x >= -1.5e-3))", re2.compile) == Compare("x", False, ">=", -1.5e-3)


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("lr <", 4, "a value (a number, a word, a quoted string, true or false)"),
        ("val/loss <", 10, "a value"),
        ("val/loss < 0.46 anc", 16, "and, or or the end"),
        ("optimizer = and", 12, "a value"),
        ("seed0$", 5, "a field, a value, an operator or a parenthesis"),
        ("/loss < 1", 0, "a field, a value, an operator or a parenthesis"),
        ("lr < `x`", 5, "a value"),
        ("lr 0.1", 3, "an operator"),
        ("(lr < 1", 7, "')'"),
        ("lr < 1 acc > 2", 7, "and, or or the end"),
        ("and lr < 1", 0, "a field name"),
        ("lr ~ 1", 5, "a regular expression after ~ (quoted, or a word)"),
        ("lr < 'x", 5, "a field, a value, an operator or a parenthesis"),
        ("name ~ '('", 7, "a valid regular expression"),
        ("a = 1 @", 6, "a field, a value"),
        ("(" * 40 + "a = 1" + ")" * 40, 33, "at most 32 nested"),
        ("not " * 40 + "a = 1", 132, "at most 32 nested"),
        (" or ".join(["a = 1"] * 300), 2304, "at most 256 comparisons"),
    ],
)
def test_a_bad_filter_says_where_and_what_was_expected(text: str, position: int, expected: str) -> None:
    with pytest.raises(FilterSyntaxError) as raised:
        parsed(text)
    assert raised.value.position == position
    assert expected in str(raised.value)
    assert raised.value.http_code == 400


def test_tag_names_with_slashes_and_bare_words_need_no_quotes() -> None:
    assert parse("val/loss < 0.46", re2.compile) == Compare("val/loss", False, "<", 0.46)
    assert parse("optimizer = sgd", re2.compile) == Compare("optimizer", False, "=", "sgd")
    assert parse("model.depth>=2 and arch != resnet-50", re2.compile) == And(
        (Compare("model.depth", False, ">=", 2.0), Compare("arch", False, "!=", "resnet-50"))
    )
    assert parse("name = train/hparams", re2.compile) == Compare("name", True, "=", "train/hparams")
    assert parse("name ~ seed_1", re2.compile) == Compare("name", True, "~", "seed_1")
    # Keywords stay keywords; a bare word is a string, never a field.
    assert parse("warmup = TRUE", re2.compile) == Compare("warmup", False, "=", 1.0)
    assert parse("a = b", re2.compile) == Compare("a", False, "=", "b")


def test_a_huge_filter_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="longer than 4096"):
        parse("a = 1 or " * 1000 + "a = 1", re2.compile)


def test_the_store_keeps_hparams_and_final_values(loaded: tuple[Store, str], sweep: Path) -> None:
    store, experiment_id = loaded
    every = {values.run: values for values in store.run_values(experiment_id)}
    assert len(every) == 19
    run = every["sgd/lr0.1_seed1"]
    assert run.hparams == {"lr": 0.1, "optimizer": "sgd", "seed": 1.0, "warmup": 0.0}
    for tag in ("loss", "acc", "val/acc"):
        series = store.series(experiment_id, runs=["sgd/lr0.1_seed1"], tags=[tag])[0]
        assert run.metrics[tag] == store.scalars(experiment_id, series.id).values[-1]
    # The baseline's loss ends in NaN: no final value to compare.
    assert every["baseline"] == RunValues("baseline", {}, {})


def test_the_database_evaluates_filters_as_python_does(loaded: tuple[Store, str]) -> None:
    store, experiment_id = loaded
    every = store.run_values(experiment_id)
    rng = random.Random(5)
    texts = FILTERS + [random_filter(rng) for _ in range(150)]
    kept_any = 0
    for text in texts:
        tree = parse(text, re2.compile)
        expected = [values.run for values in every if evaluate(tree, values)]
        found = store.run_values(experiment_id, tree)
        assert [values.run for values in found] == expected, text
        assert all(values == next(v for v in every if v.run == values.run) for values in found)
        kept_any += 0 < len(expected) < len(every)
    assert kept_any > 50  # most filters split the runs: the comparison is not between empty answers


def test_a_pin_keeps_the_final_values_it_saw(open_test_store: StoreOpener, sweep: Path, tmp_path: Path) -> None:
    sweep = Path(shutil.copytree(sweep, tmp_path / "sweep"))
    store = open_test_store()
    experiment_id = store.create_experiment("sweep").id
    Loader(LogDir(str(sweep)), store, experiment_id, workers=0).poll()
    pin = store.create_pin(experiment_id)
    assert pin is not None
    before = store.run_values(experiment_id)
    with torch_tensorboard.SummaryWriter(str(sweep / "adam" / "lr0.1_seed0")) as writer:
        writer.add_scalar("acc", -5.0, 1000)
    with torch_tensorboard.SummaryWriter(str(sweep / "late")) as writer:
        writer.add_scalar("acc", 2.0, 0)
    Loader(LogDir(str(sweep)), store, experiment_id, workers=0).poll()
    pinned = store.pinned(experiment_id, pin.id)
    assert pinned is not None
    tree = parse("acc < 0 or acc > 1.5", re2.compile)
    assert sorted(values.run for values in store.run_values(experiment_id, tree)) == ["adam/lr0.1_seed0", "late"]
    assert pinned.run_values(experiment_id, tree) == []
    assert pinned.run_values(experiment_id) == before
    assert math.isclose(
        next(v for v in store.run_values(experiment_id) if v.run == "adam/lr0.1_seed0").metrics["acc"], -5.0
    )


# A store as 0007 left it.
UNDO_0008 = (
    "DROP TABLE run_hparams",
    "DROP INDEX scalar_chunks_by_series",
    "ALTER TABLE scalar_chunks DROP COLUMN last_value",
    "ALTER TABLE pin_series DROP COLUMN last_value",
    "DELETE FROM migrations WHERE name = '0008_run_values'",
)
INDEX_0007 = {
    "sqlite": "CREATE INDEX scalar_chunks_by_series"
    " ON scalar_chunks (series_id, id, point_count, min_step, max_step, checksum)",
    "postgres": "CREATE INDEX scalar_chunks_by_series ON scalar_chunks (experiment_id, series_id, chunk_id)"
    " INCLUDE (point_count, min_step, max_step, checksum)",
}


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_store_from_before_the_filter_is_filled_when_migrated(
    backend: str, sweep: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = str(tmp_path / "store.sqlite") if backend == "sqlite" else request.getfixturevalue("postgres_url")
    store = open_store(url)
    experiment_id = store.create_experiment("sweep").id
    Loader(LogDir(str(sweep)), store, experiment_id, workers=0).poll()
    before = store.run_values(experiment_id)
    store.close()
    if backend == "sqlite":
        with sqlite3.connect(url) as db:
            for statement in (*UNDO_0008, INDEX_0007[backend]):
                db.execute(statement)
    else:
        with psycopg.connect(url) as connection:
            for statement in (*UNDO_0008, INDEX_0007[backend]):
                connection.execute(statement.encode())
    store = open_store(url)
    try:
        assert store.run_values(experiment_id) == before
        assert sum(len(values.hparams) for values in before) == 72
    finally:
        store.close()
