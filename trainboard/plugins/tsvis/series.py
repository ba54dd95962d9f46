"""Reading the one series a TS-VIS request names, whichever writer logged it."""

from __future__ import annotations

from typing import Protocol, TypeVar

from trainboard.errors import NotFoundError
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import BlobSequenceDatum, RunTagFilter, ScalarColumns, TensorDatum

T = TypeVar("T")


class Stepped(Protocol):
    @property
    def step(self) -> int: ...


S = TypeVar("S", bound=Stepped)


def _one(found: dict[str, dict[str, T]], run: str, tag: str) -> T:
    try:
        return found[run][tag]
    except KeyError:
        raise NotFoundError(f"no data for run {run!r} and tag {tag!r}") from None


def scalar_columns(provider: DataProvider, experiment_id: str, plugin_name: str, run: str, tag: str) -> ScalarColumns:
    found = provider.read_scalar_columns(
        experiment_id=experiment_id,
        plugin_name=plugin_name,
        downsample=None,
        run_tag_filter=RunTagFilter.of([run], [tag]),
    )
    return _one(found, run, tag)


def tensors(provider: DataProvider, experiment_id: str, plugin_name: str, run: str, tag: str) -> list[TensorDatum]:
    found = provider.read_tensors(
        experiment_id=experiment_id,
        plugin_name=plugin_name,
        downsample=None,
        run_tag_filter=RunTagFilter.of([run], [tag]),
    )
    return _one(found, run, tag)


def blob_sequences(
    provider: DataProvider, experiment_id: str, plugin_name: str, run: str, tag: str
) -> list[BlobSequenceDatum]:
    found = provider.read_blob_sequences(
        experiment_id=experiment_id,
        plugin_name=plugin_name,
        downsample=None,
        run_tag_filter=RunTagFilter.of([run], [tag]),
    )
    return _one(found, run, tag)


def at_step(points: list[S], step: int) -> S:
    """The first point logged at `step`, as TS-VIS picks it."""
    for point in points:
        if point.step == step:
            return point
    raise NotFoundError(f"no data at step {step}")
