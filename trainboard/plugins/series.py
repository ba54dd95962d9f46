"""Reading the one series a request names (a run and a tag of a plugin): its points, or a `NotFoundError`.

The error says `not_found` when given: the dashboards that answer as TensorBoard does word it as TensorBoard does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from trainboard.errors import NotFoundError
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import BlobSequenceDatum, RunTagFilter, ScalarColumns, TensorDatum

T = TypeVar("T")


def scalar_columns(
    provider: DataProvider,
    experiment_id: str,
    plugin_name: str,
    run: str,
    tag: str,
    *,
    downsample: int | None = None,
    not_found: str | None = None,
) -> ScalarColumns:
    found = provider.read_scalar_columns(
        experiment_id=experiment_id,
        plugin_name=plugin_name,
        downsample=downsample,
        run_tag_filter=RunTagFilter.of([run], [tag]),
    )
    return _one(found, run, tag, not_found)


def tensors(
    provider: DataProvider,
    experiment_id: str,
    plugin_name: str,
    run: str,
    tag: str,
    *,
    downsample: int | None = None,
    not_found: str | None = None,
) -> list[TensorDatum]:
    found = provider.read_tensors(
        experiment_id=experiment_id,
        plugin_name=plugin_name,
        downsample=downsample,
        run_tag_filter=RunTagFilter.of([run], [tag]),
    )
    return _one(found, run, tag, not_found)


def blob_sequences(
    provider: DataProvider,
    experiment_id: str,
    plugin_name: str,
    run: str,
    tag: str,
    *,
    downsample: int | None = None,
    not_found: str | None = None,
) -> list[BlobSequenceDatum]:
    found = provider.read_blob_sequences(
        experiment_id=experiment_id,
        plugin_name=plugin_name,
        downsample=downsample,
        run_tag_filter=RunTagFilter.of([run], [tag]),
    )
    return _one(found, run, tag, not_found)


def _one(found: Mapping[str, Mapping[str, T]], run: str, tag: str, not_found: str | None) -> T:
    series = found.get(run, {}).get(tag)
    if series is None:
        raise NotFoundError(not_found or f"no data for run {run!r} and tag {tag!r}")
    return series
