"""TS-VIS's exception views of a logged tensor (TS-VIS's add_exception records, and TensorBoard tensor summaries of
no plugin): box statistics over the steps, and per step the heat map, the histogram and the outliers."""

from __future__ import annotations

from typing import Any

import numpy as np

from trainboard.analysis import exceptions
from trainboard.plugins.series import tensors
from trainboard.plugins.tsvis.series import at_step
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import TensorDatum
from trainboard.reader.tsvis import EXCEPTIONS_PLUGIN

# TensorBoard summaries of a tensor that no plugin claims.
GENERIC_TENSORS_PLUGIN = ""


def _points(provider: DataProvider, experiment_id: str, run: str, tag: str) -> list[TensorDatum]:
    found = provider.list_tensors(experiment_id=experiment_id, plugin_name=EXCEPTIONS_PLUGIN).get(run, {})
    plugin = EXCEPTIONS_PLUGIN if tag in found else GENERIC_TENSORS_PLUGIN
    return tensors(provider, experiment_id, plugin, run, tag)


def _at(provider: DataProvider, experiment_id: str, run: str, tag: str, step: int) -> np.ndarray:
    return at_step(_points(provider, experiment_id, run, tag), step).numpy


def boxes(provider: DataProvider, experiment_id: str, run: str, tag: str) -> dict[str, Any]:
    return exceptions.box_series([(datum.step, datum.numpy) for datum in _points(provider, experiment_id, run, tag)])


def heat_map(provider: DataProvider, experiment_id: str, run: str, tag: str, step: int) -> list[Any]:
    return exceptions.heat_map(_at(provider, experiment_id, run, tag, step))


def histogram(provider: DataProvider, experiment_id: str, run: str, tag: str, step: int) -> list[Any]:
    return exceptions.histogram(_at(provider, experiment_id, run, tag, step))


def outliers(
    provider: DataProvider, experiment_id: str, run: str, tag: str, step: int, up: float, down: float
) -> list[Any]:
    return exceptions.outliers(_at(provider, experiment_id, run, tag, step), up, down)
