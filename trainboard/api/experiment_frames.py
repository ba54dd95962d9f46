"""`ExperimentFrames`: what `trainboard.open(...)` returns, from a store (`Experiment`) or a server
(`RemoteExperiment`): the same methods, giving the same data frames."""

from __future__ import annotations

from typing import Any, Protocol, Self

from trainboard.api.selection import Names, Steps
from trainboard.plugins.runs_table import Terms


class ExperimentFrames(Protocol):
    """Each method returns a new frame: pandas by default, polars with `backend="polars"`, a pyarrow table with
    `backend="arrow"`; `close()` (or a `with` block) lets go of the store or connection."""

    id: str
    name: str

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...

    def close(self) -> None: ...

    def runs(
        self, filter: str | None = None, sort: Terms = None, columns: Terms = None, *, backend: str | None = None
    ) -> Any:
        """The runs table: one row per run the filter keeps (every run without one), sorted by `sort` (by name
        without one), with `run` and the `columns` asked for, each named as the run filter language writes it
        (`trainboard.store.run_filter`): `last(val/acc)`, `max(val/acc)`, `step_of_max(val/acc)`, an hparam,
        `status`, `start_time`, `last_step`, `duration`, ... Without columns: `status`, `start_time`, `last_step`,
        each hparam by name and `last(<tag>)` of each scalar tag. NaN (None for text) where the run lacks a value.
        Everything is evaluated by the store, over every point (trainboard.store.summaries)."""

    def hparams(self, *, backend: str | None = None) -> Any:
        """The HParams dashboard's table: one row per session (session, group, status, start_time, end_time), its
        hparams by name and its metrics' last values by metric name (`group/tag` for a metric of a sub-run)."""

    def scalars(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None
    ) -> Any:
        """Every scalar point: run, tag, step, wall_time, value; points as logged."""

    def histograms(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None
    ) -> Any:
        """One row per histogram bucket: run, tag, step, wall_time, left, right, count."""

    def tensors(
        self,
        runs: Names = None,
        tags: Names = None,
        steps: Steps = None,
        *,
        plugin: str | None = None,
        backend: str | None = None,
    ) -> Any:
        """Every tensor point of any plugin (or of `plugin`): run, tag, plugin, step, wall_time, dtype, shape, value
        (a numpy array in pandas; a flat list in polars and arrow, `shape` giving its shape)."""

    def images(self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None) -> Any:
        """One row per image: run, tag, step, wall_time, index (within its step), width, height, image (the encoded
        bytes, PNG as the writers log them)."""

    def text(self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None) -> Any:
        """Every text point: run, tag, step, wall_time, text (a string; an array of strings for a text table)."""
