"""`ExperimentFrames`: what `trainboard.open(...)` returns, from a store (`Experiment`) or a server
(`RemoteExperiment`): the same methods, giving the same data frames."""

from __future__ import annotations

from typing import Any, Protocol, Self

from trainboard.api.scalar_groups import ScalarGroups
from trainboard.api.selection import Names, Steps
from trainboard.plugins.runs_table import Terms


class ExperimentFrames(ScalarGroups, Protocol):
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
        self,
        runs: Names = None,
        tags: Names = None,
        steps: Steps = None,
        *,
        x: str | None = None,
        backend: str | None = None,
    ) -> Any:
        """Every scalar point: run, tag, step, wall_time, value; points as logged. With `x` (a scalar tag or derived
        metric) an `x` column too: that tag's last value at or before each point's step in the point's run (NaN
        before its first point, or in a run without it), as the charts' x axis; an `InvalidArgumentError` where no
        run has it."""

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

    # Run metadata and saved views (trainboard/api/run_metadata.py): errors are trainboard.errors' InvalidArgumentError
    # (a value past its bound), NotFoundError (a run or view the experiment does not have) and ConflictError.

    def run_metadata(self, *, backend: str | None = None) -> Any:
        """One row per run, in walk order: run, display_name, notes (markdown), labels (a list), starred, color
        ("#rrggbb", None where the run has none)."""

    def set_notes(self, run: str, text: str) -> None: ...

    def set_display_name(self, run: str, name: str) -> None: ...

    def add_label(self, run: str, label: str) -> None: ...

    def remove_label(self, run: str, label: str) -> None: ...

    def star(self, run: str, starred: bool = True) -> None: ...

    def set_color(self, run: str, color: str | None) -> None:
        """`"#rrggbb"`, or None for the web UI's own colour of the run."""

    def views(self) -> list[dict[str, Any]]:
        """The saved views, by name: id, name, created, updated."""

    def view(self, key: str) -> dict[str, Any]:
        """The view of this id or name, with its `state`."""

    def save_view(self, name: str, state: dict[str, Any] | str) -> dict[str, Any]:
        """Save the web UI's state (a JSON object) as the view `name`, replacing that view's state if it exists."""

    def rename_view(self, key: str, name: str) -> dict[str, Any]: ...

    def delete_view(self, key: str) -> None: ...

    def define(self, name: str, expression: str, *, align: str = "exact") -> None:
        """Define a derived metric (or replace the one of that name): a scalar tag, from then on, of every run that
        has what the expression needs; `exp.define("gap", "train/loss - val/loss")`. The expression language and
        `align` ("exact" or "asof") are in docs/derived-metrics.md."""

    def undefine(self, name: str) -> None:
        """Remove a derived metric."""

    def definitions(self) -> list[dict[str, str]]:
        """The derived metrics: name, expression and align of each, by name."""

    def compare(self, a: str, b: str, metric: str) -> dict[str, Any]:
        """The runs filter `a` keeps against those `b` keeps, on a summary metric (`"max(val/acc)"`): both means with
        their 95 % intervals, the difference with its interval, Welch's t-test p-value, Cohen's d, n per side and
        warnings (docs/derived-metrics.md)."""
