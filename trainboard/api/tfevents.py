"""`trainboard export --format tfevents`: an experiment written back as TensorBoard event files, one directory per
run, each series in the summary form TensorBoard's own writers use, so that TensorBoard reads the same data.

- scalars: a float64 scalar tensor under the series' metadata (plugin "scalars");
- tensors (histograms, text, PR curves, hparams, custom scalars, meshes, ...): the tensor as it was logged;
- blob sequences: a string tensor of the blobs (audio as [clips, 2], clip and an empty label, as TensorBoard's
  audio summaries), except graphs, which go back into the events TensorBoard reads them from (graph_def,
  tagged_run_metadata, meta_graph_def).

Points are written series after series in the store's order, under a version 2 file, so that TensorBoard purges
nothing; each run's first event carries the run's start time. What is not in the store is not exported: the
projector's checkpoint and TSV files and TS-VIS's structure graph files stay in the logdir.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from trainboard.api.experiment import Experiment
from trainboard.normaliser.normalise import (
    GRAPHS_PLUGIN,
    META_GRAPH_PLUGIN,
    META_GRAPH_TAG,
    PLUGIN_DATA_CLASSES,
    RUN_GRAPH_TAG,
    TAGGED_RUN_METADATA_PLUGIN,
)
from trainboard.normaliser.points import DataClass, SeriesMetadata
from trainboard.provider.values import RunTagFilter
from trainboard.reader.protos.event_pb2 import Event, TaggedRunMetadata
from trainboard.reader.protos.summary_pb2 import Summary, SummaryMetadata
from trainboard.reader.protos.tensor_pb2 import DataType, TensorProto
from trainboard.reader.records import write_record

EVENT_FILE = "events.out.tfevents.{start:010d}.trainboard-export"
AUDIO_PLUGIN = "audio"


@dataclass(frozen=True, slots=True)
class _Series:
    run: str
    tag: str
    metadata: SeriesMetadata

    @property
    def plugin_name(self) -> str:
        return self.metadata.plugin_name

    @property
    def only(self) -> RunTagFilter:
        """What selects this series alone."""
        return RunTagFilter.of([self.run], [self.tag])


def write_tfevents(experiment: Experiment, out: Path) -> dict[str, int]:
    """Every run of `experiment` as a directory under `out` holding one event file; returns the points written by
    data class ("scalars", "tensors", "blob_sequences")."""
    written = {"scalars": 0, "tensors": 0, "blob_sequences": 0}
    series = _series_by_run(experiment)
    root = out.resolve()
    for run in experiment.provider.list_runs(experiment_id=experiment.id):
        directory = (root / run.run_name).resolve()
        if directory != root and root not in directory.parents:
            raise ValueError(f"run {run.run_name!r} names a directory outside {out}")
        directory.mkdir(parents=True, exist_ok=True)
        start = run.start_time or 0.0
        with (directory / EVENT_FILE.format(start=int(start))).open("wb") as stream:
            write = _writer(stream)
            write(Event(wall_time=start, file_version="brain.Event:2"))
            for one in series.get(run.run_name, []):
                kind, write_series = WRITERS.get(one.metadata.data_class, ("", None))
                points = 0 if write_series is None else write_series(experiment, one, write)
                if points:
                    written[kind] += points
                else:
                    # A tag logged without values (torch's hparams summaries): its metadata alone, which TensorBoard
                    # keeps.
                    value = Summary.Value(tag=one.tag, metadata=_summary_metadata(one.metadata))
                    write(Event(wall_time=start, step=0, summary=Summary(value=[value])))
    return {kind: count for kind, count in written.items() if count}


def _series_by_run(experiment: Experiment) -> dict[str, list[_Series]]:
    """Every series of every plugin, by run, each run's by tag."""
    provider, experiment_id = experiment.provider, experiment.id
    found: dict[str, list[_Series]] = {}
    for plugin in provider.list_plugins(experiment_id=experiment_id):
        for run, by_tag in provider.list_series(experiment_id=experiment_id, plugin_name=plugin).items():
            for tag, listed in by_tag.items():
                metadata = SeriesMetadata(
                    plugin_name=plugin,
                    data_class=listed.data_class,
                    plugin_content=listed.plugin_content,
                    display_name=listed.display_name,
                    description=listed.description,
                )
                found.setdefault(run, []).append(_Series(run, tag, metadata))
    return {run: sorted(series, key=lambda one: one.tag) for run, series in found.items()}


def _writer(stream: BinaryIO) -> Callable[[Event], None]:
    def write(event: Event) -> None:
        write_record(stream, event.SerializeToString())

    return write


def _summary_metadata(metadata: SeriesMetadata) -> SummaryMetadata:
    """The series' metadata as its writer logged it: the data class only for plugins TensorBoard does not give one
    (given, it would skip its own conversions, such as keeping an audio tensor's first column)."""
    summary_metadata = SummaryMetadata(display_name=metadata.display_name, summary_description=metadata.description)
    if metadata.plugin_name not in PLUGIN_DATA_CLASSES:
        summary_metadata.data_class = int(metadata.data_class)  # type: ignore[assignment]
    summary_metadata.plugin_data.plugin_name = metadata.plugin_name
    summary_metadata.plugin_data.content = metadata.plugin_content
    return summary_metadata


def _value_event(series: _Series, step: int, wall_time: float, tensor: TensorProto, first: bool) -> Event:
    """A summary event of one value; the series' metadata on its first point only, as TensorBoard keeps that one."""
    value = Summary.Value(tag=series.tag, tensor=tensor)
    if first:
        value.metadata.CopyFrom(_summary_metadata(series.metadata))
    return Event(wall_time=wall_time, step=step, summary=Summary(value=[value]))


def _write_scalars(experiment: Experiment, series: _Series, write: Callable[[Event], None]) -> int:
    written = 0
    for found in experiment.provider.stream_scalars(
        experiment_id=experiment.id, plugin_name=series.plugin_name, run_tag_filter=series.only
    ):
        column = found.points
        steps, wall_times, values = column.steps.tolist(), column.wall_times.tolist(), column.values.tolist()
        for index, (step, wall_time, number) in enumerate(zip(steps, wall_times, values, strict=True)):
            tensor = TensorProto(dtype=DataType.DT_DOUBLE, double_val=[number])
            write(_value_event(series, step, wall_time, tensor, first=index == 0))
        written += len(steps)
    return written


def _write_tensors(experiment: Experiment, series: _Series, write: Callable[[Event], None]) -> int:
    written = 0
    for found in experiment.provider.stream_logged_tensors(
        experiment_id=experiment.id, plugin_name=series.plugin_name, run_tag_filter=series.only
    ):
        for index, point in enumerate(found.points):
            tensor = TensorProto.FromString(bytes(point.tensor))
            write(_value_event(series, point.step, point.wall_time, tensor, first=index == 0))
        written += len(found.points)
    return written


def _write_blob_sequences(experiment: Experiment, series: _Series, write: Callable[[Event], None]) -> int:
    written = 0
    for found in experiment.provider.stream_blob_sequences(
        experiment_id=experiment.id, plugin_name=series.plugin_name, run_tag_filter=series.only
    ):
        for index, point in enumerate(found.points):
            blobs = [experiment.blob(reference.blob_key) for reference in point.values]
            graph = _graph_event(series, blobs)
            if graph is not None:
                graph.step, graph.wall_time = point.step, point.wall_time
                write(graph)
                continue
            tensor = TensorProto(dtype=DataType.DT_STRING)
            if series.plugin_name == AUDIO_PLUGIN:
                tensor.tensor_shape.dim.add(size=len(blobs))
                tensor.tensor_shape.dim.add(size=2)
                tensor.string_val.extend(item for blob in blobs for item in (blob, b""))
            else:
                tensor.tensor_shape.dim.add(size=len(blobs))
                tensor.string_val.extend(blobs)
            write(_value_event(series, point.step, point.wall_time, tensor, first=index == 0))
        written += len(found.points)
    return written


WRITERS: dict[DataClass, tuple[str, Callable[[Experiment, _Series, Callable[[Event], None]], int]]] = {
    DataClass.SCALAR: ("scalars", _write_scalars),
    DataClass.TENSOR: ("tensors", _write_tensors),
    DataClass.BLOB_SEQUENCE: ("blob_sequences", _write_blob_sequences),
}


def _graph_event(series: _Series, blobs: list[bytes]) -> Event | None:
    """The event a graph came in, for the series TensorBoard builds from graph events; None for the others."""
    if len(blobs) != 1:
        return None
    plugin = series.plugin_name
    if plugin == GRAPHS_PLUGIN and series.tag == RUN_GRAPH_TAG:
        return Event(graph_def=blobs[0])
    if plugin == TAGGED_RUN_METADATA_PLUGIN:
        return Event(tagged_run_metadata=TaggedRunMetadata(tag=series.tag, run_metadata=blobs[0]))
    if plugin == META_GRAPH_PLUGIN and series.tag == META_GRAPH_TAG:
        return Event(meta_graph_def=blobs[0])
    return None
