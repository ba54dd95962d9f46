"""The bulk path for simple scalar events gives exactly what the event-by-event normaliser gives, on any mix of
events: scalars (one or several values), other summaries, restarts, file versions, steps that go back."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kernels import WAYS, running
from trainboard.normaliser.frames import _groups, normalise_frames
from trainboard.normaliser.normalise import normalise
from trainboard.normaliser.points import Batch, Purge, RunState, ScalarPoint, ScalarSeries
from trainboard.reader.events import parse_event
from trainboard.reader.protos.event_pb2 import Event, SessionLog
from trainboard.reader.records import read_frames, write_record

TAGS = ("loss", "acc", "lr/ü", "a" * 200)
steps = st.integers(min_value=-5, max_value=2**40)
floats = st.floats(width=32, allow_nan=True, allow_infinity=True)


@st.composite
def events(draw: st.DrawFn) -> Event:
    kind = draw(st.sampled_from(["scalars", "scalars", "scalars", "histo", "metadata", "version", "start", "text"]))
    event = Event(wall_time=draw(st.floats(min_value=0, max_value=2e9)), step=draw(steps))
    if kind == "scalars":
        for tag in draw(st.lists(st.sampled_from(TAGS), min_size=0, max_size=3)):
            event.summary.value.add(tag=tag, simple_value=draw(floats))
    elif kind == "histo":
        value = event.summary.value.add(tag=draw(st.sampled_from(TAGS)))
        value.histo.min, value.histo.max, value.histo.num = 0.0, 1.0, 2.0
        value.histo.bucket_limit.extend([0.5, 1.0])
        value.histo.bucket.extend([1.0, 1.0])
    elif kind == "metadata":
        value = event.summary.value.add(tag=draw(st.sampled_from(TAGS)), simple_value=draw(floats))
        value.metadata.display_name = "shown"
    elif kind == "version":
        event.file_version = draw(st.sampled_from(["brain.Event:1", "brain.Event:2"]))
    elif kind == "start":
        event.session_log.status = SessionLog.START
    else:
        event.log_message.message = "hello"
    return event


def flattened(batch: Batch) -> list[object]:
    """Operations with column series spelled out as points, so that both paths compare."""
    result: list[object] = []
    for operation in batch.operations:
        if isinstance(operation, ScalarSeries):
            for step, wall_time, value in zip(operation.steps, operation.wall_times, operation.values, strict=True):
                result.append(ScalarPoint(operation.tag, int(step), float(wall_time), float(value)))
        else:
            result.append(operation)
    return result


def comparable(operations: list[object]) -> list[object]:
    """Between purges, each tag's points in order (the order across tags is free); NaN != NaN, so values as bits."""
    result: list[object] = []
    by_tag: dict[str, list[object]] = {}
    for op in operations:
        if isinstance(op, Purge):
            result += [by_tag, op]
            by_tag = {}
        elif isinstance(op, ScalarPoint):
            by_tag.setdefault(op.tag, []).append((op.step, op.wall_time, np.float64(op.value).tobytes()))
        else:
            by_tag.setdefault(op.tag, []).append(op)
    return [*result, by_tag]


@pytest.mark.parametrize("way", WAYS)
@settings(max_examples=300, deadline=None)
@given(st.lists(events(), max_size=40), st.integers(min_value=1, max_value=4))
def test_bulk_and_event_by_event_agree(way: str, written: list[Event], reads: int) -> None:
    """Compiled, the simple scalar events take the bulk path; in pure Python, the stretches of frames.py without it."""
    stream = io.BytesIO()
    for event in written:
        write_record(stream, event.SerializeToString())
    data = stream.getvalue()

    expected_state = RunState()
    parsed = [parse_event(event.SerializeToString(), path="x", offset=0) for event in written]
    expected = normalise([event for event in parsed if event is not None], expected_state)

    actual_state, actual = RunState(), Batch()
    offset = 0
    # Several reads of one file, as a growing file is read, each continuing where the last stopped.
    with running(way, "trainboard.normaliser._scalars"):
        for cut in sorted({len(data) * part // reads for part in range(1, reads + 1)}):
            frames = read_frames(io.BytesIO(data[:cut]), offset, path="x", limit=len(data) + 1)
            batch = normalise_frames(frames, actual_state, path="x")
            actual.operations += batch.operations
            actual.metadata.update(batch.metadata)
            offset = frames.end

    assert comparable(flattened(actual)) == comparable(flattened(expected))
    assert actual.metadata == expected.metadata
    assert actual_state == expected_state


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=70_000), max_size=60), st.integers(min_value=0, max_value=70_000))
def test_values_are_grouped_by_tag_in_order_counted_or_sorted(ids: list[int], spare: int) -> None:
    """Either way of grouping (counted per tag, or sorted when the values are few beside the tags; 16-bit keys or
    not) gives each tag's values in order."""
    tag_ids = np.array(ids, dtype=np.int64)
    tag_count = max(ids, default=-1) + 1 + spare
    present, order, bounds = _groups(tag_ids, tag_count)
    assert present.tolist() == sorted(set(ids))
    assert [order[bounds[group] : bounds[group + 1]].tolist() for group in range(len(present))] == [
        [position for position, found in enumerate(ids) if found == tag] for tag in present.tolist()
    ]
