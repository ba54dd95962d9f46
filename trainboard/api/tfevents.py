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
from trainboard.reader.protos.event_pb2 import Event, TaggedRunMetadata
from trainboard.reader.protos.summary_pb2 import Summary, SummaryMetadata
from trainboard.reader.protos.tensor_pb2 import DataType, TensorProto
from trainboard.reader.records import write_record
from trainboard.store.values import SeriesRow

EVENT_FILE = "events.out.tfevents.{start:010d}.trainboard-export"
AUDIO_PLUGIN = "audio"


def write_tfevents(experiment: Experiment, out: Path) -> dict[str, int]:
    """Every run of `experiment` as a directory under `out` holding one event file; returns the points written by
    data class ("scalars", "tensors", "blob_sequences")."""
    store, experiment_id = experiment.store, experiment.id
    written = {"scalars": 0, "tensors": 0, "blob_sequences": 0}
    series: dict[str, list[SeriesRow]] = {}
    for row in sorted(store.series(experiment_id), key=lambda r: (r.run, r.tag)):
        series.setdefault(row.run, []).append(row)
    root = out.resolve()
    for run in store.runs(experiment_id):
        directory = (root / run.name).resolve()
        if directory != root and root not in directory.parents:
            raise ValueError(f"run {run.name!r} names a directory outside {out}")
        directory.mkdir(parents=True, exist_ok=True)
        start = run.start_time or 0.0
        with (directory / EVENT_FILE.format(start=int(start))).open("wb") as stream:
            write = _writer(stream)
            write(Event(wall_time=start, file_version="brain.Event:2"))
            for row in series.get(run.name, []):
                kind, write_series = WRITERS.get(row.metadata.data_class, ("", None))
                points = 0 if write_series is None else write_series(experiment, row, write)
                if points:
                    written[kind] += points
                else:
                    # A tag logged without values (torch's hparams summaries): its metadata alone, which TensorBoard
                    # keeps.
                    value = Summary.Value(tag=row.tag, metadata=_summary_metadata(row.metadata))
                    write(Event(wall_time=start, step=0, summary=Summary(value=[value])))
    return {kind: count for kind, count in written.items() if count}


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


def _value_event(row: SeriesRow, step: int, wall_time: float, tensor: TensorProto, first: bool) -> Event:
    """A summary event of one value; the series' metadata on its first point only, as TensorBoard keeps that one."""
    value = Summary.Value(tag=row.tag, tensor=tensor)
    if first:
        value.metadata.CopyFrom(_summary_metadata(row.metadata))
    return Event(wall_time=wall_time, step=step, summary=Summary(value=[value]))


def _write_scalars(experiment: Experiment, row: SeriesRow, write: Callable[[Event], None]) -> int:
    column = experiment.store.scalars(experiment.id, row.id)
    steps, wall_times, values = column.steps.tolist(), column.wall_times.tolist(), column.values.tolist()
    for index, (step, wall_time, number) in enumerate(zip(steps, wall_times, values, strict=True)):
        tensor = TensorProto(dtype=DataType.DT_DOUBLE, double_val=[number])
        write(_value_event(row, step, wall_time, tensor, first=index == 0))
    return len(steps)


def _write_tensors(experiment: Experiment, row: SeriesRow, write: Callable[[Event], None]) -> int:
    points = experiment.store.tensors(experiment.id, row.id)
    for index, point in enumerate(points):
        tensor = TensorProto.FromString(bytes(point.tensor))
        write(_value_event(row, point.step, point.wall_time, tensor, first=index == 0))
    return len(points)


def _write_blob_sequences(experiment: Experiment, row: SeriesRow, write: Callable[[Event], None]) -> int:
    store = experiment.store
    points = store.blob_sequences(experiment.id, row.id)
    plugin = row.metadata.plugin_name
    for index, point in enumerate(points):
        blobs = [store.blob(key) or b"" for key in point.blob_keys]
        graph = _graph_event(row, plugin, blobs)
        if graph is not None:
            graph.step, graph.wall_time = point.step, point.wall_time
            write(graph)
            continue
        tensor = TensorProto(dtype=DataType.DT_STRING)
        if plugin == AUDIO_PLUGIN:
            tensor.tensor_shape.dim.add(size=len(blobs))
            tensor.tensor_shape.dim.add(size=2)
            tensor.string_val.extend(item for blob in blobs for item in (blob, b""))
        else:
            tensor.tensor_shape.dim.add(size=len(blobs))
            tensor.string_val.extend(blobs)
        write(_value_event(row, point.step, point.wall_time, tensor, first=index == 0))
    return len(points)


WRITERS: dict[DataClass, tuple[str, Callable[[Experiment, SeriesRow, Callable[[Event], None]], int]]] = {
    DataClass.SCALAR: ("scalars", _write_scalars),
    DataClass.TENSOR: ("tensors", _write_tensors),
    DataClass.BLOB_SEQUENCE: ("blob_sequences", _write_blob_sequences),
}


def _graph_event(row: SeriesRow, plugin: str, blobs: list[bytes]) -> Event | None:
    """The event a graph came in, for the series TensorBoard builds from graph events; None for the others."""
    if len(blobs) != 1:
        return None
    if plugin == GRAPHS_PLUGIN and row.tag == RUN_GRAPH_TAG:
        return Event(graph_def=blobs[0])
    if plugin == TAGGED_RUN_METADATA_PLUGIN:
        return Event(tagged_run_metadata=TaggedRunMetadata(tag=row.tag, run_metadata=blobs[0]))
    if plugin == META_GRAPH_PLUGIN and row.tag == META_GRAPH_TAG:
        return Event(meta_graph_def=blobs[0])
    return None
