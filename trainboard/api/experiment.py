"""`Experiment`: one experiment of a store as data frames, every point (no downsampling)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from trainboard.api.frames import Backend, Table, check_backend, frame, labels
from trainboard.api.selection import Names, Steps, chosen, step_range
from trainboard.normaliser.points import DataClass
from trainboard.reader.tensors import to_ndarray
from trainboard.store.reader import StoreReader
from trainboard.store.values import ExperimentRow, SeriesRow, StepRange

HISTOGRAMS = "histograms"
IMAGES = "images"
TEXT = "text"


class Experiment:
    """Reads an open store (or any store reader: a pinned view, a server's); `close()` (or a `with` block) closes
    it. Each method returns a new frame: pandas by default, polars with `backend="polars"`, a pyarrow table with
    `backend="arrow"`."""

    def __init__(self, store: StoreReader, row: ExperimentRow, *, backend: str = "pandas") -> None:
        self.store = store
        self.id = row.id
        self.name = row.name
        self.backend = check_backend(backend)

    def __repr__(self) -> str:
        return f"<trainboard.Experiment {self.name!r} in {getattr(self.store, 'location', 'a store')}>"

    def __enter__(self) -> Experiment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        close = getattr(self.store, "close", None)
        if close is not None:
            close()

    # Frames.

    def runs(self, *, backend: str | None = None) -> Any:
        """One row per run: run, start_time, its hparams (by name) and the last value of each scalar tag
        (`final/<tag>`, NaN where the run has no such tag)."""
        return frame(self.runs_table(), self._backend(backend))

    def scalars(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None
    ) -> Any:
        """Every scalar point: run, tag, step, wall_time, value; runs and tags in name order, points as logged."""
        return frame(self.scalars_table(runs, tags, steps), self._backend(backend))

    def histograms(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None
    ) -> Any:
        """One row per histogram bucket: run, tag, step, wall_time, left, right, count."""
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
        """Every tensor point of any plugin (or of `plugin`): run, tag, plugin, step, wall_time, dtype, shape, value
        (a numpy array in pandas; a flat list in polars and arrow, `shape` giving its shape)."""
        return frame(self.tensors_table(runs, tags, steps, plugin=plugin), self._backend(backend))

    def images(self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None) -> Any:
        """One row per image: run, tag, step, wall_time, index (within its step), width, height, image (the encoded
        bytes, PNG as the writers log them)."""
        return frame(self.images_table(runs, tags, steps), self._backend(backend))

    def text(self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None) -> Any:
        """Every text point: run, tag, step, wall_time, text (a string; an array of strings for a text table)."""
        return frame(self.text_table(runs, tags, steps), self._backend(backend))

    def hparams(self, *, backend: str | None = None) -> Any:
        """The HParams dashboard's table: one row per session (session, group, status, start_time, end_time), its
        hparams by name and its metrics' last values by metric name (`group/tag` for a metric of a sub-run)."""
        return frame(self.hparams_table(), self._backend(backend))

    # Tables (columns before they become a frame; the exporter writes them).

    def scalars_table(self, runs: Names = None, tags: Names = None, steps: Steps = None) -> Table:
        return self._scalars_of(self.series(DataClass.SCALAR, None, runs, tags), steps)

    def scalar_tables(self, runs: Names = None, tags: Names = None, steps: Steps = None) -> Iterator[Table]:
        """`scalars_table` one series at a time, for a writer that streams."""
        for row in self.series(DataClass.SCALAR, None, runs, tags):
            yield self._scalars_of([row], steps)

    def _scalars_of(self, rows: list[SeriesRow], steps: Steps) -> Table:
        wanted = step_range(steps)
        columns = [self.store.scalars(self.id, row.id, steps=wanted) for row in rows]
        counts = [len(c) for c in columns]
        return {
            "run": labels([row.run for row in rows], counts),
            "tag": labels([row.tag for row in rows], counts),
            "step": _joined([c.steps for c in columns], np.int64),
            "wall_time": _joined([c.wall_times for c in columns], np.float64),
            "value": _joined([c.values for c in columns], np.float64),
        }

    def histograms_table(self, runs: Names = None, tags: Names = None, steps: Steps = None) -> Table:
        rows = self.series(DataClass.TENSOR, HISTOGRAMS, runs, tags)
        names: list[tuple[str, str]] = []
        counts: list[int] = []
        step_parts, wall_parts, buckets = [], [], []
        for row, points in self._tensor_points(rows, steps):
            arrays = [to_ndarray(point.tensor).reshape(-1, 3).astype(np.float64) for point in points]
            sizes = np.array([len(a) for a in arrays], dtype=np.int64)
            names.append((row.run, row.tag))
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
        rows = self.series(DataClass.TENSOR, plugin, runs, tags)
        table = _point_columns("plugin", "dtype", "shape", "value")
        for row, points in self._tensor_points(rows, steps):
            for point in points:
                array = to_ndarray(point.tensor)
                _add_point(table, row, point.step, point.wall_time)
                table["plugin"].append(row.metadata.plugin_name)
                table["dtype"].append(str(array.dtype))
                table["shape"].append(tuple(array.shape))
                table["value"].append(array)
        return _labelled(table)

    def text_table(self, runs: Names = None, tags: Names = None, steps: Steps = None) -> Table:
        rows = self.series(DataClass.TENSOR, TEXT, runs, tags)
        table = _point_columns("text")
        for row, points in self._tensor_points(rows, steps):
            for point in points:
                array = to_ndarray(point.tensor)
                strings = np.vectorize(_decoded, otypes=[object])(array) if array.size else array.astype(object)
                _add_point(table, row, point.step, point.wall_time)
                table["text"].append(strings.item() if strings.size == 1 else strings)
        return _labelled(table)

    def images_table(self, runs: Names = None, tags: Names = None, steps: Steps = None) -> Table:
        rows = self.series(DataClass.BLOB_SEQUENCE, IMAGES, runs, tags)
        table = _point_columns("index", "width", "height", "image")
        wanted = step_range(steps)
        for row in rows:
            for point in self.store.blob_sequences(self.id, row.id, steps=wanted):
                keys = point.blob_keys
                if len(keys) < 2:
                    continue
                width, height = (_number(self.store.blob(key)) for key in keys[:2])
                for index, key in enumerate(keys[2:]):
                    _add_point(table, row, point.step, point.wall_time)
                    table["index"].append(index)
                    table["width"].append(width)
                    table["height"].append(height)
                    table["image"].append(self.store.blob(key) or b"")
        return _labelled(table)

    def runs_table(self) -> Table:
        """By run name, as the other frames (the store's order is the order ingest met the runs in)."""
        runs = sorted(self.store.runs(self.id), key=lambda run: run.name)
        table: Table = {
            "run": [run.name for run in runs],
            "start_time": np.array([math.nan if r.start_time is None else r.start_time for r in runs]),
        }
        position = {run.name: i for i, run in enumerate(runs)}
        hparams: dict[str, list[Any]] = {}
        for session in self._sessions():
            if session.name not in position:
                continue
            for name, value in sorted(session.hparams.items()):
                column = hparams.setdefault(name, [None] * len(runs))
                column[position[session.name]] = value
        table.update({name: values for name, values in hparams.items() if name not in table})
        rows = self.series(DataClass.SCALAR, None, None, None)
        lasts = self.store.last_scalars(self.id, [row.id for row in rows])
        finals: dict[str, np.ndarray] = {}
        for row in rows:
            last = lasts.get(row.id)
            if last is not None and len(last) and row.run in position:
                final = finals.setdefault(f"final/{row.tag}", np.full(len(runs), math.nan))
                final[position[row.run]] = last.values[-1]
        table.update(sorted(finals.items()))
        return table

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

    # Helpers.

    def series(self, data_class: DataClass, plugin: str | None, runs: Names, tags: Names) -> list[SeriesRow]:
        """The experiment's series of this kind that `runs` and `tags` select, by run then tag."""
        rows = self.store.series(self.id, plugin_name=plugin, data_class=data_class)
        run_names = set(chosen(sorted({row.run for row in rows}), runs))
        tag_names = set(chosen(sorted({row.tag for row in rows}), tags))
        return sorted(
            (row for row in rows if row.run in run_names and row.tag in tag_names), key=lambda r: (r.run, r.tag)
        )

    def _tensor_points(self, rows: list[SeriesRow], steps: Steps) -> Iterator[tuple[SeriesRow, list[Any]]]:
        wanted: StepRange = step_range(steps)
        for row in rows:
            yield row, self.store.tensors(self.id, row.id, steps=wanted)

    def _sessions(self) -> list[Any]:
        from trainboard.plugins.hparams.experiment import all_starts, full_experiment, metric_names
        from trainboard.plugins.hparams.sessions import sessions
        from trainboard.provider.provider import DataProvider

        provider = DataProvider(self.store)
        found = full_experiment(provider, self.id, True)
        return sessions(provider, self.id, all_starts(provider, self.id), metric_names(found))

    def _backend(self, backend: str | None) -> Backend:
        return self.backend if backend is None else check_backend(backend)


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _point_columns(*names: str) -> dict[str, list[Any]]:
    return {name: [] for name in ("run", "tag", "step", "wall_time", *names)}


def _add_point(table: dict[str, list[Any]], row: SeriesRow, step: int, wall_time: float) -> None:
    table["run"].append(row.run)
    table["tag"].append(row.tag)
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


def _number(blob: bytes | None) -> int:
    try:
        return int(blob or b"0")
    except ValueError:
        return 0
