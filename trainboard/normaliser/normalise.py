"""Parsed events of one run → scalar, tensor and blob-sequence points, as TensorBoard's Python loader sees them.

The order of work per event follows TensorBoard 2.21's loader: legacy values are migrated to tensors (data_compat),
data classes are assigned from the plugin of the tag's first metadata (dataclass_compat), then the restart purge is
checked before the event's values are kept (plugin_event_accumulator).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from trainboard.names import loggable
from trainboard.normaliser import legacy
from trainboard.normaliser.histogram_kernel import HistogramEvent
from trainboard.normaliser.points import (
    Batch,
    BlobSequencePoint,
    DataClass,
    Purge,
    RunState,
    ScalarPoint,
    SeriesMetadata,
    TensorPoint,
)
from trainboard.reader.protos.event_pb2 import Event, SessionLog
from trainboard.reader.protos.summary_pb2 import DATA_CLASS_BLOB_SEQUENCE, Summary
from trainboard.reader.protos.tensor_pb2 import DataType

logger = logging.getLogger("trainboard.normaliser")

RUN_GRAPH_TAG = "__run_graph__"
META_GRAPH_TAG = "__run_meta_graph__"
GRAPHS_PLUGIN = "graphs"
TAGGED_RUN_METADATA_PLUGIN = "graph_tagged_run_metadata"
# trainboard keeps meta graphs too (TensorBoard's data provider does not serve them) under a plugin of its own.
META_GRAPH_PLUGIN = "graph_meta_graph_def"

# dataclass_compat: the data class a tag's values get from the plugin of its first metadata.
PLUGIN_DATA_CLASSES = {
    "scalars": DataClass.SCALAR,
    "histograms": DataClass.TENSOR,
    "text": DataClass.TENSOR,
    "hparams": DataClass.TENSOR,
    "pr_curves": DataClass.TENSOR,
    "mesh": DataClass.TENSOR,
    "custom_scalars": DataClass.TENSOR,
    "images": DataClass.BLOB_SEQUENCE,
    "audio": DataClass.BLOB_SEQUENCE,
    "graph_run_metadata": DataClass.BLOB_SEQUENCE,
    "graph_run_metadata_graph": DataClass.BLOB_SEQUENCE,
    "graph_keras_model": DataClass.BLOB_SEQUENCE,
}


def normalise(events: Iterable[Event], state: RunState) -> Batch:
    """Turn one run's events, in file order, into a Batch; `state` carries the purge rules' memory across calls."""
    batch = Batch()
    for event in events:
        normalise_event(event, state, batch)
    return batch


def normalise_event(event: Event, state: RunState, batch: Batch) -> None:
    """Add what one event contributes to `batch`."""
    operations = batch.operations
    if state.start_time is None:
        state.start_time = event.wall_time
    kind = event.WhichOneof("what")
    if kind == "summary":
        values = event.summary.value
        if state.old_format:
            purge = _out_of_order_purge(event.step, state, [value.tag for value in values])
            if purge is not None:
                operations.append(purge)
        state.most_recent_step = event.step
        for value in values:
            if not _kept_as_scalar(value, event, state, batch):
                _keep(legacy.migrate(value), event, state, batch)
    elif kind in ("graph_def", "tagged_run_metadata"):
        value = _graph_value(event, kind)
        if state.old_format:
            purge = _out_of_order_purge(event.step, state, [value.tag])
            if purge is not None:
                operations.append(purge)
        state.most_recent_step = event.step
        _keep(value, event, state, batch)
    elif kind == "meta_graph_def":
        # Not a summary for TensorBoard: no purge check and no effect on the most recent step.
        _keep(_blob_value(META_GRAPH_TAG, META_GRAPH_PLUGIN, event.meta_graph_def), event, state, batch)
    elif kind == "file_version":
        state.file_version = _file_version(event.file_version)
    elif kind == "session_log" and event.session_log.status == SessionLog.START:
        purge = _restart_purge(event.step, state)
        if purge is not None:
            operations.append(purge)


def normalise_histograms(event: HistogramEvent, state: RunState, batch: Batch) -> bool:
    """What `normalise_event` adds for an event of legacy histograms only, without protobuf objects; False (nothing
    done) when a tag's series is not a tensor series, for `normalise_event` to take the parsed event."""
    tags = [tag for tag, _ in event.values]
    known = [state.first_metadata.get(tag) for tag in tags]
    if any(metadata is not None and metadata.data_class != DataClass.TENSOR for metadata in known):
        return False
    if state.start_time is None:
        state.start_time = event.wall_time
    if state.old_format:
        purge = _out_of_order_purge(event.step, state, tags)
        if purge is not None:
            batch.operations.append(purge)
    state.most_recent_step = event.step
    for tag, tensor in event.values:
        if tag not in state.first_metadata:
            state.first_metadata[tag] = batch.metadata[tag] = SeriesMetadata(
                plugin_name="histograms", data_class=DataClass.TENSOR, display_name=tag
            )
        batch.operations.append(TensorPoint(tag=tag, step=event.step, wall_time=event.wall_time, tensor=tensor))
    return True


def _kept_as_scalar(value: Summary.Value, event: Event, state: RunState, batch: Batch) -> bool:
    """The common case without building a migrated value: a simple_value of a tag whose values are scalars."""
    if value.WhichOneof("value") != "simple_value":
        return False
    tag = value.tag
    first = state.first_metadata.get(tag)
    if first is None:
        first = legacy.scalar_metadata(value)
        state.first_metadata[tag] = batch.metadata[tag] = first
    elif first.data_class != DataClass.SCALAR:
        return False
    batch.operations.append(ScalarPoint(tag=tag, step=event.step, wall_time=event.wall_time, value=value.simple_value))
    return True


def _graph_value(event: Event, kind: str) -> Summary.Value:
    """TensorBoard turns graphs and tagged run metadata into blob-sequence summary values."""
    if kind == "graph_def":
        return _blob_value(RUN_GRAPH_TAG, GRAPHS_PLUGIN, event.graph_def)
    run_metadata = event.tagged_run_metadata
    return _blob_value(run_metadata.tag, TAGGED_RUN_METADATA_PLUGIN, run_metadata.run_metadata)


def _out_of_order_purge(step: int, state: RunState, tags: list[str]) -> Purge | None:
    """Files older than version 2: a summary whose step goes back drops its tags' points from that step on."""
    if step < state.most_recent_step:
        return Purge(step=step, tags=tuple(tags))
    return None


def _restart_purge(step: int, state: RunState) -> Purge | None:
    """Version 2 files: every SessionLog.START after the first drops all points from its step on."""
    if state.old_format:
        return None
    if not state.seen_session_start:
        state.seen_session_start = True
        return None
    return Purge(step=step)


def _keep(value: Summary.Value, event: Event, state: RunState, batch: Batch) -> None:
    point = _point(value, event, state, batch)
    if point is not None:
        batch.operations.append(point)


def _point(
    value: Summary.Value, event: Event, state: RunState, batch: Batch
) -> ScalarPoint | TensorPoint | BlobSequencePoint | None:
    tag = value.tag or value.node_name.decode("utf-8", "replace")
    first = state.first_metadata.get(tag)
    if first is None:
        first = _series_metadata(value)
        state.first_metadata[tag] = first
        batch.metadata[tag] = first
    if not value.HasField("tensor"):
        return None
    data_class = first.data_class
    if data_class == DataClass.SCALAR:
        try:
            scalar = legacy.scalar(value.tensor)
        except ValueError:
            logger.warning(
                "tag '%s' at step %d: a value that is no scalar in a scalar series; skipped", loggable(tag), event.step
            )
            return None
        return ScalarPoint(tag=tag, step=event.step, wall_time=event.wall_time, value=scalar)
    if data_class == DataClass.BLOB_SEQUENCE:
        blobs = legacy.blobs(value.tensor, audio=first.plugin_name == "audio")
        return BlobSequencePoint(tag=tag, step=event.step, wall_time=event.wall_time, blobs=blobs)
    return TensorPoint(tag=tag, step=event.step, wall_time=event.wall_time, tensor=value.tensor.SerializeToString())


def _series_metadata(value: Summary.Value) -> SeriesMetadata:
    metadata = value.metadata
    data_class = DataClass(metadata.data_class)
    plugin_name = metadata.plugin_data.plugin_name
    if data_class == DataClass.UNKNOWN:
        data_class = PLUGIN_DATA_CLASSES.get(plugin_name, DataClass.UNKNOWN)
    if not value.HasField("metadata"):
        # TensorBoard keeps no metadata for such a tag, so its values are never served.
        data_class = DataClass.UNKNOWN
    return SeriesMetadata(
        plugin_name=plugin_name,
        data_class=data_class,
        plugin_content=metadata.plugin_data.content,
        display_name=metadata.display_name,
        description=metadata.summary_description,
    )


def _blob_value(tag: str, plugin_name: str, blob: bytes) -> Summary.Value:
    value = Summary.Value(tag=tag)
    value.metadata.plugin_data.plugin_name = plugin_name
    value.metadata.data_class = DATA_CLASS_BLOB_SEQUENCE
    value.tensor.dtype = DataType.DT_STRING
    value.tensor.tensor_shape.dim.add(size=1)
    value.tensor.string_val.append(blob)
    return value


def _file_version(text: str) -> float:
    """ "brain.Event:2" → 2.0; an unreadable version counts as old (-1), as in TensorBoard."""
    try:
        return float(text.split("brain.Event:")[-1])
    except ValueError:
        return -1.0
