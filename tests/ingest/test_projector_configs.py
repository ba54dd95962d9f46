"""Projector configs and the files they name go into the store: read again when the config changes, the previous
point replaced; configs in a run's plugin assets and at a root without event files belong to their runs as
TensorBoard reads them; a path leaving the config's directory is never read into the store."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from tests.stores import TestStore
from trainboard.normaliser.projector import PROJECTOR_FILES_PLUGIN
from trainboard.plugins import projector
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record

EMBEDDING = 'embeddings {{\n  tensor_name: "{name}"\n  tensor_path: "{tensor}"\n  metadata_path: "{metadata}"\n}}\n'


def write_events(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "events.out.tfevents.1.host").open("wb") as stream:
        write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())


def write_embedding(directory: Path, name: str, rows: int, *, tensor: str = "", metadata: str = "") -> str:
    """A tensor and metadata file in `directory/name/`, and the config entry naming them (or the paths given)."""
    (directory / name).mkdir(parents=True)
    vectors = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)
    (directory / name / "tensors.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in vectors.tolist()))
    (directory / name / "metadata.tsv").write_text("".join(f"{name} {i}\n" for i in range(rows)))
    return EMBEDDING.format(
        name=name, tensor=tensor or f"{name}/tensors.tsv", metadata=metadata or f"{name}/metadata.tsv"
    )


def served(store: TestStore) -> dict[str, projector.RunConfig]:
    return projector.configs(store.provider(), store.experiment_id)


def test_a_changed_config_is_read_again_and_replaces_the_previous_one(tmp_path: Path) -> None:
    logdir, run = tmp_path / "logs", tmp_path / "logs" / "run"
    write_events(run)
    first = write_embedding(run, "a", 3)
    (run / "projector_config.pbtxt").write_text(first)
    store = TestStore(tmp_path / "store.sqlite")
    loader = store.loader(LogDir(str(logdir)))
    loader.poll()
    (config,) = served(store).values()
    assert [(e.tensor_name, list(e.tensor_shape)) for e in config.config.embeddings] == [("a", [3, 2])]

    (run / "projector_config.pbtxt").write_text(first + write_embedding(run, "b", 5))
    loader.poll()
    (config,) = served(store).values()
    assert [(e.tensor_name, list(e.tensor_shape)) for e in config.config.embeddings] == [("a", [3, 2]), ("b", [5, 2])]
    b = projector.embedding(config, "b")
    assert b is not None
    tensor = projector.read_tensor(store.provider(), store.experiment_id, config, b)
    assert tensor.shape == (5, 2)
    data = projector.read_file(store.provider(), store.experiment_id, config, b.metadata_path)
    assert projector.metadata_text(data, 2) == "b 0\nb 1\n"
    (series,) = store.series(runs=["run"])
    assert (series.metadata.plugin_name, series.point_count) == (PROJECTOR_FILES_PLUGIN, 1)
    assert len(store.blob_sequences(series.id)) == 1


def test_assets_and_root_configs_belong_to_their_runs_in_tensorboards_order(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    (logdir / "projector_config.pbtxt").write_text(write_embedding(logdir, "root", 2))
    for run in ("b", "a"):
        write_events(logdir / run)
    assets = logdir / "a" / "plugins" / "projector"
    assets.mkdir(parents=True)
    (assets / "projector_config.pbtxt").write_text(write_embedding(assets, "in_assets", 4))
    (logdir / "b" / "projector_config.pbtxt").write_text(write_embedding(logdir / "b", "beside", 1))
    store = TestStore(tmp_path / "store.sqlite")
    store.loader(LogDir(str(logdir)), workers=2).poll()
    found = served(store)
    # Runs' own configs, then configs in assets, then the root without event files.
    assert list(found) == ["b", "a", "."]
    assert [e.tensor_name for e in found["a"].config.embeddings] == ["in_assets"]
    assert [e.tensor_name for e in found["."].config.embeddings] == ["root"]


def test_paths_outside_the_config_directory_never_reach_the_store(tmp_path: Path) -> None:
    secret = tmp_path / "secret.tsv"
    secret.write_text("1\t2\n3\t4\n")
    logdir, run = tmp_path / "logs", tmp_path / "logs" / "run"
    write_events(run)
    os.symlink(tmp_path, run / "link")
    config = write_embedding(run, "good", 2)
    for name, path in (("escape", "../../secret.tsv"), ("absolute", str(secret)), ("linked", "link/secret.tsv")):
        config += EMBEDDING.format(name=name, tensor=path, metadata=path)
    (run / "projector_config.pbtxt").write_text(config)
    store = TestStore(tmp_path / "store.sqlite")
    store.loader(LogDir(str(logdir))).poll()
    (series,) = store.series(runs=["run"])
    (point,) = store.blob_sequences(series.id)
    blobs = [store.blob(key) for key in point.blob_keys]
    assert not any(blob is not None and b"3\t4" in blob for blob in blobs)
    index = json.loads(blobs[-1] or b"")
    assert {name for name, entry in index["files"].items() if entry["path"] is None} == {
        "../../secret.tsv",
        str(secret),
        "link/secret.tsv",
    }
    assert len(blobs) == 2 + 2  # config, the good tensor and metadata, index
