"""The provider's every-point reads (`stream_*`), its run order and bounds as the Python API and trainboard's
downloads meet them, and its caches' bound; on a logdir tensorboardX writes, ingested into a real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import tensorboardX
from starlette.testclient import TestClient

import trainboard
from tests.stores import TestStore
from trainboard.errors import InvalidArgumentError
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.progress import IngestProgress
from trainboard.normaliser.points import DataClass
from trainboard.provider.cache import ENTRIES
from trainboard.provider.provider import MAX_POINTS, DataProvider
from trainboard.provider.values import RunTagFilter, StepRange
from trainboard.reader.logdir import LogDir
from trainboard.settings import Settings

# Walk order: the logdir itself, then "a" before its subdirectory's run, then "a-b" ("a-b" < "a/c" by name).
RUNS = {".": 3, "a-b": 5, "a/c": 8}
WALK_ORDER = [".", "a/c", "a-b"]


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("logdir")
    for run, steps in RUNS.items():
        with tensorboardX.SummaryWriter(str(root / run)) as writer:
            for step in range(steps):
                writer.add_scalar("z/loss", 1.0 / (step + 1), step)
                writer.add_scalar("accuracy", step / 10, step)
                writer.add_text("notes", f"step {step}", step)
    return root


@pytest.fixture
def stored(logdir: Path, tmp_path: Path) -> Iterator[TestStore]:
    store = TestStore(tmp_path / "store.sqlite")
    loader = store.loader(LogDir(str(logdir)))
    loader.poll()
    loader.close()
    yield store
    store.close()


def test_streams_give_every_point_runs_in_walk_order_tags_by_name(stored: TestStore) -> None:
    provider = stored.provider()
    found = [
        (series.run, series.tag, series.metadata.plugin_name, series.points.steps.tolist())
        for series in provider.stream_scalars(experiment_id=stored.experiment_id, plugin_name=None)
    ]
    assert found == [
        (run, tag, "scalars", list(range(RUNS[run]))) for run in WALK_ORDER for tag in ("accuracy", "z/loss")
    ]
    assert [run.run_name for run in provider.list_runs(experiment_id=stored.experiment_id)] == WALK_ORDER
    (text,) = provider.stream_tensors(
        experiment_id=stored.experiment_id,
        plugin_name="text",
        run_tag_filter=RunTagFilter.of(["a/c"]),
        steps=StepRange(first=6),
    )
    assert [(point.step, point.numpy.item()) for point in text.points] == [(6, b"step 6"), (7, b"step 7")]


def test_a_stream_bounds_each_series_as_one_read(stored: TestStore) -> None:
    """The bound of 6 points: every series of "." and "a-b" (3 and 5 points, 16 in all) comes; "a/c"'s 8 points are
    refused when the stream is asked for, before any point is read."""
    provider = DataProvider(stored.store, max_points={**MAX_POINTS, DataClass.SCALAR: 6})
    kept = RunTagFilter.of([".", "a-b"])
    streamed = provider.stream_scalars(experiment_id=stored.experiment_id, plugin_name=None, run_tag_filter=kept)
    assert sum(len(series.points) for series in streamed) == 16
    with pytest.raises(InvalidArgumentError, match="8 points .* bound of 6"):
        provider.stream_scalars(experiment_id=stored.experiment_id, plugin_name=None)
    latest = provider.stream_scalars(experiment_id=stored.experiment_id, plugin_name=None, steps=StepRange(latest=6))
    assert [len(series.points) for series in latest] == [3, 3, 6, 6, 5, 5]


def test_the_python_api_answers_in_the_providers_run_order(logdir: Path, tmp_path: Path) -> None:
    with trainboard.open(logdir, db=str(tmp_path / "store.sqlite")) as experiment:
        scalars = experiment.scalars()
        assert list(dict.fromkeys(scalars.run.astype(str))) == WALK_ORDER
        assert list(experiment.runs().run) == WALK_ORDER
        assert len(scalars) == 2 * sum(RUNS.values())


def test_downloads_and_frames_read_through_the_servers_provider_and_its_bounds(stored: TestStore) -> None:
    provider = DataProvider(stored.store, max_points={**MAX_POINTS, DataClass.SCALAR: 6})
    experiments = Experiments(
        provider,
        stored.store,
        progress={stored.experiment_id: IngestProgress.finished()},
        elsewhere=IngestProgress.finished(),
        default=stored.experiment_id,
    )
    with TestClient(create_app(experiments, Settings()), base_url="http://localhost") as client:
        refused = client.get("/data/trainboard/scalars", params={"format": "csv"})
        assert refused.status_code == 400 and "bound of 6" in refused.text
        kept = client.get("/data/trainboard/scalars", params={"format": "csv", "run": ["a-b", "."], "tag": "z/loss"})
        assert kept.status_code == 200, kept.text
        assert [line.split(",")[:3] for line in kept.text.splitlines()[1:]] == [
            *([".", "z/loss", str(step)] for step in range(3)),
            *(["a-b", "z/loss", str(step)] for step in range(5)),
        ]
        assert client.get("/data/trainboard/frames/scalars").status_code == 400


def test_the_caches_keep_the_entries_last_asked_for(stored: TestStore) -> None:
    provider = stored.provider()
    experiment_id = stored.experiment_id
    built: list[str] = []

    def kept(key: str) -> str:
        """What the provider keeps for `key`, built (and recorded) when it keeps nothing."""

        def build() -> str:
            built.append(key)
            return key

        return provider.derived(experiment_id, key, build)

    for key in range(ENTRIES):
        kept(str(key))
    # Asked for again, 0 is the most recent: 1 leaves when one more comes.
    kept("0")
    kept("new")
    assert len(built) == ENTRIES + 1
    kept("0")
    kept("1")
    assert built[ENTRIES:] == ["new", "1"]
