"""Reading the one series a request names, on a run written by torch's SummaryWriter: every point of each kind, and a
NotFoundError worded by the caller (or naming the run and the tag) for a run, a tag or a plugin that has none."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from torch.utils import tensorboard as torch_tensorboard

from tests.stores import TestStore
from trainboard.errors import NotFoundError
from trainboard.plugins import histograms, images, scalars
from trainboard.plugins.series import blob_sequences, scalar_columns, tensors
from trainboard.reader.logdir import LogDir

STEPS = 7


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestStore]:
    root = tmp_path_factory.mktemp("series")
    with torch_tensorboard.SummaryWriter(str(root / "logs" / "train")) as writer:
        for step in range(STEPS):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
            writer.add_histogram("weights", np.arange(10.0) + step, step)
            writer.add_image("sample", np.full((3, 4, 5), step / STEPS), step)
    found = TestStore(root / "store.sqlite")
    found.loader(LogDir(str(root / "logs"))).poll()
    yield found
    found.close()


def test_each_kind_of_series_is_read_whole(store: TestStore) -> None:
    provider, experiment = store.provider(), store.experiment_id
    loss = scalar_columns(provider, experiment, scalars.PLUGIN_NAME, "train", "loss")
    assert loss.steps.tolist() == list(range(STEPS))
    assert loss.values.tolist() == pytest.approx([1.0 / (step + 1) for step in range(STEPS)])
    weights = tensors(provider, experiment, histograms.PLUGIN_NAME, "train", "weights")
    assert [datum.step for datum in weights] == list(range(STEPS))
    sample = blob_sequences(provider, experiment, images.PLUGIN_NAME, "train", "sample", downsample=3)
    # Downsampled, keeping the first and the last.
    assert len(sample) == 3 and (sample[0].step, sample[-1].step) == (0, STEPS - 1)


def test_a_series_that_is_not_there_is_not_found(store: TestStore) -> None:
    provider, experiment = store.provider(), store.experiment_id
    with pytest.raises(NotFoundError, match=r"no data for run 'train' and tag 'nope'$"):
        scalar_columns(provider, experiment, scalars.PLUGIN_NAME, "train", "nope")
    with pytest.raises(NotFoundError, match=r"No histogram tag 'weights' for run 'test'$"):
        tensors(
            provider,
            experiment,
            histograms.PLUGIN_NAME,
            "test",
            "weights",
            not_found="No histogram tag 'weights' for run 'test'",
        )
    # The tag is there, but logged by another plugin.
    with pytest.raises(NotFoundError):
        blob_sequences(provider, experiment, images.PLUGIN_NAME, "train", "weights")
