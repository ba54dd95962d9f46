"""`Experiment`: one experiment as data frames, every point (no downsampling), read through the provider."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

import numpy as np

from trainboard.api.frames import FrameLibrary, Table, check_backend, frame, labels
from trainboard.api.run_metadata import RunMetadataMethods
from trainboard.api.scalar_groups import GroupQuery, ScalarGroups
from trainboard.api.selection import Names, Steps, chosen, step_range
from trainboard.errors import NotFoundError
from trainboard.normaliser.points import DataClass
from trainboard.plugins.runs_table import Terms, table_query
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunsTable, RunTagFilter, ScalarColumns, SeriesPoints, TensorDatum
from trainboard.reader.logdir import walk_order
from trainboard.store.run_metadata import RunMetadata, RunMetadataKeeper, checked_change

HISTOGRAMS = "histograms"
IMAGES = "images"
TEXT = "text"


def runs_columns(table: RunsTable) -> Table:
    """The runs table's columns: bool where every value is one (`starred`), int64 where every value is an integer,
    float64 (NaN where the run lacks the value) where every value is a number, else objects (text, the lists of
    `labels`, or text and numbers of an hparam of both)."""
    columns: Table = {}
    for index, name in enumerate(table.columns):
        values = [row[index] for row in table.rows]
        present = [value for value in values if value is not None]
        if present and all(type(value) is bool for value in values):
            columns[name] = np.array(values, dtype=np.bool_)
        elif present and len(present) == len(values) and all(type(value) is int for value in present):
            columns[name] = np.array(values, dtype=np.int64)
        elif all(type(value) in (int, float) for value in present):
            columns[name] = np.array([math.nan if value is None else value for value in values], dtype=np.float64)
        else:
            columns[name] = values
    return columns


class Experiment(RunMetadataMethods, ScalarGroups):
    """`ExperimentFrames` (trainboard/api/experiment_frames.py) of one experiment of a provider (a store's, or a
    pinned view's); `close()` calls `on_close` (closing a store opened for it). Runs come in the provider's order
    (the logdir's walk order: a run before the runs in its subdirectories, siblings by name), each run's tags by
    name. Run metadata and saved views are read and written through `keeper` (the store; None: a read-only
    experiment, without them)."""

    def __init__(
        self,
        provider: DataProvider,
        experiment_id: str,
        *,
        name: str,
        location: str,
        backend: str = "pandas",
        on_close: Callable[[], None] | None = None,
        keeper: RunMetadataKeeper | None = None,
    ) -> None:
        self.provider = provider
        self._keeper = keeper
        self.id = experiment_id
        self.name = name
        # Where the data is: the store's location.
        self.location = location
        self.backend = check_backend(backend)
        self._on_close = on_close

    def __repr__(self) -> str:
        return f"<trainboard.Experiment {self.name!r} in {self.location}>"

    def __enter__(self) -> Experiment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._on_close is not None:
            self._on_close()

    # Frames.

    def runs(
        self, filter: str | None = None, sort: Terms = None, columns: Terms = None, *, backend: str | None = None
    ) -> Any:
        return frame(self.runs_table(filter, sort, columns), self._backend(backend))

    def scalars(
        self,
        runs: Names = None,
        tags: Names = None,
        steps: Steps = None,
        *,
        x: str | None = None,
        backend: str | None = None,
    ) -> Any:
        return frame(self.scalars_table(runs, tags, steps, x=x), self._backend(backend))

    def histograms(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None
    ) -> Any:
        return frame(self.histograms_table(runs, tags, steps), self._backend(backend))

    def tensors(
        self,
        runs: Names = None,
        tags: Names = None,
        steps: Steps = None,
        *,
        plugin: str | None = None,
        backend: str | None = None,
    ) -> Any:
        return frame(self.tensors_table(runs, tags, steps, plugin=plugin), self._backend(backend))

    def images(self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None) -> Any:
        return frame(self.images_table(runs, tags, steps), self._backend(backend))

    def text(self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None) -> Any:
        return frame(self.text_table(runs, tags, steps), self._backend(backend))

    def hparams(self, *, backend: str | None = None) -> Any:
        return frame(self.hparams_table(), self._backend(backend))

    # Derived metrics and statistics (docs/python.md).

    def define(self, name: str, expression: str, *, align: str = "exact") -> None:
        self.provider.define(experiment_id=self.id, name=name, expression=expression, align=align)

    def undefine(self, name: str) -> None:
        self.provider.undefine(experiment_id=self.id, name=name)

    def definitions(self) -> list[dict[str, str]]:
        return [
            {"name": found.name, "expression": found.expression, "align": found.align}
            for found in self.provider.definitions(experiment_id=self.id)
        ]

    def compare(self, a: str, b: str, metric: str) -> dict[str, Any]:
        from trainboard.plugins.compare import compare

        return compare(self.provider, self.id, a=a, b=b, metric_text=metric)

    def _groups(self, query: GroupQuery) -> list[dict[str, Any]]:
        from trainboard.plugins import groups

        found = groups.groups(
            self.provider,
            self.id,
            tag=query.tag,
            by=groups.grouping(query.by),
            band=query.band,
            run_filter=query.filter,
            runs=None,
            samples=None,
            align=query.align,
        )
        return cast(list[dict[str, Any]], found["groups"])

    # Tables (columns before they become a frame; the exporter writes them).

    def scalars_table(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, x: str | None = None
    ) -> Table:
        axis = self._x_columns(runs, x)
        return _scalar_columns(list(self._scalars(runs, tags, steps)), axis)

    def scalar_tables(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, x: str | None = None
    ) -> Iterator[Table]:
        """`scalars_table` one series at a time, for a writer that streams."""
        axis = self._x_columns(runs, x)
        return (_scalar_columns([series], axis) for series in self._scalars(runs, tags, steps))

    def histograms_table(self, runs: Names = None, tags: Names = None, steps: Steps = None) -> Table:
        names: list[tuple[str, str]] = []
        counts: list[int] = []
        step_parts, wall_parts, buckets = [], [], []
        for series in self._tensors(HISTOGRAMS, runs, tags, steps):
            points = series.points
            arrays = [point.numpy.reshape(-1, 3).astype(np.float64) for point in points]
            sizes = np.array([len(a) for a in arrays], dtype=np.int64)
            names.append((series.run, series.tag))
            counts.append(int(sizes.sum()))
            step_parts.append(np.repeat(np.array([p.step for p in points], dtype=np.int64), sizes))
            wall_parts.append(np.repeat(np.array([p.wall_time for p in points], dtype=np.float64), sizes))
            buckets.append(np.concatenate(arrays) if arrays else np.zeros((0, 3)))
        table = np.concatenate(buckets) if buckets else np.zeros((0, 3))
        return {
            "run": labels([run for run, _ in names], counts),
            "tag": labels([tag for _, tag in names], counts),
            "step": _joined(step_parts, np.int64),
            "wall_time": _joined(wall_parts, np.float64),
            "left": np.ascontiguousarray(table[:, 0]),
            "right": np.ascontiguousarray(table[:, 1]),
            "count": np.ascontiguousarray(table[:, 2]),
        }

    def tensors_table(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, plugin: str | None = None
    ) -> Table:
        table = _point_columns("plugin", "dtype", "shape", "value")
        for series in self._tensors(plugin, runs, tags, steps):
            for point in series.points:
                array = point.numpy
                _add_point(table, series, point.step, point.wall_time)
                table["plugin"].append(series.metadata.plugin_name)
                table["dtype"].append(str(array.dtype))
                table["shape"].append(tuple(array.shape))
                table["value"].append(array)
        return _labelled(table)

    def text_table(self, runs: Names = None, tags: Names = None, steps: Steps = None) -> Table:
        table = _point_columns("text")
        for series in self._tensors(TEXT, runs, tags, steps):
            for point in series.points:
                array = point.numpy
                strings = np.vectorize(_decoded, otypes=[object])(array) if array.size else array.astype(object)
                _add_point(table, series, point.step, point.wall_time)
                table["text"].append(strings.item() if strings.size == 1 else strings)
        return _labelled(table)

    def images_table(self, runs: Names = None, tags: Names = None, steps: Steps = None) -> Table:
        table = _point_columns("index", "width", "height", "image")
        for series in self.provider.stream_blob_sequences(
            experiment_id=self.id,
            plugin_name=IMAGES,
            run_tag_filter=self._filter(DataClass.BLOB_SEQUENCE, IMAGES, runs, tags),
            steps=step_range(steps),
        ):
            for point in series.points:
                keys = [reference.blob_key for reference in point.values]
                if len(keys) < 2:
                    continue
                width, height = (_number(self.blob(key)) for key in keys[:2])
                for index, key in enumerate(keys[2:]):
                    _add_point(table, series, point.step, point.wall_time)
                    table["index"].append(index)
                    table["width"].append(width)
                    table["height"].append(height)
                    table["image"].append(self.blob(key))
        return _labelled(table)

    def runs_table(self, filter: str | None = None, sort: Terms = None, columns: Terms = None) -> Table:
        """The runs table (`trainboard.plugins.runs_table`), every row, evaluated by the store; without a sort, in
        the provider's run order."""
        query = table_query(filter, sort, columns)
        table = self.provider.runs_table(experiment_id=self.id, query=query)
        if not query.sort:
            table = dataclasses.replace(table, rows=sorted(table.rows, key=lambda row: walk_order(str(row[0]))))
        return runs_columns(table)

    def hparams_table(self) -> Table:
        from trainboard.plugins.hparams.encoding import status_json

        sessions = self._sessions()
        table: Table = {
            "session": [s.name for s in sessions],
            "group": [s.group_name for s in sessions],
            "status": [str(status_json(s.status)) for s in sessions],
            "start_time": np.array([s.start_time_secs for s in sessions], dtype=np.float64),
            "end_time": np.array([s.end_time_secs for s in sessions], dtype=np.float64),
        }
        columns: dict[str, list[Any]] = {}
        for i, session in enumerate(sessions):
            for name, value in sorted(session.hparams.items()):
                columns.setdefault(name, [None] * len(sessions))[i] = value
        metrics: dict[str, np.ndarray] = {}
        for i, session in enumerate(sessions):
            for metric in session.metric_values:
                name = f"{metric.name.group}/{metric.name.tag}" if metric.name.group else metric.name.tag
                metrics.setdefault(name, np.full(len(sessions), math.nan))[i] = metric.value
        table.update({name: values for name, values in columns.items() if name not in table})
        table.update({name: values for name, values in metrics.items() if name not in table})
        return table

    # Names.

    def run_names(self) -> list[str]:
        return [run.run_name for run in self.provider.list_runs(experiment_id=self.id)]

    def tag_names(self, data_class: DataClass | None = None, plugin: str | None = None) -> list[str]:
        """The tags of the experiment's series of this kind (every kind without one), of `plugin` (any without
        one), by name."""
        plugins = self.provider.list_plugins(experiment_id=self.id) if plugin is None else [plugin]
        return sorted(
            {
                tag
                for name in plugins
                for by_tag in self.provider.list_series(experiment_id=self.id, plugin_name=name).values()
                for tag, listed in by_tag.items()
                if data_class is None or listed.data_class == data_class
            }
        )

    def blob(self, key: str) -> bytes:
        """A blob of the experiment's blob sequences; empty for one the blob store lost (the others are read)."""
        try:
            return self.provider.read_blob(experiment_id=self.id, blob_key=key)
        except NotFoundError:
            return b""

    # Run metadata and saved views (trainboard/api/run_metadata.py).

    def _change_run_metadata(self, runs: list[str], change: dict[str, Any]) -> None:
        self._kept().change_run_metadata(self.id, runs, checked_change(**change))

    def _run_metadata(self) -> tuple[list[str], list[RunMetadata]]:
        return self.run_names(), self._kept().run_metadata(self.id)

    def views(self) -> list[dict[str, Any]]:
        return [view.as_json() for view in self._kept().views(self.id)]

    def view(self, key: str) -> dict[str, Any]:
        found = self._kept().view(self.id, key)
        if found is None:
            raise NotFoundError(f"the experiment has no view {key!r}")
        return found.as_json()

    def save_view(self, name: str, state: dict[str, Any] | str) -> dict[str, Any]:
        return self._kept().save_view(self.id, name, state).as_json()

    def rename_view(self, key: str, name: str) -> dict[str, Any]:
        renamed = self._kept().rename_view(self.id, key, name)
        if renamed is None:
            raise NotFoundError(f"the experiment has no view {key!r}")
        return renamed.as_json()

    def delete_view(self, key: str) -> None:
        if not self._kept().delete_view(self.id, key):
            raise NotFoundError(f"the experiment has no view {key!r}")

    def _kept(self) -> RunMetadataKeeper:
        if self._keeper is None:
            raise NotFoundError("this experiment is read only: it has no run metadata or saved views")
        return self._keeper

    # Helpers.

    def _filter(self, data_class: DataClass, plugin: str | None, runs: Names, tags: Names) -> RunTagFilter | None:
        """The series of this kind that `runs` and `tags` select (None: all)."""
        if runs is None and tags is None:
            return None
        return RunTagFilter.of(
            None if runs is None else _names(self.run_names, runs),
            None if tags is None else _names(lambda: self.tag_names(data_class, plugin), tags),
        )

    def _x_columns(self, runs: Names, x: str | None) -> dict[str, ScalarColumns] | None:
        """Every point of the x tag by run, for the `x` column (None: no x asked for)."""
        if x is None:
            return None
        from trainboard.plugins.x_axis import x_columns

        return x_columns(self.provider, self.id, x=x, runs=None if runs is None else _names(self.run_names, runs))

    def _scalars(self, runs: Names, tags: Names, steps: Steps) -> Iterator[SeriesPoints[ScalarColumns]]:
        return self.provider.stream_scalars(
            experiment_id=self.id,
            plugin_name=None,
            run_tag_filter=self._filter(DataClass.SCALAR, None, runs, tags),
            steps=step_range(steps),
        )

    def _tensors(
        self, plugin: str | None, runs: Names, tags: Names, steps: Steps
    ) -> Iterator[SeriesPoints[list[TensorDatum]]]:
        return self.provider.stream_tensors(
            experiment_id=self.id,
            plugin_name=plugin,
            run_tag_filter=self._filter(DataClass.TENSOR, plugin, runs, tags),
            steps=step_range(steps),
        )

    def _sessions(self) -> list[Any]:
        from trainboard.plugins.hparams.experiment import all_starts, full_experiment, metric_names
        from trainboard.plugins.hparams.sessions import sessions

        found = full_experiment(self.provider, self.id, True)
        return sessions(self.provider, self.id, all_starts(self.provider, self.id), metric_names(found))

    def _backend(self, backend: str | None) -> FrameLibrary:
        return self.backend if backend is None else check_backend(backend)


def _names(every: Callable[[], Iterable[str]], wanted: Names) -> list[str]:
    """The names `wanted` selects: a list as it is; of a regular expression, those of `every()` it finds."""
    if isinstance(wanted, str):
        return chosen(every(), wanted)
    return list(wanted or ())


def _scalar_columns(series: list[SeriesPoints[ScalarColumns]], axis: dict[str, ScalarColumns] | None = None) -> Table:
    """The points' columns; with `axis` (the x tag's points by run) an `x` column: the x tag's value at each point's
    step (`trainboard.plugins.x_axis.x_at`), NaN where the run has none."""
    counts = [len(s.points) for s in series]
    table: Table = {
        "run": labels([s.run for s in series], counts),
        "tag": labels([s.tag for s in series], counts),
        "step": _joined([s.points.steps for s in series], np.int64),
        "wall_time": _joined([s.points.wall_times for s in series], np.float64),
        "value": _joined([s.points.values for s in series], np.float64),
    }
    if axis is not None:
        from trainboard.plugins.x_axis import x_at

        xs = [x_at(s.points.steps, axis[s.run]) if s.run in axis else np.full(len(s.points), np.nan) for s in series]
        table["x"] = _joined(xs, np.float64)
    return table


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _point_columns(*names: str) -> dict[str, list[Any]]:
    return {name: [] for name in ("run", "tag", "step", "wall_time", *names)}


def _add_point(table: dict[str, list[Any]], series: SeriesPoints[Any], step: int, wall_time: float) -> None:
    table["run"].append(series.run)
    table["tag"].append(series.tag)
    table["step"].append(step)
    table["wall_time"].append(wall_time)


def _labelled(table: dict[str, list[Any]]) -> Table:
    """Rows gathered as lists, with run and tag as labels and step and wall time as arrays."""
    result: Table = dict(table)
    for name in ("run", "tag"):
        names = table[name]
        result[name] = labels(names, np.ones(len(names), dtype=np.int64))
    result["step"] = np.array(table["step"], dtype=np.int64)
    result["wall_time"] = np.array(table["wall_time"], dtype=np.float64)
    return result


def _decoded(value: Any) -> Any:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _number(blob: bytes) -> int:
    try:
        return int(blob or b"0")
    except ValueError:
        return 0
