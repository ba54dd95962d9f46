"""Files in TS-VIS's dialect, written by TS-VIS's own SummaryWriter, read as TS-VIS's own reader reads them; beside
them in the same run, a tensorboardX file is read in TensorBoard's dialect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tensorboardX import SummaryWriter

from tests.stores import TestStore
from tests.tsvis.venv import run_in_tsvis
from trainboard.provider.provider import DataProvider
from trainboard.reader.dialect import Dialect, file_dialect
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos import tsvis_pb2

WRITE_EVERY_KIND = Path(__file__).resolve().parents[1] / "tsvis" / "write_every_kind.py"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], DataProvider, str]:
    """What TS-VIS reads back from its files, and a provider over trainboard's store of the same logdir."""
    logdir = tmp_path_factory.mktemp("tsvis") / "logs"
    expected: list[dict[str, Any]] = run_in_tsvis(WRITE_EVERY_KIND, str(logdir))
    with SummaryWriter(str(logdir / "run")) as writer:
        writer.add_scalar("tbx_loss", 0.25, 7)
    store = TestStore(logdir.parent / "store.sqlite")
    store.loader(LogDir(str(logdir))).poll()
    return expected, store.provider(), store.experiment_id


def of_type(expected: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [item for item in expected if item["type"] == kind]


def as_array(tensor: dict[str, Any]) -> np.ndarray:
    return np.array(tensor["values"], dtype=tensor["dtype"]).reshape(tensor["shape"])


def test_file_names_tell_the_dialect() -> None:
    assert file_dialect("a/events.out.tfevents.1700000000.host.1.0") is Dialect.TENSORBOARD
    assert file_dialect("s3://b/run/events.out.261122-210616.vm") is Dialect.TSVIS
    assert file_dialect("run/hparams.events.out.261122-210616.vm") is Dialect.TSVIS
    assert file_dialect("run/projector.events.out.x") is Dialect.TSVIS
    assert file_dialect("run/structure_graph.json") is None
    assert file_dialect("run/old.events.out.x") is None
    assert file_dialect("run/notes.txt") is None


def test_scalars_of_both_dialects(written: tuple[list[dict[str, Any]], DataProvider, str]) -> None:
    expected, provider, experiment_id = written
    found = read(provider.read_scalars, experiment_id, "scalars")
    assert [(datum.step, datum.value) for datum in found["loss"]] == [
        (item["step"], pytest.approx(item["value"], rel=1e-7)) for item in of_type(expected, "scalar")
    ]
    assert [(datum.step, datum.value) for datum in found["tbx_loss"]] == [(7, 0.25)]


def test_text_histograms_images_and_audio(written: tuple[list[dict[str, Any]], DataProvider, str]) -> None:
    expected, provider, experiment_id = written
    texts = read(provider.read_tensors, experiment_id, "text")["notes"]
    assert [(datum.step, datum.numpy.reshape(-1)[0].decode()) for datum in texts] == [
        (item["step"], item["text"]) for item in of_type(expected, "text")
    ]
    histograms = read(provider.read_tensors, experiment_id, "histograms")["weights"]
    assert [datum.step for datum in histograms] == [item["step"] for item in of_type(expected, "hist")]
    assert all(datum.numpy.shape[1] == 3 and datum.numpy[:, 2].sum() == 1000 for datum in histograms)
    images = read(provider.read_blob_sequences, experiment_id, "images")["picture"]
    assert [datum.step for datum in images] == [item["step"] for item in of_type(expected, "image")]
    (audio,) = read(provider.read_blob_sequences, experiment_id, "audio")["sound"]
    assert provider.read_blob(experiment_id=experiment_id, blob_key=audio.values[0].blob_key).startswith(b"RIFF")


def test_exceptions_are_tensors(written: tuple[list[dict[str, Any]], DataProvider, str]) -> None:
    expected, provider, experiment_id = written
    found = read(provider.read_tensors, experiment_id, "exceptions")
    for item in of_type(expected, "exception"):
        (datum,) = [datum for datum in found[item["tag"]] if datum.step == item["step"]]
        wanted = as_array(item["tensor"])
        assert datum.numpy.dtype == wanted.dtype
        np.testing.assert_array_equal(datum.numpy, wanted)


def test_embeddings_keep_values_and_labels(written: tuple[list[dict[str, Any]], DataProvider, str]) -> None:
    expected, provider, experiment_id = written
    items = [item for item in of_type(expected, "embedding") if item["tag"] == "features"]
    points = read(provider.read_tensors, experiment_id, "tsvis_embeddings")["features"]
    assert [datum.step for datum in points] == [item["step"] for item in items] == [4, 9]
    for datum, item in zip(points, items, strict=True):
        embedding = tsvis_pb2.Projector.FromString(datum.numpy.reshape(-1)[0]).embedding
        for stored, wanted in ((embedding.value, item["tensor"]), (embedding.label, item["label"])):
            shape = [dim.size for dim in stored.tensor_shape.dim]
            array = np.frombuffer(stored.tensor_content, dtype=stored.dtype).reshape(shape)
            np.testing.assert_array_equal(array, as_array(wanted))


def read(method: Any, experiment_id: str, plugin_name: str) -> Any:
    """Every point of the plugin's series in the run named "run"."""
    return method(experiment_id=experiment_id, plugin_name=plugin_name, downsample=None)["run"]
