"""One read's records → a Batch, with the points and purges that event-by-event normalising gives.

Simple scalar events (the bulk of every logdir) are decoded by a compiled kernel into one column series per tag;
the other records (and, without the kernel, every record) are parsed and normalised one by one. Only SessionLog,
file_version and graph events can purge in a version-2 file, so between two of them ("barriers") the order of points
matters only within a tag: the simple events of such a stretch are kept in one bulk step, then its other summary
events in order. A stretch where a tag appears both ways, and any old-format file (where any summary may purge), is
taken strictly in file order.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from trainboard.normaliser import histogram_kernel, scalar_kernel
from trainboard.normaliser.histogram_kernel import HistogramEvent
from trainboard.normaliser.normalise import normalise_event, normalise_histograms
from trainboard.normaliser.points import (
    Batch,
    BlobSequencePoint,
    DataClass,
    RunState,
    ScalarSeries,
    SeriesMetadata,
    TensorPoint,
)
from trainboard.reader.dialect import Dialect, file_dialect
from trainboard.reader.events import parse_event
from trainboard.reader.hollow import LARGE_RECORD, Pieces
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import Frames


class Decoded(NamedTuple):
    """The scalar kernel's output: per record, then per value of the simple records, then per tag id."""

    simple: np.ndarray
    wall_times: np.ndarray
    steps: np.ndarray
    records: np.ndarray
    tag_starts: np.ndarray
    tag_lengths: np.ndarray
    tag_ids: np.ndarray
    values: np.ndarray
    firsts: np.ndarray


def normalise_frames(frames: Frames, state: RunState, *, path: str) -> Batch:
    batch = Batch()
    if not len(frames):
        return batch
    decoded = Decoded(*scalar_kernel.decode(frames.data, frames.starts, frames.lengths))
    others = [int(index) for index in np.flatnonzero(~decoded.simple)]
    # TS-VIS's records are translated from another schema by the parser.
    histograms = (
        {}
        if file_dialect(path) is Dialect.TSVIS
        else histogram_kernel.decode(frames.data, frames.starts[others], frames.lengths[others])
    )
    pieces = Pieces()
    events: dict[int, Event | HistogramEvent | None] = {
        index: histograms.get(position) or _parse(frames, index, path, pieces) for position, index in enumerate(others)
    }
    barriers = [(index, event) for index in others if (event := events[index]) is not None and not _is_summary(event)]
    start = 0
    for index, barrier in barriers:
        _stretch(frames, decoded, events, others, start, index, state, batch, path)
        _normalise(frames, index, barrier, state, batch, path)
        start = index + 1
    _stretch(frames, decoded, events, others, start, len(frames), state, batch, path)
    if pieces:
        _fill(batch, pieces)
    return batch


def _parse(frames: Frames, index: int, path: str, pieces: Pieces) -> Event | None:
    """A record's Event; a large one parsed hollow, its large fields in `pieces` (see `_fill`)."""
    offset = frames.record_offset(index)
    if frames.lengths[index] >= LARGE_RECORD:
        return parse_event(frames.view(index), path=path, offset=offset, pieces=pieces)
    return parse_event(frames.payload(index), path=path, offset=offset)


def _fill(batch: Batch, pieces: Pieces) -> None:
    """The batch's points with the large fields of hollow Events filled back in, without copies where it can."""
    for position, operation in enumerate(batch.operations):
        if isinstance(operation, TensorPoint):
            batch.operations[position] = replace(operation, tensor=pieces.tensor(operation.tensor))
        elif isinstance(operation, BlobSequencePoint) and isinstance(operation.blobs, tuple):
            batch.operations[position] = replace(operation, blobs=tuple(map(pieces.blob, operation.blobs)))


def _is_summary(event: Event | HistogramEvent) -> bool:
    return isinstance(event, HistogramEvent) or event.WhichOneof("what") == "summary"


def _normalise(
    frames: Frames, index: int, event: Event | HistogramEvent, state: RunState, batch: Batch, path: str
) -> None:
    """normalise_event for a parsed event, or for a decoded histogram event (parsed after all when its tags' series
    are not tensor series)."""
    if not isinstance(event, HistogramEvent):
        normalise_event(event, state, batch)
    elif not normalise_histograms(event, state, batch):
        parsed = parse_event(frames.payload(index), path=path, offset=frames.record_offset(index))
        if parsed is not None:
            normalise_event(parsed, state, batch)


def _tags(event: Event | HistogramEvent) -> list[str]:
    if isinstance(event, HistogramEvent):
        return [tag for tag, _ in event.values]
    return [value.tag for value in event.summary.value]


def _stretch(
    frames: Frames,
    decoded: Decoded,
    events: dict[int, Event | HistogramEvent | None],
    others: list[int],
    start: int,
    stop: int,
    state: RunState,
    batch: Batch,
    path: str,
) -> None:
    """Records start..stop: simple scalar events and other summary events (or unparseable records), no barrier."""
    if start >= stop:
        return
    summaries = [
        (index, event)
        for index in others[bisect_left(others, start) : bisect_left(others, stop)]
        if (event := events[index]) is not None
    ]
    if state.old_format or _shared_tags(frames, decoded, start, stop, summaries):
        _in_file_order(frames, decoded, events, start, stop, state, batch, path)
        return
    first_simple = _first_simple(decoded, start, stop)
    if state.start_time is None:
        candidates = [(index, float(event.wall_time)) for index, event in summaries[:1]]
        if first_simple is not None:
            candidates.append((first_simple, float(decoded.wall_times[first_simple])))
        if candidates:
            state.start_time = min(candidates)[1]
    last_simple = _last_simple(decoded, start, stop)
    if first_simple is not None and not _bulk_scalars(frames, decoded, start, stop, state, batch):
        _in_file_order(frames, decoded, events, start, stop, state, batch, path)
        return
    for index, event in summaries:
        _normalise(frames, index, event, state, batch, path)
    last_summary = summaries[-1][0] if summaries else None
    if last_simple is not None and (last_summary is None or last_simple > last_summary):
        state.most_recent_step = int(decoded.steps[last_simple])


def _in_file_order(
    frames: Frames,
    decoded: Decoded,
    events: dict[int, Event | HistogramEvent | None],
    start: int,
    stop: int,
    state: RunState,
    batch: Batch,
    path: str,
) -> None:
    """Records start..stop strictly in order: runs of simple events in bulk, the others one by one."""
    simple = decoded.simple[start:stop]
    boundaries = np.flatnonzero(np.diff(simple.view(np.int8))) + 1 + start
    for segment_start, segment_stop in zip([start, *boundaries], [*boundaries, stop], strict=True):
        if decoded.simple[segment_start] and _bulk_scalars(
            frames, decoded, int(segment_start), int(segment_stop), state, batch
        ):
            continue
        for index in range(segment_start, segment_stop):
            event = (
                events[index]
                if index in events
                else parse_event(frames.payload(index), path=path, offset=frames.record_offset(index))
            )
            if event is not None:
                _normalise(frames, index, event, state, batch, path)


def _first_simple(decoded: Decoded, start: int, stop: int) -> int | None:
    found = np.flatnonzero(decoded.simple[start:stop])
    return int(found[0]) + start if len(found) else None


def _last_simple(decoded: Decoded, start: int, stop: int) -> int | None:
    found = np.flatnonzero(decoded.simple[start:stop])
    return int(found[-1]) + start if len(found) else None


def _value_range(decoded: Decoded, start: int, stop: int) -> tuple[int, int]:
    """The values of the simple records start..stop: they are contiguous, in record order."""
    first, last = np.searchsorted(decoded.records, [start, stop])
    return int(first), int(last)


def _shared_tags(
    frames: Frames, decoded: Decoded, start: int, stop: int, summaries: list[tuple[int, Event | HistogramEvent]]
) -> bool:
    """Whether a tag of the stretch's other summary events is also a tag of its simple events."""
    other_tags = {tag.encode() for _, event in summaries for tag in _tags(event)}
    if not other_tags:
        return False
    first, last = _value_range(decoded, start, stop)
    present = _present(decoded.tag_ids[first:last], len(decoded.firsts))
    return any(_tag_bytes(frames, decoded, int(decoded.firsts[tag_id])) in other_tags for tag_id in present)


def _tag_bytes(frames: Frames, decoded: Decoded, value: int) -> bytes:
    start = int(decoded.tag_starts[value])
    return frames.data[start : start + int(decoded.tag_lengths[value])].tobytes()


def _bulk_scalars(frames: Frames, decoded: Decoded, start: int, stop: int, state: RunState, batch: Batch) -> bool:
    """Keep the simple records among start..stop as one column series per tag; False (nothing done) when the
    general path must take them: a step going back in an old-format file, a tag that is not a scalar series, or a tag
    that is not UTF-8."""
    simple_records = np.flatnonzero(decoded.simple[start:stop]) + start
    steps = decoded.steps[simple_records]
    if state.old_format:
        previous = np.concatenate([[state.most_recent_step], steps[:-1]])
        if (steps < previous).any():
            return False
    first, last = _value_range(decoded, start, stop)
    present, order, bounds = _groups(decoded.tag_ids[first:last], len(decoded.firsts))
    try:
        tags = [_tag_bytes(frames, decoded, int(decoded.firsts[tag_id])).decode("utf-8") for tag_id in present]
    except UnicodeDecodeError:
        return False
    known = [state.first_metadata.get(tag) for tag in tags]
    if any(metadata is not None and metadata.data_class != DataClass.SCALAR for metadata in known):
        return False
    if state.start_time is None:
        state.start_time = float(decoded.wall_times[simple_records[0]])
    state.most_recent_step = int(steps[-1])
    value_records = decoded.records[first:last]
    values = decoded.values[first:last]
    for group, (tag, metadata) in enumerate(zip(tags, known, strict=True)):
        if metadata is None:
            state.first_metadata[tag] = batch.metadata[tag] = SeriesMetadata(
                plugin_name="scalars", data_class=DataClass.SCALAR, display_name=tag
            )
        members = order[bounds[group] : bounds[group + 1]]
        of_records = value_records[members]
        batch.operations.append(
            ScalarSeries(tag, decoded.steps[of_records], decoded.wall_times[of_records], values[members])
        )
    return True


def _present(tag_ids: np.ndarray, tag_count: int) -> np.ndarray:
    """The distinct ids among `tag_ids` (of `tag_count` in all), ascending."""
    if _few(tag_ids, tag_count):
        return np.unique(tag_ids)
    return np.flatnonzero(np.bincount(tag_ids, minlength=tag_count))


def _groups(tag_ids: np.ndarray, tag_count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct ids among `tag_ids` (of `tag_count` in all) ascending; the positions of `tag_ids` grouped by id, in
    order within each group; each group's bounds in those positions."""
    if _few(tag_ids, tag_count):
        present, tag_ids = np.unique(tag_ids, return_inverse=True)
        counts = np.bincount(tag_ids, minlength=len(present))
    else:
        counts = np.bincount(tag_ids, minlength=tag_count)
        present = np.flatnonzero(counts)
        counts = counts[present]
    # A stable sort of 16-bit keys is a radix sort.
    order = np.argsort(tag_ids.astype(np.uint16) if tag_count <= 1 << 16 else tag_ids, kind="stable")
    return present, order, np.concatenate(([0], np.cumsum(counts)))


def _few(tag_ids: np.ndarray, tag_count: int) -> bool:
    """Whether the values are few beside the tags (an old-format file taken a few events at a time): then they are
    sorted, rather than counted per tag."""
    return len(tag_ids) * 8 < tag_count
