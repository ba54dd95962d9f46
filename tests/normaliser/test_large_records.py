"""Large records are parsed hollow (their large fields left out of protobuf's copy and filled back as views): the
points they give are the points a whole parse gives, for every kind of large field, in TensorBoard's and TS-VIS's
records; and they land in the store (SQLite writes them a piece at a time) as they were read."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reader.test_records import WRITER_EVENTS
from tests.stores import TestStore
from trainboard.normaliser import frames as frames_module
from trainboard.normaliser.frames import normalise_frames
from trainboard.normaliser.normalise import normalise_event
from trainboard.normaliser.points import Batch, BlobSequencePoint, RunState, ScalarSeries, TensorPoint
from trainboard.reader import events as events_module
from trainboard.reader import hollow as hollow_module
from trainboard.reader import tsvis
from trainboard.reader.hollow import LARGE_FIELD, LARGE_RECORD
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos import tsvis_pb2
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import DATA_CLASS_BLOB_SEQUENCE, DATA_CLASS_TENSOR, Summary
from trainboard.reader.records import read_frames, write_record
from trainboard.reader.tensors import to_ndarray

SIZE = LARGE_RECORD + 12_345
RNG = np.random.default_rng(3)


def tensor_event() -> Event:
    event = Event(wall_time=2.0, step=3)
    value = event.summary.value.add(tag="weights")
    value.metadata.data_class = DATA_CLASS_TENSOR
    value.tensor.dtype = 1
    value.tensor.tensor_shape.dim.add(size=SIZE // 4)
    value.tensor.tensor_content = RNG.normal(size=SIZE // 4).astype(np.float32).tobytes()
    small = event.summary.value.add(tag="small")  # beside it, a value small enough to be parsed as it is
    small.metadata.data_class = DATA_CLASS_TENSOR
    small.tensor.dtype = 1
    small.tensor.float_val.append(1.5)
    return event


def image_event() -> Event:
    """An image as today's writers log it: a string tensor [width, height, encoded]."""
    event = Event(wall_time=2.0, step=4)
    value = event.summary.value.add(tag="picture")
    value.metadata.plugin_data.plugin_name = "images"
    value.metadata.data_class = DATA_CLASS_BLOB_SEQUENCE
    value.tensor.dtype = 7
    value.tensor.tensor_shape.dim.add(size=4)
    value.tensor.string_val.extend([b"10", b"20", RNG.bytes(SIZE), RNG.bytes(LARGE_FIELD + 1)])
    return event


def legacy_image_event() -> Event:
    """An image as tensorboardX logs it: Summary.Image, migrated to a tensor by the normaliser."""
    event = Event(wall_time=2.0, step=5)
    event.summary.value.add(tag="legacy", image=Summary.Image(height=2, width=3, encoded_image_string=RNG.bytes(SIZE)))
    return event


def graph_event() -> Event:
    return Event(wall_time=2.0, step=0, graph_def=RNG.bytes(SIZE))


def tsvis_exception_event() -> Event:
    """TS-VIS's add_exception: a Projector in the value's node_name field."""
    projector = tsvis_pb2.Projector()
    tensor = projector.exception.value
    tensor.dtype = "float32"
    tensor.tensor_shape.dim.add(size=SIZE // 4)
    tensor.tensor_content = RNG.normal(size=SIZE // 4).astype(np.float32).tobytes()
    event = Event(wall_time=2.0, step=6)
    event.summary.value.add(tag="activations", node_name=projector.SerializeToString())
    return event


def whole(events: list[Event], path: str) -> Batch:
    """What event-by-event normalising of whole parses gives."""
    state, batch = RunState(), Batch()
    for event in events:
        parsed = Event.FromString(event.SerializeToString())
        normalise_event(tsvis.translate(parsed) if "tsvis" in path else parsed, state, batch)
    return batch


def plain(batch: Batch) -> list[object]:
    """The points with their bytes as bytes (views compare as their contents)."""
    found: list[object] = []
    for operation in batch.operations:
        if isinstance(operation, TensorPoint):
            found.append((operation.tag, operation.step, bytes(operation.tensor)))
        elif isinstance(operation, BlobSequencePoint):
            found.append((operation.tag, operation.step, [bytes(blob) for blob in operation.blobs]))
        elif isinstance(operation, ScalarSeries):
            found.append((operation.tag, operation.steps.tolist(), operation.values.tolist()))
        else:
            found.append(operation)
    return found


@pytest.mark.parametrize(
    ("make", "path"),
    [
        (tensor_event, "events.out.tfevents.1.host"),
        (image_event, "events.out.tfevents.1.host"),
        (legacy_image_event, "events.out.tfevents.1.host"),
        (graph_event, "events.out.tfevents.1.host"),
        (tsvis_exception_event, "events.out.tsvis.1.host"),
    ],
)
def test_a_large_record_gives_the_points_of_a_whole_parse(make: object, path: str) -> None:
    assert callable(make)
    events = [Event(wall_time=1.0, file_version="brain.Event:2"), make()]
    stream = io.BytesIO()
    for event in events:
        write_record(stream, event.SerializeToString())
    frames = read_frames(stream, 0, path=path, limit=1 << 26)
    assert len(frames) == 2 and frames.lengths[1] >= LARGE_RECORD
    batch = normalise_frames(frames, RunState(), path=path)
    expected = whole(events, path)
    assert plain(batch) == plain(expected) and batch.metadata == expected.metadata
    large = [op for op in batch.operations if isinstance(op, TensorPoint | BlobSequencePoint)]
    assert large
    if "tsvis" not in path:  # TensorBoard's large fields are views of the record read, not copies
        views = [op.tensor for op in large if isinstance(op, TensorPoint) and len(op.tensor) >= LARGE_FIELD]
        views += [blob for op in large if isinstance(op, BlobSequencePoint) for blob in op.blobs if len(blob) > 100]
        assert views and all(isinstance(view, memoryview) for view in views)


def test_a_large_record_that_is_no_event_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    stream = io.BytesIO()
    write_record(stream, b"\x0a\xff\xff\xff\x7f" + bytes(LARGE_RECORD))  # a field far longer than the record
    frames = read_frames(stream, 0, path="events.out.tfevents.2", limit=1 << 20)
    batch = normalise_frames(frames, RunState(), path="events.out.tfevents.2")
    assert batch.operations == []
    assert "record at offset 0 is not a valid Event" in caplog.text


def test_large_tensors_and_images_are_stored_as_read(tmp_path: Path) -> None:
    run = tmp_path / "logs" / "run"
    run.mkdir(parents=True)
    tensor, image = tensor_event(), image_event()
    with (run / "events.out.tfevents.1.host").open("wb") as stream:
        for event in (Event(wall_time=1.0, file_version="brain.Event:2"), tensor, image):
            write_record(stream, event.SerializeToString())
    store = TestStore(tmp_path / "store.sqlite")
    try:
        store.loader(LogDir(str(run.parent))).poll()
        (weights,) = store.series(runs=["run"], tags=["weights"])
        (point,) = store.tensors(weights.id)
        assert np.array_equal(to_ndarray(point.tensor), to_ndarray(tensor.summary.value[0].tensor.SerializeToString()))
        (picture,) = store.series(runs=["run"], tags=["picture"])
        (sequence,) = store.blob_sequences(picture.id)
        assert [store.blob(key) for key in sequence.blob_keys] == list(image.summary.value[0].tensor.string_val)
    finally:
        store.close()


def framed_file(payloads: list[bytes]) -> bytes:
    stream = io.BytesIO()
    for payload in payloads:
        write_record(stream, payload)
    return stream.getvalue()


def writer_payloads() -> list[bytes]:
    """An event of each kind with bytes fields: a histogram, an image, text, a graph, run metadata, a TS-VIS-less
    tensor."""
    return [
        *(payload for payload in WRITER_EVENTS if b"scalars" not in payload),
        graph_event_small().SerializeToString(),
        Event(step=1, meta_graph_def=b"m" * 300).SerializeToString(),
    ]


def graph_event_small() -> Event:
    return Event(wall_time=2.0, step=0, graph_def=b"g" * 500)


@given(st.lists(st.tuples(st.integers(0, 6), st.binary(max_size=6), st.integers(0, 400)), min_size=1, max_size=6))
@settings(max_examples=300, deadline=None)
def test_hollow_parsing_of_damaged_events_matches_a_whole_parse(edits: list[tuple[int, bytes, int]]) -> None:
    """With thresholds of a few bytes, every record is parsed hollow: events damaged anywhere give the points (or the
    skip) a whole parse gives, and nothing raises."""
    payloads = writer_payloads()
    damaged = [version_payload()]
    for which, inserted, at in edits:
        payload = payloads[which % len(payloads)]
        at %= len(payload) + 1
        damaged.append(payload[:at] + inserted + payload[at + len(inserted) // 2 :])
    data = framed_file(damaged)
    path = "events.out.tfevents.3.host"
    expected = normalise_frames(read_frames(io.BytesIO(data), 0, path=path, limit=1 << 20), RunState(), path=path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hollow_module, "LARGE_FIELD", 16)
        patch.setattr(events_module, "LARGE_RECORD", 0)
        patch.setattr(frames_module, "LARGE_RECORD", 0)
        found = normalise_frames(read_frames(io.BytesIO(data), 0, path=path, limit=1 << 20), RunState(), path=path)
    assert plain(found) == plain(expected) and found.metadata == expected.metadata


def version_payload() -> bytes:
    return Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString()
