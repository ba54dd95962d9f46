"""The provider contract of seed 003 over a real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.stores import TestStore
from trainboard.errors import InvalidArgumentError, NotFoundError
from trainboard.normaliser.points import (
    Batch,
    BlobSequencePoint,
    DataClass,
    RunState,
    ScalarPoint,
    SeriesMetadata,
    TensorPoint,
)
from trainboard.provider.provider import MAX_POINTS, DataProvider
from trainboard.provider.values import IndexRange, RunTagFilter, StepRange
from trainboard.reader.protos.tensor_pb2 import TensorProto
from trainboard.reader.tail import FileCursor
from trainboard.store.downsample import sample_indices
from trainboard.store.writer import FileWrite

SCALARS = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[TestStore]:
    store = TestStore(tmp_path / "s.sqlite")
    for run, start in (("train", 10.0), ("eval", 5.0)):
        ops = [ScalarPoint(tag=tag, step=s, wall_time=start + s, value=s * 0.25) for s in range(1000) for tag in "ab"]
        tensor = TensorProto(dtype=2, tensor_content=np.arange(6, dtype="<f8").tobytes())
        tensor.tensor_shape.dim.add(size=2)
        tensor.tensor_shape.dim.add(size=3)
        ops.append(TensorPoint(tag="h", step=7, wall_time=start, tensor=tensor.SerializeToString()))
        ops.append(BlobSequencePoint(tag="img", step=3, wall_time=start, blobs=(b"1", b"2", b"\x89PNG")))
        metadata = {
            "a": SCALARS,
            "b": SCALARS,
            "h": SeriesMetadata(plugin_name="histograms", data_class=DataClass.TENSOR),
            "img": SeriesMetadata(plugin_name="images", data_class=DataClass.BLOB_SEQUENCE),
        }
        store.store.write_batch(
            store.experiment_id,
            FileWrite(
                run,
                FileCursor(path=f"/{run}", offset=1, size=1, mtime=0.0, head=b""),
                RunState(start_time=start),
                Batch(operations=ops, metadata=metadata),
                restarted=False,
                previous=None,
            ),
        )
    yield store
    store.close()


@pytest.fixture
def provider(stored: TestStore) -> DataProvider:
    return stored.provider()


@pytest.fixture
def experiment_id(stored: TestStore) -> str:
    return stored.experiment_id


def test_sample_indices_keep_first_and_last_and_are_increasing() -> None:
    for length in range(0, 60):
        for k in range(0, 70):
            indices = list(sample_indices(length, k))
            assert len(indices) == min(k, length)
            assert indices == sorted(set(indices))
            if indices and k >= 2:
                assert indices[0] == 0 and indices[-1] == length - 1
            if indices:
                assert indices[-1] == length - 1


def test_runs_plugins_and_listing(provider: DataProvider, experiment_id: str) -> None:
    # In the logdir's walk order, not in the order they were written to the store.
    assert [(r.run_name, r.start_time) for r in provider.list_runs(experiment_id=experiment_id)] == [
        ("eval", 5.0),
        ("train", 10.0),
    ]
    assert provider.list_plugins(experiment_id=experiment_id) == ["histograms", "images", "scalars"]
    listing = provider.list_scalars(experiment_id=experiment_id, plugin_name="scalars")
    assert set(listing) == {"train", "eval"}
    assert listing["eval"]["a"].max_step == 999 and listing["eval"]["a"].max_wall_time == 1004.0
    assert provider.list_scalars(experiment_id=experiment_id, plugin_name="histograms") == {}


def test_read_scalars_every_point_and_downsampled(provider: DataProvider, experiment_id: str) -> None:
    every = provider.read_scalars(experiment_id=experiment_id, plugin_name="scalars", downsample=None)
    assert len(every["train"]["a"]) == 1000
    assert every["train"]["a"][10].value == 2.5
    sampled = provider.read_scalars(
        experiment_id=experiment_id, plugin_name="scalars", downsample=100, run_tag_filter=RunTagFilter.of(["train"])
    )
    a, b = sampled["train"]["a"], sampled["train"]["b"]
    assert len(a) == 100
    assert a[0].step == 0 and a[-1].step == 999
    assert [d.step for d in a] == [d.step for d in b]
    assert set(sampled) == {"train"}


def test_filters_and_argument_checks(provider: DataProvider, experiment_id: str) -> None:
    only = provider.read_scalars(
        experiment_id=experiment_id,
        plugin_name="scalars",
        downsample=5,
        run_tag_filter=RunTagFilter.of(["eval"], ["b"]),
    )
    assert list(only) == ["eval"] and list(only["eval"]) == ["b"]
    with pytest.raises(TypeError):
        RunTagFilter.of(runs="train")
    with pytest.raises(InvalidArgumentError):
        provider.read_scalars(experiment_id=experiment_id, plugin_name="scalars", downsample=-1)


def test_tensors_and_blobs(provider: DataProvider, experiment_id: str) -> None:
    (datum,) = provider.read_tensors(experiment_id=experiment_id, plugin_name="histograms", downsample=None)["train"][
        "h"
    ]
    assert datum.step == 7
    assert datum.numpy.shape == (2, 3) and datum.numpy[1, 2] == 5.0
    listing = provider.list_blob_sequences(experiment_id=experiment_id, plugin_name="images")
    assert listing["train"]["img"].max_length == 3
    (point,) = provider.read_blob_sequences(experiment_id=experiment_id, plugin_name="images", downsample=10)["train"][
        "img"
    ]
    assert provider.read_blob(experiment_id=experiment_id, blob_key=point.values[2].blob_key) == b"\x89PNG"
    with pytest.raises(InvalidArgumentError):
        provider.read_blob(experiment_id=experiment_id, blob_key="../../etc/passwd")
    with pytest.raises(NotFoundError):
        provider.read_blob(experiment_id=experiment_id, blob_key="0" * 64)


def test_step_ranges_index_ranges_and_the_top_level_listing(provider: DataProvider, experiment_id: str) -> None:
    window = provider.read_scalars(
        experiment_id=experiment_id, plugin_name="scalars", downsample=None, steps=StepRange(first=10, last=19)
    )
    assert [d.step for d in window["eval"]["a"]] == list(range(10, 20))
    latest = provider.read_scalars(
        experiment_id=experiment_id, plugin_name="scalars", downsample=2, steps=StepRange(latest=5)
    )
    assert [d.step for d in latest["train"]["b"]] == [995, 999]
    (point,) = provider.read_blob_sequences(
        experiment_id=experiment_id, plugin_name="images", downsample=None, indices=IndexRange(first=1, last=5)
    )["eval"]["img"]
    assert [provider.read_blob(experiment_id=experiment_id, blob_key=v.blob_key) for v in point.values] == [
        b"2",
        b"\x89PNG",
    ]
    (last,) = provider.read_blob_sequences(
        experiment_id=experiment_id, plugin_name="images", downsample=None, indices=IndexRange(latest=True)
    )["eval"]["img"]
    assert [provider.read_blob(experiment_id=experiment_id, blob_key=v.blob_key) for v in last.values] == [b"\x89PNG"]
    listed = provider.list_series(experiment_id=experiment_id, plugin_name="histograms")
    assert listed["train"]["h"].data_class == DataClass.TENSOR and set(listed) == {"train", "eval"}


def test_a_read_over_the_bound_is_refused_naming_it(stored: TestStore) -> None:
    provider = DataProvider(stored.store, max_points={**MAX_POINTS, DataClass.SCALAR: 3000})
    everything = {"experiment_id": stored.experiment_id, "plugin_name": "scalars", "downsample": None}
    with pytest.raises(InvalidArgumentError, match="4,000 points .* bound of 3,000"):
        provider.read_scalars(**everything)  # type: ignore[arg-type]
    assert len(provider.read_scalars(**{**everything, "downsample": 750})["eval"]) == 2  # type: ignore[arg-type]


def test_blob_keys_belong_to_their_experiment(stored: TestStore, provider: DataProvider) -> None:
    (point,) = provider.read_blob_sequences(experiment_id=stored.experiment_id, plugin_name="images", downsample=None)[
        "train"
    ]["img"]
    other = stored.store.create_experiment("other").id
    with pytest.raises(NotFoundError):
        provider.read_blob(experiment_id=other, blob_key=point.values[2].blob_key)


def test_a_derived_answer_is_kept_until_the_data_changes(stored: TestStore, provider: DataProvider) -> None:
    experiment_id = stored.experiment_id
    builds: list[list[str]] = []

    def run_names() -> list[str]:
        builds.append([run.run_name for run in provider.list_runs(experiment_id=experiment_id)])
        return builds[-1]

    first = provider.derived(experiment_id, "runs", run_names)
    assert provider.derived(experiment_id, "runs", run_names) is first and len(builds) == 1
    stored.store.write_batch(
        experiment_id,
        FileWrite(
            "test",
            FileCursor(path="/test", offset=1, size=1, mtime=0.0, head=b""),
            RunState(start_time=1.0),
            Batch(operations=[ScalarPoint(tag="a", step=0, wall_time=1.0, value=0.5)], metadata={"a": SCALARS}),
            restarted=False,
            previous=None,
        ),
    )
    assert provider.derived(experiment_id, "runs", run_names) == sorted([*first, "test"]) and len(builds) == 2
