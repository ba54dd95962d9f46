"""No answer depends on the order in which ingest saw runs and files arrive (issue 13): stores of one logdir loaded
cold in parallel, run by run in shuffled orders (with and without a restart between passes) and file by file in a
shuffled order answer every TensorBoard, hparams and TS-VIS route alike, JSON object keys in the same order too (the
store's run ids follow ingest order; no answer may show it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.ingest.order_calls import STATUSES, differences
from tests.ingest.order_logdir import DIFFERING, write_order_logdir
from tests.ingest.order_stores import cold_load, files_one_at_a_time, runs_one_at_a_time, serving

REPORTED = 10


@dataclass(frozen=True, slots=True)
class Served:
    client: httpx.Client
    logdir: Path


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Served, Served]]]:
    """Copies of one logdir that arrived in different orders, each ingested as it arrived, with a cold parallel load
    of the same copy to compare it with (TensorBoard's projector lists runs in the order the filesystem lists their
    directories, which differs from copy to copy)."""
    root = tmp_path_factory.mktemp("ingest_order")
    source = write_order_logdir(root / "logs")
    arrivals: dict[str, Callable[[Path, Path], None]] = {
        "runs shuffled": lambda logdir, db: runs_one_at_a_time(source, logdir, db, seed=1, restart=False),
        "runs shuffled, a restart each pass": lambda logdir, db: runs_one_at_a_time(
            source, logdir, db, seed=2, restart=True
        ),
        "files shuffled": lambda logdir, db: files_one_at_a_time(source, logdir, db, seed=3),
    }
    with ExitStack() as stack:
        served = {}
        for index, (name, arrive) in enumerate(arrivals.items()):
            logdir = root / f"copy_{index}"
            arrive(logdir, root / f"copy_{index}.sqlite")
            cold_load(logdir, root / f"cold_{index}.sqlite")
            served[name] = tuple(
                Served(stack.enter_context(serving(logdir, root / f"{kind}_{index}.sqlite")), logdir)
                for kind in ("cold", "copy")
            )
        yield served  # type: ignore[misc]


def test_every_answer_is_independent_of_ingest_order(stores: dict[str, tuple[Served, Served]]) -> None:
    problems, count = [], 0
    for name, (cold, arrived) in stores.items():
        compared, found = differences(cold.client, arrived.client)
        count += compared
        problems += [f"{name}: {problem}" for problem in found]
    shown = "\n".join(problems[:REPORTED])
    assert not problems, f"{len(problems)} answers differ from a cold load's:\n{shown}"
    assert count > 3000


def test_a_group_takes_its_first_sessions_hparams_in_run_order(stores: dict[str, tuple[Served, Served]]) -> None:
    """A group takes the hparams of its first session of an allowed status in the order of a sorted walk of the
    logdir: differ/a_first, then a_first/nested, b_second, c_third, whatever order they were ingested in.
    (TensorBoard walks in the order the filesystem lists directories: where that is not by name, as on ext4, it can
    pick another session of such a group; its order is not kept in the store.)"""
    expected = {
        tuple(STATUSES): DIFFERING["a_first"][0],
        ("STATUS_UNKNOWN",): DIFFERING["a_first/nested"][0],
        ("STATUS_FAILURE", "STATUS_RUNNING"): DIFFERING["b_second"][0],
        ("STATUS_RUNNING",): DIFFERING["c_third"][0],
    }
    for name, both in stores.items():
        for served in both:
            for statuses, hparams in expected.items():
                request = {"allowedStatuses": list(statuses), "sliceSize": 1000}
                answer = served.client.post("/data/plugin/hparams/session_groups", json=request).json()
                groups = [group for group in answer["sessionGroups"] if group["name"] == "shared"]
                assert len(groups) == 1 and groups[0]["hparams"] == hparams, (name, statuses, groups)
