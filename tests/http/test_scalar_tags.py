"""`/data/trainboard/scalar_tags` in process: the scalars' tags in short say exactly what TensorBoard's
`/data/plugin/scalars/tags` says (every run's tags, display names and descriptions), each tag once with its runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.loader import Loader
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record
from trainboard.settings import Settings
from trainboard.store.opening import open_store

# Per run: its scalar tags, each with a display name and a description (markdown).
RUNS: dict[str, dict[str, tuple[str, str]]] = {
    "a": {"loss": ("loss", ""), "acc": ("Accuracy", "top-*1*")},
    "b": {"loss": ("loss", "")},
    "c/d": {"loss": ("loss", ""), "acc": ("acc", "")},
    "e": {"loss": ("loss", ""), "acc": ("Accuracy", "top-*1*"), "lr": ("lr", "")},
}


def _write(root: Path) -> None:
    for run, tags in RUNS.items():
        directory = root / run
        directory.mkdir(parents=True)
        with (directory / "events.out.tfevents.1.host").open("wb") as stream:
            for step in range(3):
                event = Event(wall_time=1.0 + step, step=step)
                for tag, (display_name, description) in tags.items():
                    value = event.summary.value.add(tag=tag, simple_value=0.5 * step)
                    value.metadata.plugin_data.plugin_name = "scalars"
                    value.metadata.display_name = display_name
                    value.metadata.summary_description = description
                write_record(stream, event.SerializeToString())


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    _write(tmp_path / "logdir")
    store = open_store(str(tmp_path / "store.sqlite"))
    experiment_id = store.create_experiment("tags").id
    Loader(LogDir(str(tmp_path / "logdir")), store, experiment_id, workers=0).poll()
    provider = DataProvider(store)
    experiments = Experiments(provider, store, progress={}, elsewhere=IngestProgress.finished(), default=experiment_id)
    try:
        with TestClient(create_app(experiments, Settings()), base_url="http://127.0.0.1") as served:
            yield served
    finally:
        store.close()


def _expanded(short: dict[str, Any]) -> dict[str, dict[str, dict[str, str]]]:
    """The short answer as TensorBoard's run -> tag listing."""
    runs: list[str] = short["runs"]
    listing: dict[str, dict[str, dict[str, str]]] = {run: {} for run in runs}
    for tag, variants in short["tags"].items():
        for variant in variants:
            for index in range(len(runs)) if variant["runs"] is None else variant["runs"]:
                listing[runs[index]][tag] = {
                    "displayName": variant["displayName"],
                    "description": variant["description"],
                }
    return listing


def test_says_what_tensorboards_listing_says(client: TestClient) -> None:
    tensorboard = client.get("/data/plugin/scalars/tags").raise_for_status().json()
    short = client.get("/data/trainboard/scalar_tags").raise_for_status().json()
    assert _expanded(short) == tensorboard
    assert list(short["runs"]) == list(tensorboard)  # the same order of runs
    assert tensorboard["a"]["acc"]["description"] == "<p>top-<em>1</em></p>"


def test_each_tag_once_with_its_runs(client: TestClient) -> None:
    short = client.get("/data/trainboard/scalar_tags").raise_for_status().json()
    runs = short["runs"]
    assert short["tags"]["loss"] == [{"displayName": "loss", "description": "", "runs": None}]
    by_name = {variant["displayName"]: sorted(runs[i] for i in variant["runs"]) for variant in short["tags"]["acc"]}
    assert by_name == {"Accuracy": ["a", "e"], "acc": ["c/d"]}
    assert [runs[i] for i in short["tags"]["lr"][0]["runs"]] == ["e"]
